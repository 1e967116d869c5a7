// `collsel export`: the model's decisions over a grid of communicator and message sizes, written
// in the selection formats of MPICH (the file of MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE) and of
// Open MPI's coll/tuned component (coll_tuned_dynamic_rules_filename), for sites that want the
// choice without the shim. Pure: decisions in, text out; the CLI reads and writes the files.
//
// Both formats, as exported, mean the same thing for a call between grid points: a communicator
// size between two grid sizes gets the row of the grid size below it (the first row also serves
// the sizes below it), and a message size between two grid sizes gets the decision of the grid
// size below it. That is Open MPI's own reading of its rules file ("the largest key <= the
// call's value"); the MPICH file is written with `<` conditions so that it reads the same.
// The mapping from collsel's algorithms to the libraries' is kMappings below, documented in
// docs/TOOLS.md, "collsel export".
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "selector/collective.hpp"
#include "tools/decisions/decision_grid.hpp"

namespace collsel::tools::exporting {

// The grids written are tools::CollectiveGrid (decision_grid.hpp): both lists of their GridSpec
// ascending without repeats.
using tools::CollectiveGrid;

// The k of a flat tree: the parameter becomes P - 1 of the largest communicator the rule serves.
inline constexpr int kFlatFanout = -1;

// Where one collsel algorithm goes in each library. Not every algorithm has an exact equivalent;
// the `*_why` fields then say which one was taken instead and why.
struct Mapping {
  std::string_view algorithm;  // the collsel name, "bcast.chain_segmented"

  // MPICH >= 4.1, which has MPIR_Bcast_intra_tree and MPIR_Bcast_intra_pipelined_tree with their
  // tree parameters (src/mpi/coll/coll_algorithms.txt).
  std::string_view mpich;
  std::string_view mpich_tree_type;  // "kary", "knomial_1"; empty: the algorithm takes no tree
  int mpich_k = 0;                   // the tree's k, or kFlatFanout
  bool mpich_chunked = false;        // chunk_size = collsel's segment size
  // MPICH 4.0.x, whose Bcast algorithms are binomial, scatter + allgather and smp only.
  std::string_view mpich40;
  // A segmented algorithm whose segments cut the message at least in two goes here instead in
  // MPICH 4.0 (empty: always mpich40): pipelining is why the model chose it, and MPICH 4.0's
  // pipelined-like Bcast is scatter + ring allgather.
  std::string_view mpich40_pipelined;

  // Open MPI coll/tuned: the algorithm ids of coll_tuned_{bcast,scatter,alltoall}_decision.c.
  int ompi_algorithm = 0;
  int ompi_faninout = 0;            // or kFlatFanout (capped at Open MPI's MAXTREEFANOUT, 32)
  bool ompi_segmented = false;      // the rule's segsize = collsel's segment size
  bool ompi_max_requests = false;   // the rule's max_requests = collsel's window (file version 2)

  // What differs from collsel's algorithm and why this one was taken; empty: the same pattern.
  std::string_view mpich_why;    // MPICH >= 4.1
  std::string_view mpich40_why;  // MPICH 4.0
  std::string_view ompi_why;

  // MPICH >= 4.1's pipelined tree with recv_pre_posted = 1 (every chunk's receive posted on
  // entry); last, so that the rows without it need not say so.
  bool mpich_pre_posted = false;
};

// Every registered algorithm, in registry order; the tests check that none is missing.
std::span<const Mapping> mappings();
const Mapping* find_mapping(std::string_view algorithm);

// Open MPI's collective ids (the COLLTYPE enum of ompi/mca/coll/base/coll_base_functions.h).
int ompi_collective_id(Collective c);

// ---- MPICH -------------------------------------------------------------------------------------

// What the MPICH that will read the file needs besides the decisions. MPICH reads the file *in
// place of* its whole built-in selection, so the file must also carry MPICH's rules for every
// other collective (a collective without rules aborts in MPIR_Csel_search): `json` is the
// selection the exported trees are grafted into.
struct MpichBase {
  std::string json;
  // MPIR_Bcast_intra_tree and MPIR_Bcast_intra_pipelined_tree exist (MPICH >= 4.1). Without them
  // the MPICH 4.0 mapping is used, which every MPICH >= 4.0 accepts.
  bool tree_algorithms = false;
  std::string source;  // for messages: the file it came from
};

// The built-in MPIR-level selection of an MPICH shared library (its bytes): MPICH compiles its
// default coll_selection.json into the library as one string; the library also holds the
// compositions of the ch4 device and the POSIX shared-memory selection, which are told apart by
// their containers (only the MPIR one names nothing but "algorithm=MPIR_..."). Empty, with
// `error` set, when no such string is found.
std::optional<MpichBase> mpich_base_from_library(std::string_view bytes, std::string source,
                                                 std::string& error);
// A selection JSON file (such as MPICH's src/mpi/coll/coll_selection.json). Which algorithms the
// reader knows cannot be told from it, so the MPICH 4.0 mapping is used.
std::optional<MpichBase> mpich_base_from_json(std::string_view text, std::string source,
                                              std::string& error);

// One container of the file: "algorithm=NAME" and its parameters, in the order written.
// An empty name means MPICH's own selection (collsel's decision was "native").
struct MpichAlgorithm {
  std::string name;
  std::vector<std::pair<std::string, std::string>> params;  // "k", "1"

  friend bool operator==(const MpichAlgorithm&, const MpichAlgorithm&) = default;
};

// The MPICH algorithm for one decision. `max_comm_size`: the largest communicator size the rule
// serves (0: no bound, the last row), from which a flat tree's k is made.
MpichAlgorithm mpich_algorithm(const GridCell& cell, int max_comm_size, bool tree_algorithms);

struct ExportText {
  std::string text;
  std::vector<std::string> notes;  // fallbacks taken and limits met, one line each, no repeats
  std::string error;               // non-empty: nothing was produced
};

// The base with the intracommunicator rules of each grid's collective replaced by the grid's
// decisions: per comm size a `comm_size<=K` branch, in it per message size an `avg_msg_size<N`
// branch. Alltoall first sends MPI_IN_PLACE calls to MPIR_Alltoall_intra_pairwise_sendrecv_replace,
// MPICH's only in-place Alltoall (the others read the send buffer). MPICH's Scatter selection
// has no message-size operator (avg_msg_size is undefined for it), which is harmless: MPICH has a
// single intracommunicator Scatter algorithm (a row that would need one keeps the decision of
// most of its sizes, with a note).
ExportText to_mpich_json(std::span<const CollectiveGrid> grids, const MpichBase& base);

// ---- Open MPI ----------------------------------------------------------------------------------

struct OmpiRule {
  int algorithm = 0;     // 0: Open MPI's fixed decision (collsel's "native")
  int faninout = 0;
  std::uint64_t segsize = 0;
  int max_requests = 0;  // written only in file version 2

  friend bool operator==(const OmpiRule&, const OmpiRule&) = default;
};

// The Open MPI rule for one decision; `max_comm_size` as for mpich_algorithm().
OmpiRule ompi_rule(const GridCell& cell, int max_comm_size);

// The message size Open MPI looks rules up with, for a call of `bytes` (collsel's size) on
// `comm_size` ranks: Bcast the buffer; Scatter and Alltoall the whole send buffer, comm_size
// blocks (coll_tuned_decision_dynamic.c).
std::uint64_t ompi_message_size(Collective coll, int comm_size, std::uint64_t bytes);

// The classic rules file (coll_tuned_dynamic_file.c). Version 1 is read by every Open MPI; version
// 2 adds the max_requests column that carries alltoall.windowed's window, and is read only by an
// Open MPI with open-mpi/ompi PR #12827 (2024): an older reader skips the non-digits of the
// `rule-file-version-2` line and takes its 2 for the number of collectives. `description`:
// comment lines for the file's head, without the '#'.
ExportText to_ompi_rules(std::span<const CollectiveGrid> grids, int rules_version,
                         std::span<const std::string> description);

}  // namespace collsel::tools::exporting
