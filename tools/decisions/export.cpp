#include "tools/decisions/export.hpp"

#include <algorithm>
#include <climits>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace collsel::tools::exporting {
namespace {

// MPICH reads an object's keys in file order, and the order is the meaning (the first key whose
// condition holds wins), so the keys must keep the order they are written in.
using Json = nlohmann::ordered_json;

// Why the handshake variants map to their plain tree.
constexpr std::string_view kNoHandshake =
    "no library has a per-message request/ready handshake; its point-to-point layer switches to "
    "rendezvous above the eager limit by itself: the same tree without the handshake";
constexpr std::string_view kMpich40Tree =
    "MPICH 4.0's only tree Bcast is binomial (the same tree up to 3 ranks)";
constexpr std::string_view kMpich40Pipeline =
    "MPICH 4.0 has no pipelined Bcast: a message the model cuts in at least two segments goes "
    "to scatter + ring allgather, MPICH's Bcast for bandwidth-bound messages, otherwise to "
    "binomial";
constexpr std::string_view kMpichScatter =
    "MPICH's only intracommunicator Scatter is binomial (MPIR_Scatter_inter_linear serves "
    "intercommunicators only)";
constexpr std::string_view kBasicLinear =
    "basic_linear posts every send at once where collsel sends one after the other";

constexpr std::string_view kPairwiseXor =
    "MPICH's pairwise is this exchange, except that on 2^k ranks it pairs rank XOR t "
    "(alltoall.pairwise)";
constexpr std::string_view kNoMesh =
    "no library has a 2-D mesh All-to-All: Bruck's, which also forwards small blocks through "
    "other ranks to send fewer messages";
constexpr std::string_view kScatteredBatches =
    "scattered posts MPIR_CVAR_ALLTOALL_THROTTLE exchanges (default 32) per batch: all at once "
    "up to 33 ranks";
constexpr std::string_view kScatteredWindow =
    "the window cannot be written in the file: scattered's batches are "
    "MPIR_CVAR_ALLTOALL_THROTTLE exchanges for every call (set it to the window), and a batch is "
    "waited for whole where collsel's window slides";

// A rule serves a range of communicator sizes, most of them not powers of two.
constexpr std::string_view kDoublingAsRing =
    "MPICH's recursive-doubling variant runs a size that is not a power of two only through code "
    "it marks experimental, and a rule serves a range of sizes: the ring allgather after the same "
    "scatter, the same bytes in P - 1 steps instead of log2 P rounds";

constexpr std::string_view kTree = "MPIR_Bcast_intra_tree";
constexpr std::string_view kPipelinedTree = "MPIR_Bcast_intra_pipelined_tree";
constexpr std::string_view kBinomial = "MPIR_Bcast_intra_binomial";
constexpr std::string_view kScatterRing = "MPIR_Bcast_intra_scatter_ring_allgather";
constexpr std::string_view kScatterBinomial = "MPIR_Scatter_intra_binomial";
constexpr std::string_view kA2aPairwise = "MPIR_Alltoall_intra_pairwise";
constexpr std::string_view kA2aScattered = "MPIR_Alltoall_intra_scattered";

// Open MPI ids (coll_tuned_bcast_decision.c, coll_tuned_scatter_decision.c,
// coll_tuned_alltoall_decision.c); ids valid since Open MPI 1.x, so every reader knows them,
// except bcast's scatter_allgather_ring (9), added in Open MPI 4.1 (Debian 12 ships 4.1.4).
enum OmpiBcast {
  basic_linear = 1,
  chain = 2,
  pipeline = 3,
  split_binary_tree = 4,
  binary_tree = 5,
  binomial = 6,
  scatter_allgather_ring = 9
};
enum OmpiScatter { scatter_basic_linear = 1, scatter_binomial = 2 };
enum OmpiAlltoall { linear = 1, pairwise = 2, modified_bruck = 3, linear_sync = 4 };

// clang-format off
constexpr Mapping kMappings[] = {
    // name, MPICH >= 4.1 {algorithm, tree type, k, chunked}, MPICH 4.0 {algorithm, pipelined},
    // Open MPI {algorithm, fan-in/out, segmented, max requests}, why (MPICH, MPICH 4.0, Open MPI)
    {"bcast.flat", kTree, "kary", kFlatFanout, false, kBinomial, "",
     basic_linear, 0, false, false, "", kMpich40Tree, kBasicLinear},
    {"bcast.flat_rendezvous", kTree, "kary", kFlatFanout, false, kBinomial, "",
     basic_linear, 0, false, false, kNoHandshake, kMpich40Tree, kBasicLinear},
    {"bcast.flat_segmented", kPipelinedTree, "kary", kFlatFanout, true, kBinomial, kScatterRing,
     chain, kFlatFanout, true, false, "", kMpich40Pipeline,
     "a chain tree of P-1 one-rank chains is a segmented flat tree; Open MPI caps the chains at "
     "32 (MAXTREEFANOUT), so above 33 ranks the chains grow"},
    {"bcast.chain", kTree, "kary", 1, false, kBinomial, "",
     pipeline, 0, false, false, "", kMpich40Tree, ""},
    {"bcast.chain_rendezvous", kTree, "kary", 1, false, kBinomial, "",
     pipeline, 0, false, false, kNoHandshake, kMpich40Tree, kNoHandshake},
    {"bcast.chain_segmented", kPipelinedTree, "kary", 1, true, kBinomial, kScatterRing,
     pipeline, 0, true, false, "", kMpich40Pipeline, ""},
    {"bcast.binary", kTree, "kary", 2, false, kBinomial, "",
     binary_tree, 0, false, false, "", kMpich40Tree, ""},
    {"bcast.binomial", kBinomial, "", 0, false, kBinomial, "",
     binomial, 0, false, false, "", "", ""},
    {"bcast.binomial_rendezvous", kBinomial, "", 0, false, kBinomial, "",
     binomial, 0, false, false, kNoHandshake, kNoHandshake, kNoHandshake},
    {"bcast.binomial_segmented", kPipelinedTree, "knomial_1", 2, true, kBinomial, kScatterRing,
     binomial, 0, true, false,
     "a k-nomial tree with k = 2 is the binomial tree; early MPICH 4.1 container parsers read "
     "tree_type with atoi (csel_container.c), which turns knomial_1 into a k-ary (binary) tree",
     kMpich40Pipeline, ""},
    {"bcast.scatter_allgather", kScatterRing, "", 0, false, kScatterRing, "",
     scatter_allgather_ring, 0, false, false, "", "",
     "algorithm 9 exists since Open MPI 4.1; an older Open MPI rejects the rules file"},
    {"bcast.split_binary", kPipelinedTree, "kary", 2, true, kBinomial, kScatterRing,
     split_binary_tree, 0, true, false,
     "MPICH has no split binary tree: its pipelined binary tree, which sends the whole message "
     "down one tree",
     kMpich40Pipeline,
     "Open MPI runs its chain instead where a half of the message is shorter than the segment"},
    {"bcast.chain_preposted", kPipelinedTree, "kary", 1, true, kBinomial, kScatterRing,
     pipeline, 0, true, false,
     "MPICH pre-posts its receives only in the non-blocking variant, which also posts each "
     "chunk's send without waiting for the previous one",
     kMpich40Pipeline,
     "Open MPI's pipeline keeps two receives posted (collsel's bcast.chain_segmented)", true},
    {"bcast.scatter_doubling_allgather", kScatterRing, "", 0, false, kScatterRing, "",
     scatter_allgather_ring, 0, false, false, kDoublingAsRing, kDoublingAsRing,
     "Open MPI's recursive-doubling variant (8) falls back to its linear Bcast where the count is "
     "smaller than the number of ranks: the ring allgather (9) after the same scatter, which "
     "exists since Open MPI 4.1"},

    {"scatter.flat", kScatterBinomial, "", 0, false, kScatterBinomial, "",
     scatter_basic_linear, 0, false, false, kMpichScatter, kMpichScatter, ""},
    {"scatter.chain", kScatterBinomial, "", 0, false, kScatterBinomial, "",
     scatter_binomial, 0, false, false, kMpichScatter, kMpichScatter,
     "Open MPI has no chain Scatter; binomial also forwards blocks through intermediate ranks"},
    {"scatter.binomial", kScatterBinomial, "", 0, false, kScatterBinomial, "",
     scatter_binomial, 0, false, false, "", "", ""},

    {"alltoall.direct_exchange", kA2aPairwise, "", 0, false, kA2aPairwise, "",
     pairwise, 0, false, false, kPairwiseXor, kPairwiseXor, ""},
    {"alltoall.pairwise", kA2aPairwise, "", 0, false, kA2aPairwise, "",
     pairwise, 0, false, false, "", "",
     "Open MPI's pairwise always takes the rank+t order of alltoall.direct_exchange, never XOR"},
    {"alltoall.all_at_once", kA2aScattered, "", 0, false, kA2aScattered, "",
     linear, 0, false, false, kScatteredBatches, kScatteredBatches, ""},
    {"alltoall.windowed", kA2aScattered, "", 0, false, kA2aScattered, "",
     linear_sync, 0, false, true, kScatteredWindow, kScatteredWindow,
     "linear_sync keeps max_requests exchanges in flight; the window is written only in rules "
     "file version 2 (--ompi-rules-version 2), otherwise Open MPI takes "
     "coll_tuned_alltoall_algorithm_max_requests (readers before open-mpi/ompi PR #12827: no "
     "limit)"},
    {"alltoall.bruck", "MPIR_Alltoall_intra_brucks", "", 0, false, "MPIR_Alltoall_intra_brucks",
     "", modified_bruck, 0, false, false, "", "", ""},
    {"alltoall.mesh2d", "MPIR_Alltoall_intra_brucks", "", 0, false, "MPIR_Alltoall_intra_brucks",
     "", modified_bruck, 0, false, false, kNoMesh, kNoMesh, kNoMesh},
};
// clang-format on

// MPICH builds a k-ary tree with `rank * k + i` in an int (MPII_Treeutil_tree_kary_init and the
// KARY branch of MPIR_Bcast_intra_pipelined_tree), so k * P must stay below 2^31: 46340^2 does.
// A flat tree is k = P - 1, so this caps a flat tree at 46341 ranks.
constexpr int kMaxMpichK = 46340;
// Open MPI's chain topology has at most MAXTREEFANOUT (coll_base_topo.h) chains.
constexpr int kOmpiMaxFanout = 32;

// Notes in the order they were first met, without repeats.
class Notes {
 public:
  void add(std::string note) {
    if (std::find(notes_.begin(), notes_.end(), note) == notes_.end()) {
      notes_.push_back(std::move(note));
    }
  }
  std::vector<std::string> take() { return std::move(notes_); }

 private:
  std::vector<std::string> notes_;
};

const Mapping& mapping_of(std::string_view algorithm) {
  const Mapping* m = find_mapping(algorithm);
  // The registry and this table must move together; tests/tools/export_test.cpp checks it.
  if (m == nullptr) throw std::logic_error(fmt::format("no export mapping for {}", algorithm));
  return *m;
}

bool is_native(const GridCell& cell) { return cell.algorithm == kNativeName; }

// The largest communicator size row `i` of `grid` serves; 0 for the last row (no bound).
int row_max_comm_size(const GridSpec& grid, std::size_t i) {
  return i + 1 < grid.comm_sizes.size() ? grid.comm_sizes[i + 1] - 1 : 0;
}

const GridCell& cell_at(const CollectiveGrid& g, std::size_t row, std::size_t col) {
  return g.cells[row * g.grid.bytes.size() + col];
}

std::string check_grid(const CollectiveGrid& g) {
  const auto& p = g.grid.comm_sizes;
  const auto& b = g.grid.bytes;
  if (p.empty() || b.empty()) return "the grid has no communicator or no message size";
  if (g.cells.size() != p.size() * b.size()) return "the grid's cells do not fill the grid";
  if (p.front() < 1 || std::adjacent_find(p.begin(), p.end(), std::greater_equal<>()) != p.end()) {
    return "communicator sizes must be >= 1, ascending, without repeats";
  }
  if (std::adjacent_find(b.begin(), b.end(), std::greater_equal<>()) != b.end()) {
    return "message sizes must be ascending, without repeats";
  }
  return {};
}

// Why the library's algorithm is not collsel's, for the note, or empty when it is the same.
std::string_view mpich_why(const Mapping& m, bool tree_algorithms) {
  return tree_algorithms ? m.mpich_why : m.mpich40_why;
}

// ---- MPICH ----------------------------------------------------------------------------------

Json container_json(const MpichAlgorithm& a) {
  Json params = Json::object();
  for (const auto& [key, value] : a.params) params[key + "=" + value] = Json::object();
  return Json{{"algorithm=" + a.name, params}};
}

bool is_container_key(std::string_view key) {
  return key.starts_with("algorithm=") || key.starts_with("composition=");
}

// True when every container below `node` is an MPIR-level algorithm: the selection of
// MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE, not the ch4 device's compositions or the POSIX one.
bool only_mpir_algorithms(const Json& node) {
  if (!node.is_object()) return false;
  for (const auto& [key, value] : node.items()) {
    if (is_container_key(key)) {
      if (!key.starts_with("algorithm=MPIR_")) return false;
    } else if (!only_mpir_algorithms(value)) {
      return false;
    }
  }
  return true;
}

std::optional<Json> parse_selection(std::string_view text, std::string& error) {
  Json doc = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object() || doc.empty()) {
    error = "not a JSON object";
    return std::nullopt;
  }
  for (const auto& [key, value] : doc.items()) {
    // MPIR_Csel_prune expects a chain of collective=... nodes at the top.
    if (!key.starts_with("collective=") || !value.is_object()) {
      error = fmt::format("its top-level key '{}' is not collective=NAME with an object", key);
      return std::nullopt;
    }
  }
  return doc;
}

// Neighbouring message sizes of one row with the same container.
struct Run {
  std::uint64_t first_bytes = 0;  // the smallest size it serves
  Json container;
  int cells = 0;                  // grid sizes in it
};

// The tree of one collective's intracommunicator decisions: per row a comm_size branch, in it per
// run of equal decisions an avg_msg_size branch. `native`: MPICH's own intracommunicator rules,
// grafted where collsel's decision was the native collective.
Json mpich_grid_tree(const CollectiveGrid& g, bool tree_algorithms, const Json* native,
                     Notes& notes) {
  const auto& sizes = g.grid.comm_sizes;
  const auto& bytes = g.grid.bytes;
  std::vector<std::pair<int, Json>> rows;  // (first comm size served, branches)
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    const int max_comm = row_max_comm_size(g.grid, i);
    std::vector<Run> runs;
    for (std::size_t j = 0; j < bytes.size(); ++j) {
      const GridCell& cell = cell_at(g, i, j);
      Json container;
      if (is_native(cell)) {
        if (native == nullptr) {
          throw std::invalid_argument(fmt::format(
              "the MPICH base has no {} rules to stand for collsel's native decision",
              collective_name(g.coll)));
        }
        container = *native;
      } else {
        const MpichAlgorithm a = mpich_algorithm(cell, max_comm, tree_algorithms);
        container = container_json(a);
        const Mapping& m = mapping_of(cell.algorithm);
        if (const std::string_view why = mpich_why(m, tree_algorithms); !why.empty()) {
          notes.add(fmt::format("{} -> {}: {}", cell.algorithm, a.name, why));
        }
        if (m.mpich_k == kFlatFanout && tree_algorithms &&
            (max_comm == 0 || max_comm > kMaxMpichK + 1)) {
          notes.add(fmt::format("{}: MPICH's k is capped at {} (its k-ary tree computes rank * k "
                                "in an int), so the tree is flat up to {} ranks only",
                                cell.algorithm, kMaxMpichK, kMaxMpichK + 1));
        }
      }
      // avg_msg_size<N is parsed with atoi: a bound above INT_MAX cannot be written, so those
      // sizes stay with the largest size that can.
      if (j > 0 && bytes[j] > static_cast<std::uint64_t>(INT_MAX)) {
        notes.add(fmt::format("MPICH reads message sizes as int: calls above {} bytes get the "
                              "decision of the largest grid size below that",
                              INT_MAX));
        continue;
      }
      if (!runs.empty() && runs.back().container == container) {
        ++runs.back().cells;
        continue;
      }
      runs.push_back({j == 0 ? 0 : bytes[j], std::move(container), 1});
    }
    // MPICH defines avg_msg_size for Bcast and Alltoall only (get_avg_msgsize in csel.c aborts
    // for Scatter). Its single Scatter algorithm makes this moot, except against a native graft
    // of another base: the row then keeps the decision of most of its sizes.
    if (g.coll == Collective::scatter && runs.size() > 1) {
      const auto most = std::max_element(runs.begin(), runs.end(),
                                         [](const Run& a, const Run& b) { return a.cells < b.cells; });
      notes.add(fmt::format("MPICH cannot choose Scatter algorithms by message size: on {} ranks "
                            "the decision for {} bytes and up stands for every size",
                            sizes[i], most->first_bytes));
      Run kept = std::move(*most);
      runs = {std::move(kept)};
    }
    Json row = Json::object();
    for (std::size_t k = 0; k < runs.size(); ++k) {
      const std::string key = k + 1 < runs.size()
                                  ? fmt::format("avg_msg_size<{}", runs[k + 1].first_bytes)
                                  : std::string("avg_msg_size=any");
      row[key] = std::move(runs[k].container);
    }
    if (!rows.empty() && rows.back().second == row) continue;
    rows.emplace_back(i == 0 ? 1 : sizes[i], std::move(row));
  }
  // comm_size<=K, never comm_size<N: MPICH's MPIR_Csel_search compares a comm_size<N condition
  // with <= (csel.c, case CSEL_NODE_TYPE__OPERATOR__COMM_SIZE_LT, in 4.0.2 and since), so a
  // 4-rank call took the comm_size<4 row: measured with tests/tools/decisions/export_probe.c, a
  // 16 KiB Alltoall on 4 ranks ran the 2-rank row's pairwise instead of the file's Bruck.
  Json tree = Json::object();
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const std::string key = r + 1 < rows.size()
                                ? fmt::format("comm_size<={}", rows[r + 1].first - 1)
                                : std::string("comm_size=any");
    tree[key] = std::move(rows[r].second);
  }
  return tree;
}

// The collective's subtree: intracommunicators go to `intra`; everything else keeps the base's
// rules. A base subtree is a chain of conditions tried in order, so the base's own comm_type=intra
// branch is dropped and the rest follows ours. A container cannot share an object with conditions
// (MPICH's parse_json_tree returns at the first container key and drops its siblings), so a base
// whose subtree is a bare container goes behind comm_type=any instead.
Json merge_collective(Json intra, const Json* base_subtree) {
  Json merged = Json::object();
  merged["comm_type=intra"] = std::move(intra);
  if (base_subtree == nullptr) return merged;
  Json rest = Json::object();
  bool has_container = false;
  for (const auto& [key, value] : base_subtree->items()) {
    if (key == "comm_type=intra") continue;
    has_container = has_container || is_container_key(key);
    rest[key] = value;
  }
  if (rest.empty()) return merged;
  if (has_container) {
    merged["comm_type=any"] = std::move(rest);
  } else {
    for (auto& [key, value] : rest.items()) merged[key] = std::move(value);
  }
  return merged;
}

// ---- Open MPI -------------------------------------------------------------------------------

std::uint64_t saturating_multiply(std::uint64_t a, std::uint64_t b) {
  if (a != 0 && b > std::numeric_limits<std::uint64_t>::max() / a) {
    return std::numeric_limits<std::uint64_t>::max();
  }
  return a * b;
}

std::string join_names(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

struct OmpiRun {
  std::uint64_t msg_size = 0;
  OmpiRule rule;
  std::vector<std::string> algorithms;  // collsel's, for the comment
};

}  // namespace

std::span<const Mapping> mappings() { return kMappings; }

const Mapping* find_mapping(std::string_view algorithm) {
  for (const Mapping& m : kMappings) {
    if (m.algorithm == algorithm) return &m;
  }
  return nullptr;
}

int ompi_collective_id(Collective c) {
  switch (c) {
    case Collective::bcast: return 7;
    case Collective::scatter: return 15;
    case Collective::alltoall: return 3;
  }
  return -1;
}

// ---- MPICH ------------------------------------------------------------------------------------

std::optional<MpichBase> mpich_base_from_library(std::string_view bytes, std::string source,
                                                 std::string& error) {
  constexpr std::string_view kStart = "{\"collective=";
  for (std::size_t at = bytes.find(kStart); at != std::string_view::npos;
       at = bytes.find(kStart, at + 1)) {
    const std::size_t end = bytes.find('\0', at);
    const std::string_view text = bytes.substr(at, end == std::string_view::npos ? end : end - at);
    std::string ignored;
    const std::optional<Json> doc = parse_selection(text, ignored);
    if (!doc || !only_mpir_algorithms(*doc)) continue;
    MpichBase base;
    base.json = std::string(text);
    // The container parser of MPICH >= 4.1 names these; 4.0's does not know them.
    base.tree_algorithms = bytes.find(kTree) != std::string_view::npos &&
                           bytes.find(kPipelinedTree) != std::string_view::npos;
    base.source = std::move(source);
    return base;
  }
  error = "it holds no MPIR-level collective selection (a JSON string of collective= keys whose "
          "algorithms are all MPIR_...); is it an MPICH library of version 4.0 or later?";
  return std::nullopt;
}

std::optional<MpichBase> mpich_base_from_json(std::string_view text, std::string source,
                                              std::string& error) {
  if (!parse_selection(text, error)) return std::nullopt;
  MpichBase base;
  base.json = std::string(text);
  base.source = std::move(source);
  return base;
}

MpichAlgorithm mpich_algorithm(const GridCell& cell, int max_comm_size, bool tree_algorithms) {
  if (is_native(cell)) return {};
  const Mapping& m = mapping_of(cell.algorithm);
  if (!tree_algorithms) {
    const std::uint64_t segment = cell.params.segment_bytes;
    const bool pipelined = segment > 0 && segment < cell.bytes;
    const std::string_view name =
        pipelined && !m.mpich40_pipelined.empty() ? m.mpich40_pipelined : m.mpich40;
    return {std::string(name), {}};
  }
  MpichAlgorithm a{std::string(m.mpich), {}};
  if (m.mpich_tree_type.empty()) return a;
  int k = m.mpich_k;
  if (k == kFlatFanout) {
    k = max_comm_size == 0 ? kMaxMpichK : std::clamp(max_comm_size - 1, 1, kMaxMpichK);
  }
  // is_non_blocking first: early MPICH 4.1 container parsers store is_non_blocking's value into
  // k (csel_container.c), and a k written after it puts k right again. Blocking: collsel's trees
  // complete each child's send before the next, as MPICH's blocking variant does. The tree type
  // is written by name, as current parsers read it (get_tree_type_from_string).
  // Pre-posted receives exist only in the non-blocking variant (MPICH ignores recv_pre_posted
  // in the blocking one).
  a.params = {{"is_non_blocking", m.mpich_pre_posted ? "1" : "0"},
              {"tree_type", std::string(m.mpich_tree_type)},
              {"k", std::to_string(k)}};
  if (m.mpich_chunked) {
    // chunk_size is an int; a segment of 2 GiB or more is one chunk of any realistic message.
    const std::uint64_t chunk =
        std::min<std::uint64_t>(cell.params.segment_bytes, static_cast<std::uint64_t>(INT_MAX));
    a.params.emplace_back("chunk_size", std::to_string(chunk));
    a.params.emplace_back("recv_pre_posted", m.mpich_pre_posted ? "1" : "0");
  }
  return a;
}

ExportText to_mpich_json(std::span<const CollectiveGrid> grids, const MpichBase& base) {
  ExportText out;
  std::optional<Json> doc = parse_selection(base.json, out.error);
  if (!doc) {
    out.error = fmt::format("the MPICH base {} is unusable: {}", base.source, out.error);
    return out;
  }
  Notes notes;
  try {
    for (const CollectiveGrid& g : grids) {
      if (std::string problem = check_grid(g); !problem.empty()) {
        out.error = fmt::format("{}: {}", collective_name(g.coll), problem);
        return out;
      }
      // MPICH's collective names are collsel's ("bcast", "scatter", "alltoall").
      const std::string key = fmt::format("collective={}", collective_name(g.coll));
      const Json* base_subtree = doc->contains(key) ? &(*doc)[key] : nullptr;
      // collsel's "native" stands for MPICH's own intracommunicator rules.
      const Json* native = nullptr;
      if (base_subtree != nullptr) {
        native = base_subtree->contains("comm_type=intra") ? &(*base_subtree)["comm_type=intra"]
                                                           : base_subtree;
      }
      Json intra = mpich_grid_tree(g, base.tree_algorithms, native, notes);
      if (g.coll == Collective::alltoall) {
        intra = Json{{"is_sendbuf_inplace=yes",
                      Json{{"algorithm=MPIR_Alltoall_intra_pairwise_sendrecv_replace",
                            Json::object()}}},
                     {"is_sendbuf_inplace=no", std::move(intra)}};
      }
      Json merged = merge_collective(std::move(intra), base_subtree);
      (*doc)[key] = std::move(merged);  // in place when the key exists: its position is kept
    }
  } catch (const std::invalid_argument& e) {
    out.error = e.what();
    return out;
  }
  out.text = doc->dump(1) + "\n";
  // MPICH mmaps the file and hands the mapping to json_tokener_parse as a C string: the NUL after
  // the text is the zero fill of the mapping's last page, which a file of whole pages lacks.
  while (out.text.size() % 4096 == 0) out.text += '\n';
  out.notes = notes.take();
  return out;
}

// ---- Open MPI ---------------------------------------------------------------------------------

OmpiRule ompi_rule(const GridCell& cell, int max_comm_size) {
  if (is_native(cell)) return {};  // algorithm 0: Open MPI's fixed decision
  const Mapping& m = mapping_of(cell.algorithm);
  OmpiRule r;
  r.algorithm = m.ompi_algorithm;
  r.faninout = m.ompi_faninout;
  if (r.faninout == kFlatFanout) {
    r.faninout = max_comm_size == 0 ? kOmpiMaxFanout
                                    : std::clamp(max_comm_size - 1, 1, kOmpiMaxFanout);
  }
  // segsize is an int in Open MPI's rule; 0 means unsegmented.
  if (m.ompi_segmented) {
    r.segsize = std::min<std::uint64_t>(cell.params.segment_bytes,
                                        static_cast<std::uint64_t>(INT_MAX));
  }
  if (m.ompi_max_requests) r.max_requests = cell.params.window;
  return r;
}

std::uint64_t ompi_message_size(Collective coll, int comm_size, std::uint64_t bytes) {
  if (coll == Collective::bcast) return bytes;
  return saturating_multiply(static_cast<std::uint64_t>(comm_size), bytes);
}

ExportText to_ompi_rules(std::span<const CollectiveGrid> grids, int rules_version,
                         std::span<const std::string> description) {
  ExportText out;
  if (rules_version != 1 && rules_version != 2) {
    out.error = fmt::format("rules file version {} does not exist (1 or 2)", rules_version);
    return out;
  }
  Notes notes;
  std::string text;
  // The version line must be the file's first bytes (fscanf at offset 0), before any comment.
  if (rules_version == 2) text += "rule-file-version-2\n";
  for (std::string line : description) {
    // A line break inside a comment would turn the rest of the line into rule numbers.
    std::replace_if(line.begin(), line.end(), [](char c) { return c == '\n' || c == '\r'; }, ' ');
    text += fmt::format("# {}\n", line);
  }
  text += fmt::format(
      "# Layout (ompi/mca/coll/tuned/coll_tuned_dynamic_file.c): the number of collectives; per\n"
      "# collective its COLLTYPE id and the number of communicator sizes; per communicator size\n"
      "# the size (the rule serves it and every size up to the next one) and the number of\n"
      "# message-size rules; per rule: message size (the smallest it serves, in bytes: Bcast the\n"
      "# buffer, Scatter and Alltoall all blocks of the send buffer), algorithm id, fan-in/out,\n"
      "# segment size{}.\n",
      rules_version == 2 ? ", and for alltoall linear_sync the max requests" : "");
  text += fmt::format("{}  # collectives\n", grids.size());
  for (const CollectiveGrid& g : grids) {
    if (std::string problem = check_grid(g); !problem.empty()) {
      out.error = fmt::format("{}: {}", collective_name(g.coll), problem);
      return out;
    }
    const auto& sizes = g.grid.comm_sizes;
    const auto& bytes = g.grid.bytes;
    std::vector<std::pair<int, std::vector<OmpiRun>>> rows;
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      const int max_comm = row_max_comm_size(g.grid, i);
      std::vector<OmpiRun> runs;
      for (std::size_t j = 0; j < bytes.size(); ++j) {
        const GridCell& cell = cell_at(g, i, j);
        const OmpiRule rule = ompi_rule(cell, max_comm);
        if (!is_native(cell)) {
          const Mapping& m = mapping_of(cell.algorithm);
          if (!m.ompi_why.empty()) {
            notes.add(fmt::format("{} -> Open MPI {} algorithm {}: {}", cell.algorithm,
                                  collective_name(g.coll), rule.algorithm, m.ompi_why));
          }
          if (m.ompi_max_requests && rules_version == 1) {
            notes.add(fmt::format("{}: the window (k = {}) is not in a version-1 rules file; "
                                  "write version 2 with --ompi-rules-version 2",
                                  cell.algorithm, cell.params.window));
          }
        }
        // Open MPI reads the size with %li; the first rule of a row must be size 0 (the reader
        // refuses the file otherwise), so it also serves the sizes below the grid's first.
        const std::uint64_t msg = ompi_message_size(g.coll, sizes[i], bytes[j]);
        if (j > 0 && msg > static_cast<std::uint64_t>(std::numeric_limits<long>::max())) {
          notes.add("Open MPI reads message sizes as long: larger grid sizes are left out");
          continue;
        }
        if (!runs.empty() && runs.back().rule == rule) {
          auto& names = runs.back().algorithms;
          if (std::find(names.begin(), names.end(), cell.algorithm) == names.end()) {
            names.push_back(cell.algorithm);
          }
          continue;
        }
        runs.push_back({j == 0 ? 0 : msg, rule, {cell.algorithm}});
      }
      // A row equal to the one before serves its sizes already.
      const auto same = [](const std::vector<OmpiRun>& a, const std::vector<OmpiRun>& b) {
        return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const auto& x, const auto& y) {
          return x.msg_size == y.msg_size && x.rule == y.rule;
        });
      };
      if (!rows.empty() && same(rows.back().second, runs)) continue;
      rows.emplace_back(sizes[i], std::move(runs));
    }
    text += fmt::format("{}  # {} (COLLTYPE id)\n", ompi_collective_id(g.coll),
                        collective_name(g.coll));
    text += fmt::format("{}  # communicator sizes\n", rows.size());
    for (const auto& [comm_size, runs] : rows) {
      text += fmt::format("{}  # communicator size\n", comm_size);
      text += fmt::format("{}  # message sizes\n", runs.size());
      for (const OmpiRun& run : runs) {
        std::string line = fmt::format("{} {} {} {}", run.msg_size, run.rule.algorithm,
                                       run.rule.faninout, run.rule.segsize);
        const Mapping* m = run.algorithms.empty() ? nullptr : find_mapping(run.algorithms.front());
        if (rules_version == 2 && m != nullptr && m->ompi_max_requests) {
          line += fmt::format(" {}", run.rule.max_requests);
        }
        text += fmt::format("{}  # {}\n", line, join_names(run.algorithms));
      }
    }
  }
  out.text = std::move(text);
  out.notes = notes.take();
  return out;
}

}  // namespace collsel::tools::exporting
