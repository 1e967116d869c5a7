// `collsel export`: both formats are read back the way their libraries read them, and every grid
// cell, every point between grid cells and every point beyond the grid must select what
// decision_grid() decided, mapped by the export's table.
//
// MpichSelector restates MPICH's csel walk (src/mpi/coll/src/csel.c: keys tried in file order,
// the first that holds is followed with no backtracking, "algorithm=" ends the walk) and the
// tree rules its parser asserts (validate_tree). OmpiRules restates coll/tuned's classic reader
// (coll_tuned_dynamic_file.c: numbers in order, '#' to the end of the line is skipped, an
// optional version line) and its look-up (coll_tuned_dynamic_rules.c: the last communicator size
// <= the call's, then the last message size <= the call's). Whether MPICH really accepts the file
// is checked by tests/tools/export_mpich_test.py, which runs MPI programs with it.
#include "tools/decisions/export.hpp"

#include <algorithm>
#include <bit>
#include <charconv>
#include <climits>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "command.hpp"
#include "selector/catalog.hpp"
#include "selector/policy.hpp"
#include "temp_dir.hpp"
#include "tools/decisions/decision_grid.hpp"
#include "tools/decisions/model_loading.hpp"

namespace collsel::testing {
namespace {

namespace ex = tools::exporting;
using Json = nlohmann::ordered_json;
using tools::GridCell;

// ---- MPICH's reading of the file ----------------------------------------------------------------

struct Query {
  Collective coll = Collective::bcast;
  int comm_size = 1;
  std::uint64_t bytes = 0;
  bool intra = true;
  bool in_place = false;
};

std::optional<std::int64_t> number_after(std::string_view key, std::string_view prefix) {
  if (!key.starts_with(prefix)) return std::nullopt;
  const std::string_view digits = key.substr(prefix.size());
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (ec != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
  return v;
}

bool is_container(std::string_view key) {
  return key.starts_with("algorithm=") || key.starts_with("composition=");
}

bool is_any(std::string_view key) { return key == "any" || key.ends_with("=any"); }

// The operators MPICH lets end an object with no alternative after them (validate_tree).
bool may_be_last(std::string_view key) {
  return is_any(key) || key.starts_with("comm_type=") || key.starts_with("is_") ||
         key.starts_with("comm_hierarchy=") || key.starts_with("collective=");
}

// One condition of MPICH's selection language for `q`, on a flat communicator (no node
// hierarchy). A key the test does not know fails the test, as MPICH aborts on it.
bool holds(std::string_view key, const Query& q) {
  const auto bytes = static_cast<std::int64_t>(q.bytes);
  if (is_any(key)) return true;
  if (key.starts_with("collective=")) return key.substr(11) == collective_name(q.coll);
  if (key == "comm_type=intra") return q.intra;
  if (key == "comm_type=inter") return !q.intra;
  if (key == "comm_size=pow2") return std::has_single_bit(static_cast<unsigned>(q.comm_size));
  if (key == "comm_hierarchy=parent") return false;
  if (key == "is_sendbuf_inplace=yes") return q.in_place;
  if (key == "is_sendbuf_inplace=no") return !q.in_place;
  if (auto v = number_after(key, "comm_size<=")) return q.comm_size <= *v;
  // MPICH's MPIR_Csel_search compares comm_size<N with <= (csel.c), so this reader does too.
  if (auto v = number_after(key, "comm_size<")) return q.comm_size <= *v;
  if (auto v = number_after(key, "avg_msg_size<=")) return bytes <= *v;
  if (auto v = number_after(key, "avg_msg_size<")) return bytes < *v;
  if (auto v = number_after(key, "total_msg_size<=")) return bytes * q.comm_size <= *v;
  if (auto v = number_after(key, "total_msg_size<")) return bytes * q.comm_size < *v;
  ADD_FAILURE() << "a key MPICH does not know: " << key;
  return false;
}

std::optional<ex::MpichAlgorithm> select(const Json& node, const Query& q) {
  for (const auto& [key, value] : node.items()) {
    if (is_container(key)) {
      ex::MpichAlgorithm a{key.substr(key.find('=') + 1), {}};
      for (const auto& [param, unused] : value.items()) {
        const std::size_t eq = param.find('=');
        a.params.emplace_back(param.substr(0, eq), param.substr(eq + 1));
      }
      return a;
    }
    if (holds(key, q)) return select(value, q);  // MPICH never comes back from a branch
  }
  return std::nullopt;  // MPICH: MPIR_Csel_search returns NULL and the collective aborts
}

// The rules MPICH's parser asserts, and the ones the export keeps on top: a container stands
// alone in its object (parse_json_tree returns at the first container and drops its siblings),
// an "any" comes last, and an object ends with an operator that may go without alternative.
void check_structure(const Json& node, const std::string& path) {
  ASSERT_TRUE(node.is_object() && !node.empty()) << path;
  const auto first = node.items().begin();
  if (is_container(first.key())) {
    EXPECT_EQ(node.size(), 1u) << path << ": a container with siblings";
    for (const auto& [param, value] : first.value().items()) {
      EXPECT_TRUE(value.is_object() && value.empty()) << path << "/" << param;
    }
    return;
  }
  std::size_t i = 0;
  std::string last;
  for (const auto& [key, value] : node.items()) {
    EXPECT_FALSE(is_container(key)) << path << ": a container among conditions";
    EXPECT_TRUE(!is_any(key) || i + 1 == node.size()) << path << ": '" << key << "' not last";
    check_structure(value, path + "/" + key);
    last = key;
    ++i;
  }
  EXPECT_TRUE(may_be_last(last)) << path << ": ends with '" << last << "', no alternative";
}

// ---- Open MPI's reading of the file ------------------------------------------------------------

struct MsgRule {
  std::int64_t size = 0;
  ex::OmpiRule rule;
  bool has_max_requests = false;
};
struct CommRule {
  std::int64_t comm_size = 0;
  std::vector<MsgRule> msgs;
};

class OmpiRules {
 public:
  explicit OmpiRules(std::string text) : text_(std::move(text)) {
    constexpr std::string_view kVersion = "rule-file-version-";
    if (std::string_view(text_).starts_with(kVersion)) {
      pos_ = kVersion.size();
      version_ = static_cast<int>(next());
    }
    const std::int64_t collectives = next();
    for (std::int64_t c = 0; c < collectives; ++c) {
      const int id = static_cast<int>(next());
      EXPECT_FALSE(rules_.contains(id)) << "collective " << id << " twice";
      std::vector<CommRule>& comms = rules_[id];
      const std::int64_t ncomm = next();
      for (std::int64_t i = 0; i < ncomm; ++i) {
        CommRule comm{next(), {}};
        const std::int64_t nmsg = next();
        for (std::int64_t j = 0; j < nmsg; ++j) {
          MsgRule m;
          m.size = next();
          m.rule.algorithm = static_cast<int>(next());
          m.rule.faninout = static_cast<int>(next());
          m.rule.segsize = static_cast<std::uint64_t>(next());
          if (version_ > 1 && digit_next_on_line()) {
            m.rule.max_requests = static_cast<int>(next());
            m.has_max_requests = true;
          }
          comm.msgs.push_back(m);
        }
        // The reader refuses a file whose first message size of a row is not 0.
        EXPECT_TRUE(!comm.msgs.empty() && comm.msgs.front().size == 0) << "comm " << comm.comm_size;
        EXPECT_TRUE(std::is_sorted(comm.msgs.begin(), comm.msgs.end(),
                                   [](auto& a, auto& b) { return a.size < b.size; }));
        comms.push_back(std::move(comm));
      }
      EXPECT_TRUE(std::is_sorted(comms.begin(), comms.end(),
                                 [](auto& a, auto& b) { return a.comm_size < b.comm_size; }));
    }
    EXPECT_FALSE(more_numbers()) << "numbers after the last rule";
  }

  [[nodiscard]] int version() const { return version_; }
  [[nodiscard]] const std::map<int, std::vector<CommRule>>& rules() const { return rules_; }

  // ompi_coll_tuned_get_com_rule_ptr then ompi_coll_tuned_get_target_method_params.
  [[nodiscard]] std::optional<MsgRule> lookup(int coll_id, int comm_size,
                                              std::uint64_t msg_size) const {
    const auto it = rules_.find(coll_id);
    if (it == rules_.end() || it->second.empty()) return std::nullopt;
    const CommRule* comm = &it->second.front();
    for (const CommRule& c : it->second) {
      if (c.comm_size > comm_size) break;
      comm = &c;
    }
    const MsgRule* msg = &comm->msgs.front();
    for (const MsgRule& m : comm->msgs) {
      if (static_cast<std::uint64_t>(m.size) > msg_size) break;
      msg = &m;
    }
    return *msg;
  }

 private:
  // ompi_coll_base_file_getnext_long: anything but a digit is skipped, '#' up to the line's end.
  std::int64_t next() {
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (c == '#') {
        pos_ = text_.find('\n', pos_);
        if (pos_ == std::string::npos) pos_ = text_.size();
        continue;
      }
      if (std::isdigit(static_cast<unsigned char>(c))) {
        std::int64_t v = 0;
        const auto [end, ec] = std::from_chars(text_.data() + pos_, text_.data() + text_.size(), v);
        EXPECT_EQ(ec, std::errc());
        pos_ = static_cast<std::size_t>(end - text_.data());
        return v;
      }
      ++pos_;
    }
    ADD_FAILURE() << "the file ends before its last rule";
    return 0;
  }
  // ompi_coll_base_file_peek_next_char_isdigit: only blanks are skipped.
  bool digit_next_on_line() {
    std::size_t p = pos_;
    while (p < text_.size() && (text_[p] == ' ' || text_[p] == '\t')) ++p;
    return p < text_.size() && std::isdigit(static_cast<unsigned char>(text_[p]));
  }
  bool more_numbers() {
    while (pos_ < text_.size()) {
      if (text_[pos_] == '#') {
        pos_ = text_.find('\n', pos_);
        if (pos_ == std::string::npos) return false;
      } else if (std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
        return true;
      }
      ++pos_;
    }
    return false;
  }

  std::string text_;
  std::size_t pos_ = 0;
  int version_ = 1;
  std::map<int, std::vector<CommRule>> rules_;
};

// ---- grids ------------------------------------------------------------------------------------

// Every registered algorithm of `coll`, and native, over an odd-sized grid with a 0-byte column:
// cells cycle through the names so that neighbours differ and every name lands on several rows.
ex::CollectiveGrid synthetic_grid(Collective coll) {
  ex::CollectiveGrid g;
  g.coll = coll;
  g.grid.comm_sizes = {3, 5, 7, 16, 33};
  g.grid.bytes = {0, 1, 1000, 65536, 1u << 20};
  std::vector<std::string> names;
  for (const AlgorithmView& a : catalog(coll)) names.emplace_back(a.name);
  names.emplace_back(kNativeName);
  std::size_t n = 0;
  for (const int p : g.grid.comm_sizes) {
    for (const std::uint64_t b : g.grid.bytes) {
      GridCell c;
      c.comm_size = p;
      c.bytes = b;
      c.algorithm = names[n++ % names.size()];
      const AlgorithmView* view = find_algorithm(coll, c.algorithm);
      if (view != nullptr && view->segmented) c.params.segment_bytes = b == 0 ? 0 : 512;
      if (c.algorithm == "alltoall.windowed") c.params.window = 3;
      g.cells.push_back(c);
    }
  }
  return g;
}

std::vector<ex::CollectiveGrid> synthetic_grids() {
  std::vector<ex::CollectiveGrid> grids;
  for (Collective c : kCollectives) grids.push_back(synthetic_grid(c));
  return grids;
}

std::vector<ex::CollectiveGrid> model_grids(const tools::GridSpec& spec) {
  Diagnostics diagnostics;
  const auto loaded = tools::load_models(std::nullopt, std::nullopt, diagnostics);
  EXPECT_TRUE(loaded.has_value());
  return tools::decision_grids(kCollectives, spec, loaded->set(), loaded->config.policy);
}

// A base whose scatter rules are a bare container (to be kept behind comm_type=any) and which
// has one collective collsel does not export.
constexpr std::string_view kBase = R"({
  "collective=bcast": {
    "comm_type=intra": {
      "comm_size<8": {"avg_msg_size=any": {"algorithm=MPIR_Bcast_intra_binomial": {}}},
      "comm_size=any": {
        "avg_msg_size<=12288": {"algorithm=MPIR_Bcast_intra_binomial": {}},
        "avg_msg_size=any": {"algorithm=MPIR_Bcast_intra_scatter_ring_allgather": {}}}},
    "comm_type=inter": {"algorithm=MPIR_Bcast_inter_remote_send_local_bcast": {}}},
  "collective=allreduce": {"algorithm=MPIR_Allreduce_intra_recursive_doubling": {}},
  "collective=alltoall": {
    "comm_type=intra": {
      "is_sendbuf_inplace=yes": {"algorithm=MPIR_Alltoall_intra_pairwise_sendrecv_replace": {}},
      "is_sendbuf_inplace=no": {
        "avg_msg_size<=256": {"algorithm=MPIR_Alltoall_intra_brucks": {}},
        "avg_msg_size=any": {"algorithm=MPIR_Alltoall_intra_pairwise": {}}}},
    "comm_type=inter": {"algorithm=MPIR_Alltoall_inter_pairwise_exchange": {}}},
  "collective=scatter": {"algorithm=MPIR_Scatter_intra_binomial": {}}
})";

ex::MpichBase test_base(bool tree_algorithms) {
  return {std::string(kBase), tree_algorithms, "test base"};
}

// The points a call can fall on: each grid value, the values just above and below it, and values
// beyond both ends. A call between grid values belongs to the grid value below it.
std::vector<std::int64_t> probes(const std::vector<std::int64_t>& grid, std::int64_t lowest) {
  std::vector<std::int64_t> out;
  for (const std::int64_t v : grid) {
    for (const std::int64_t d : {-1, 0, 1}) {
      if (v + d >= lowest) out.push_back(v + d);
    }
  }
  out.push_back(lowest);
  out.push_back(grid.back() * 3 + 7);
  return out;
}

// The row and column a call of `comm_size` ranks and `bytes` belongs to.
std::pair<std::size_t, std::size_t> owner(const tools::GridSpec& g, std::int64_t comm_size,
                                          std::uint64_t bytes) {
  std::size_t row = 0;
  for (std::size_t i = 0; i < g.comm_sizes.size(); ++i) {
    if (g.comm_sizes[i] <= comm_size) row = i;
  }
  std::size_t col = 0;
  for (std::size_t j = 0; j < g.bytes.size(); ++j) {
    if (g.bytes[j] <= bytes) col = j;
  }
  return {row, col};
}

int row_max(const tools::GridSpec& g, std::size_t row) {
  return row + 1 < g.comm_sizes.size() ? g.comm_sizes[row + 1] - 1 : 0;
}

template <class T>
std::vector<std::int64_t> as_int64(const std::vector<T>& v) {
  return {v.begin(), v.end()};
}

// Every probe of every grid selects, in the MPICH file, what the export's mapping gives for the
// cell it belongs to; native cells select what the base selects.
void expect_mpich_file_matches(const std::vector<ex::CollectiveGrid>& grids,
                               const ex::MpichBase& base) {
  const ex::ExportText out = ex::to_mpich_json(grids, base);
  ASSERT_TRUE(out.error.empty()) << out.error;
  EXPECT_NE(out.text.size() % 4096, 0u) << "MPICH needs a NUL after the text in its mapping";
  const Json file = Json::parse(out.text);
  const Json original = Json::parse(base.json);
  check_structure(file, "");
  for (const ex::CollectiveGrid& g : grids) {
    for (const std::int64_t p : probes(as_int64(g.grid.comm_sizes), 1)) {
      for (const std::int64_t b : probes(as_int64(g.grid.bytes), 0)) {
        const Query q{g.coll, static_cast<int>(p), static_cast<std::uint64_t>(b)};
        const auto [row, col] = owner(g.grid, p, q.bytes);
        const GridCell& cell = g.cells[row * g.grid.bytes.size() + col];
        const auto got = select(file, q);
        ASSERT_TRUE(got.has_value()) << collective_name(g.coll) << " P=" << p << " m=" << b;
        const auto want = cell.algorithm == kNativeName
                              ? select(original, q)
                              : std::optional(ex::mpich_algorithm(cell, row_max(g.grid, row),
                                                                  base.tree_algorithms));
        ASSERT_TRUE(want.has_value());
        EXPECT_EQ(got->name, want->name) << collective_name(g.coll) << " P=" << p << " m=" << b
                                         << " cell " << cell.algorithm;
        EXPECT_EQ(got->params, want->params) << collective_name(g.coll) << " P=" << p;
      }
    }
  }
}

void expect_ompi_file_matches(const std::vector<ex::CollectiveGrid>& grids, int version) {
  const ex::ExportText out = ex::to_ompi_rules(grids, version, {});
  ASSERT_TRUE(out.error.empty()) << out.error;
  const OmpiRules file(out.text);
  EXPECT_EQ(file.version(), version);
  EXPECT_EQ(file.rules().size(), grids.size());
  for (const ex::CollectiveGrid& g : grids) {
    const int id = ex::ompi_collective_id(g.coll);
    for (const std::int64_t p : probes(as_int64(g.grid.comm_sizes), 1)) {
      // Scatter and Alltoall rules are keyed on P x block: between grid sizes the block sizes
      // move with P, so only grid sizes are exact there (docs/TOOLS.md, "Limits").
      const auto& sizes = g.grid.comm_sizes;
      if (g.coll != Collective::bcast && std::find(sizes.begin(), sizes.end(), p) == sizes.end()) {
        continue;
      }
      for (const std::int64_t b : probes(as_int64(g.grid.bytes), 0)) {
        const auto bytes = static_cast<std::uint64_t>(b);
        const auto [row, col] = owner(g.grid, p, bytes);
        const GridCell& cell = g.cells[row * g.grid.bytes.size() + col];
        const auto got =
            file.lookup(id, static_cast<int>(p), ex::ompi_message_size(g.coll, p, bytes));
        ASSERT_TRUE(got.has_value());
        ex::OmpiRule want = ex::ompi_rule(cell, row_max(g.grid, row));
        const ex::Mapping* m = ex::find_mapping(cell.algorithm);
        const bool window_written = version == 2 && m != nullptr && m->ompi_max_requests;
        if (!window_written) want.max_requests = 0;
        EXPECT_EQ(got->has_max_requests, window_written) << cell.algorithm;
        EXPECT_EQ(got->rule, want) << collective_name(g.coll) << " P=" << p << " m=" << b
                                   << " cell " << cell.algorithm;
      }
    }
  }
}

// ---- the mapping table ------------------------------------------------------------------------

TEST(ExportMapping, EveryRegisteredAlgorithmHasARowInRegistryOrder) {
  std::vector<std::string_view> registered;
  for (Collective c : kCollectives) {
    for (const AlgorithmView& a : catalog(c)) registered.push_back(a.name);
  }
  std::vector<std::string_view> mapped;
  for (const ex::Mapping& m : ex::mappings()) mapped.push_back(m.algorithm);
  EXPECT_EQ(mapped, registered);
}

TEST(ExportMapping, AnAlgorithmWithoutAnEquivalentSaysWhy) {
  for (const ex::Mapping& m : ex::mappings()) {
    // An algorithm of a collective maps to an algorithm of the same collective.
    const std::string_view coll = m.algorithm.substr(0, m.algorithm.find('.'));
    std::string prefix = "MPIR_" + std::string(coll) + "_intra_";
    prefix[5] = static_cast<char>(std::toupper(prefix[5]));
    EXPECT_TRUE(m.mpich.starts_with(prefix)) << m.algorithm;
    EXPECT_TRUE(m.mpich40.starts_with(prefix)) << m.algorithm;
    // Every MPICH 4.0 stand-in that is not the same tree is explained.
    if (m.mpich40 != m.mpich) {
      EXPECT_FALSE(m.mpich40_why.empty()) << m.algorithm;
    }
    EXPECT_GT(m.ompi_algorithm, 0) << m.algorithm;
  }
}

TEST(ExportMapping, TreesAndTheirParameters) {
  GridCell cell;
  cell.bytes = 1 << 20;
  cell.params.segment_bytes = 8192;
  // MPICH's pipelined chain; it pre-posts its receives in the non-blocking variant only.
  const auto pipelined_chain = [](std::string preposted) {
    return ex::MpichAlgorithm{"MPIR_Bcast_intra_pipelined_tree",
                              {{"is_non_blocking", preposted},
                               {"tree_type", "kary"},
                               {"k", "1"},
                               {"chunk_size", "8192"},
                               {"recv_pre_posted", preposted}}};
  };
  cell.algorithm = "bcast.chain_preposted";
  EXPECT_EQ(ex::mpich_algorithm(cell, 15, true), pipelined_chain("1"));
  EXPECT_EQ(ex::ompi_rule(cell, 15), (ex::OmpiRule{3, 0, 8192, 0}));
  cell.algorithm = "bcast.chain_segmented";
  EXPECT_EQ(ex::mpich_algorithm(cell, 15, true), pipelined_chain("0"));
  EXPECT_EQ(ex::mpich_algorithm(cell, 15, false).name,
            "MPIR_Bcast_intra_scatter_ring_allgather");
  EXPECT_EQ(ex::ompi_rule(cell, 15), (ex::OmpiRule{3, 0, 8192, 0}));

  // One segment is no pipeline: MPICH 4.0 keeps its tree.
  cell.params.segment_bytes = cell.bytes;
  EXPECT_EQ(ex::mpich_algorithm(cell, 15, false).name,
            "MPIR_Bcast_intra_binomial");

  // A flat tree reaches the largest communicator of its row; the last row has no bound.
  cell.algorithm = "bcast.flat";
  EXPECT_EQ(ex::mpich_algorithm(cell, 15, true).params[2],
            (std::pair<std::string, std::string>{"k", "14"}));
  EXPECT_EQ(ex::mpich_algorithm(cell, 0, true).params[2].second, "46340");
  EXPECT_EQ(ex::ompi_rule(cell, 15), (ex::OmpiRule{1, 0, 0, 0}));
  cell.algorithm = "bcast.flat_segmented";
  cell.params.segment_bytes = 4096;
  EXPECT_EQ(ex::ompi_rule(cell, 15), (ex::OmpiRule{2, 14, 4096, 0}));
  EXPECT_EQ(ex::ompi_rule(cell, 100).faninout, 32);  // MAXTREEFANOUT
  EXPECT_EQ(ex::ompi_rule(cell, 0).faninout, 32);

  cell.algorithm = "bcast.binomial_segmented";
  EXPECT_EQ(ex::mpich_algorithm(cell, 0, true).params[1].second, "knomial_1");
  cell.algorithm = "bcast.binomial_rendezvous";
  EXPECT_EQ(ex::mpich_algorithm(cell, 0, true),
            (ex::MpichAlgorithm{"MPIR_Bcast_intra_binomial", {}}));

  GridCell a2a;
  a2a.bytes = 4096;
  a2a.algorithm = "alltoall.windowed";
  a2a.params.window = 5;
  EXPECT_EQ(ex::ompi_rule(a2a, 0), (ex::OmpiRule{4, 0, 0, 5}));
  EXPECT_EQ(ex::mpich_algorithm(a2a, 0, true).name,
            "MPIR_Alltoall_intra_scattered");

  GridCell native;
  native.algorithm = std::string(kNativeName);
  EXPECT_EQ(ex::ompi_rule(native, 0), ex::OmpiRule{});
  EXPECT_TRUE(ex::mpich_algorithm(native, 0, true).name.empty());
}

TEST(ExportMapping, OpenMpiMessageSizes) {
  EXPECT_EQ(ex::ompi_message_size(Collective::bcast, 16, 1000), 1000u);
  EXPECT_EQ(ex::ompi_message_size(Collective::scatter, 16, 1000), 16000u);
  EXPECT_EQ(ex::ompi_message_size(Collective::alltoall, 16, 1000), 16000u);
  EXPECT_EQ(ex::ompi_message_size(Collective::alltoall, 16, UINT64_MAX), UINT64_MAX);
}

// ---- MPICH ------------------------------------------------------------------------------------

TEST(ExportMpich, EveryPointOfASyntheticGridSelectsItsCell) {
  expect_mpich_file_matches(synthetic_grids(), test_base(false));
  expect_mpich_file_matches(synthetic_grids(), test_base(true));
}

TEST(ExportMpich, EveryPointOfTheDefaultModelsGridSelectsItsCell) {
  const auto grids = model_grids(tools::default_grid());
  expect_mpich_file_matches(grids, test_base(false));
  expect_mpich_file_matches(grids, test_base(true));
}

TEST(ExportMpich, InPlaceIntercommunicatorsAndOtherCollectivesKeepMpichsRules) {
  const ex::ExportText out = ex::to_mpich_json(synthetic_grids(), test_base(true));
  ASSERT_TRUE(out.error.empty()) << out.error;
  const Json file = Json::parse(out.text);
  const Json base = Json::parse(kBase);
  Query q{Collective::alltoall, 16, 1000};
  q.in_place = true;
  EXPECT_EQ(select(file, q)->name, "MPIR_Alltoall_intra_pairwise_sendrecv_replace");
  for (Collective c : kCollectives) {
    Query inter{c, 16, 1000, false};
    EXPECT_EQ(select(file, inter), select(base, inter)) << collective_name(c);
  }
  // Collectives collsel does not decide are the base's, in the base's order.
  EXPECT_EQ(file["collective=allreduce"], base["collective=allreduce"]);
  std::vector<std::string> keys;
  for (const auto& [key, value] : file.items()) keys.push_back(key);
  EXPECT_EQ(keys, (std::vector<std::string>{"collective=bcast", "collective=allreduce",
                                            "collective=alltoall", "collective=scatter"}));
}

TEST(ExportMpich, NeighbouringEqualDecisionsShareOneBranch) {
  ex::CollectiveGrid g;
  g.coll = Collective::bcast;
  g.grid.comm_sizes = {2, 4, 8};
  g.grid.bytes = {0, 64, 4096};
  for (const int p : g.grid.comm_sizes) {
    for (const std::uint64_t b : g.grid.bytes) {
      g.cells.push_back({p, b, b < 4096 ? "bcast.binomial" : "bcast.chain", {}, 0.0, Rung::default_model});
    }
  }
  const ex::ExportText out = ex::to_mpich_json(std::vector{g}, test_base(true));
  ASSERT_TRUE(out.error.empty()) << out.error;
  const Json tree = Json::parse(out.text)["collective=bcast"]["comm_type=intra"];
  // chain's k = 1 is the same on every row, so the rows merge too.
  EXPECT_EQ(tree.dump(), Json::parse(R"({"comm_size=any": {
      "avg_msg_size<4096": {"algorithm=MPIR_Bcast_intra_binomial": {}},
      "avg_msg_size=any": {"algorithm=MPIR_Bcast_intra_tree":
          {"is_non_blocking=0": {}, "tree_type=kary": {}, "k=1": {}}}}})").dump());
}

TEST(ExportMpich, CommSizeRowsAreWrittenWithLessOrEqual) {
  // MPICH's MPIR_Csel_search reads comm_size<N as <= N: a 4-rank call would take a comm_size<4
  // row, so the row of 2 and 3 ranks is written comm_size<=3.
  ex::CollectiveGrid g;
  g.coll = Collective::bcast;
  g.grid.comm_sizes = {2, 4};
  g.grid.bytes = {0};
  g.cells.push_back({2, 0, "bcast.binomial", {}, 0.0, Rung::default_model});
  g.cells.push_back({4, 0, "bcast.flat", {}, 0.0, Rung::default_model});
  const ex::ExportText out = ex::to_mpich_json(std::vector{g}, test_base(true));
  ASSERT_TRUE(out.error.empty()) << out.error;
  const Json tree = Json::parse(out.text)["collective=bcast"]["comm_type=intra"];
  std::vector<std::string> keys;
  for (const auto& [key, value] : tree.items()) keys.push_back(key);
  EXPECT_EQ(keys, (std::vector<std::string>{"comm_size<=3", "comm_size=any"}));
  EXPECT_EQ(select(Json::parse(out.text), {Collective::bcast, 4, 0})->name,
            select(Json::parse(out.text), {Collective::bcast, 5, 0})->name);
}

TEST(ExportMpich, MessageSizesBeyondAnIntStayWithTheLargestThatFits) {
  ex::CollectiveGrid g;
  g.coll = Collective::bcast;
  g.grid.comm_sizes = {4};
  g.grid.bytes = {0, 1u << 30, 3ull << 30};
  g.cells = {{4, 0, "bcast.binomial", {}, 0.0, Rung::default_model},
             {4, 1u << 30, "bcast.chain", {}, 0.0, Rung::default_model},
             {4, 3ull << 30, "bcast.binary", {}, 0.0, Rung::default_model}};
  const ex::ExportText out = ex::to_mpich_json(std::vector{g}, test_base(true));
  ASSERT_TRUE(out.error.empty()) << out.error;
  EXPECT_EQ(out.notes.size(), 1u);
  const auto got = select(Json::parse(out.text), {Collective::bcast, 4, 3ull << 30});
  EXPECT_EQ(got->params[2].second, "1");  // chain's k: the 1 GiB decision
}

// MPICH aborts on a Scatter size condition (get_avg_msgsize), so a Scatter row never branches on
// size: against a base whose own Scatter rule is another algorithm, a row mixing native and
// collsel's decisions keeps the decision of most of its sizes, and says so.
TEST(ExportMpich, ScatterRowsNeverBranchOnSize) {
  ex::CollectiveGrid g;
  g.coll = Collective::scatter;
  g.grid.comm_sizes = {4};
  g.grid.bytes = {0, 64, 4096};
  g.cells = {{4, 0, std::string(kNativeName), {}, 0.0, Rung::native},
             {4, 64, "scatter.binomial", {}, 0.0, Rung::default_model},
             {4, 4096, "scatter.flat", {}, 0.0, Rung::default_model}};
  const ex::MpichBase base{
      R"({"collective=scatter": {"comm_type=intra": {"algorithm=MPIR_Scatter_allcomm_nb": {}}}})",
      false, "nb base"};
  const ex::ExportText out = ex::to_mpich_json(std::vector{g}, base);
  ASSERT_TRUE(out.error.empty()) << out.error;
  ASSERT_EQ(out.notes.size(), 2u);  // scatter.flat's fallback, and the collapsed row
  EXPECT_NE(out.notes[1].find("64 bytes and up"), std::string::npos) << out.notes[1];
  const Json file = Json::parse(out.text);
  EXPECT_EQ(out.text.find("avg_msg_size<"), std::string::npos);
  for (const std::uint64_t b : {0, 64, 100000}) {
    EXPECT_EQ(select(file, {Collective::scatter, 4, b})->name, "MPIR_Scatter_intra_binomial");
  }
}

TEST(ExportMpich, NotesNameEachFallbackOnce) {
  const ex::ExportText out = ex::to_mpich_json(synthetic_grids(), test_base(false));
  ASSERT_TRUE(out.error.empty());
  const auto has = [&](std::string_view s) {
    return std::any_of(out.notes.begin(), out.notes.end(),
                       [&](const std::string& n) { return n.find(s) != std::string::npos; });
  };
  EXPECT_TRUE(has("bcast.flat -> MPIR_Bcast_intra_binomial"));
  EXPECT_TRUE(has("alltoall.windowed -> MPIR_Alltoall_intra_scattered"));
  EXPECT_FALSE(has("bcast.binomial ->"));  // the same algorithm needs no note
  std::vector<std::string> sorted = out.notes;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(std::adjacent_find(sorted.begin(), sorted.end()), sorted.end());
}

TEST(ExportMpich, UnusableInputsAreErrors) {
  EXPECT_FALSE(ex::to_mpich_json(synthetic_grids(), {"[1, 2]", false, "x.json"}).error.empty());
  auto bad = synthetic_grids();
  bad[0].grid.comm_sizes = {5, 3, 7, 16, 33};
  EXPECT_NE(ex::to_mpich_json(bad, test_base(false)).error.find("ascending"), std::string::npos);
  // A native decision needs the base's rules for that collective.
  const ex::MpichBase no_bcast{R"({"collective=scatter": {"algorithm=MPIR_Scatter_intra_binomial": {}}})",
                               false, "small"};
  EXPECT_NE(ex::to_mpich_json(synthetic_grids(), no_bcast).error.find("bcast"), std::string::npos);
  std::string error;
  EXPECT_FALSE(ex::mpich_base_from_json(R"({"comm_type=intra": {}})", "x", error));
  EXPECT_NE(error.find("collective=NAME"), std::string::npos);
}

TEST(ExportMpich, TheBaseOfALibraryIsItsMpirSelection) {
  // A library holds the POSIX and ch4 selections too; only the MPIR one names MPIR_ algorithms
  // alone.
  std::string bytes("\x7f" "ELF garbage");
  bytes += '\0';
  bytes += R"({"collective=bcast":{"comm_type=intra":{"algorithm=MPIDI_POSIX_mpi_bcast_release_gather":{}}}})";
  bytes += '\0';
  bytes += R"({"collective=bcast":{"comm_type=intra":{"composition=MPIDI_Bcast_intra_composition_alpha":{}}}})";
  bytes += '\0';
  const std::string mpir = R"({"collective=bcast":{"comm_type=intra":{"algorithm=MPIR_Bcast_intra_binomial":{}}}})";
  bytes += mpir;
  bytes += '\0';
  std::string error;
  auto base = ex::mpich_base_from_library(bytes, "lib", error);
  ASSERT_TRUE(base) << error;
  EXPECT_EQ(base->json, mpir);
  EXPECT_FALSE(base->tree_algorithms);
  base = ex::mpich_base_from_library(bytes + "MPIR_Bcast_intra_tree" + '\0' +
                                         "MPIR_Bcast_intra_pipelined_tree",
                                     "lib", error);
  ASSERT_TRUE(base) << error;
  EXPECT_TRUE(base->tree_algorithms);
  EXPECT_FALSE(ex::mpich_base_from_library("no json here", "lib", error));
  EXPECT_FALSE(error.empty());
}

// The MPICH collsel is built against: its built-in selection is found, and every algorithm the
// export can write for it is one it knows (its container parser names them).
TEST(ExportMpich, TheInstalledLibraryKnowsEveryAlgorithmWritten) {
  const std::string path = COLLSEL_MPICH_LIBRARY;
  if (path.empty() || !std::filesystem::exists(path)) GTEST_SKIP() << "no MPICH library found";
  std::ifstream in(path, std::ios::binary);
  const std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  std::string error;
  const auto base = ex::mpich_base_from_library(bytes, path, error);
  ASSERT_TRUE(base) << error;
  for (const ex::Mapping& m : ex::mappings()) {
    const std::string_view name = base->tree_algorithms ? m.mpich : m.mpich40;
    EXPECT_NE(bytes.find(name), std::string::npos) << name;
    if (!m.mpich40_pipelined.empty() && !base->tree_algorithms) {
      EXPECT_NE(bytes.find(m.mpich40_pipelined), std::string::npos) << m.mpich40_pipelined;
    }
  }
  expect_mpich_file_matches(model_grids(tools::default_grid()), *base);
}

// ---- Open MPI ---------------------------------------------------------------------------------

TEST(ExportOmpi, EveryPointOfASyntheticGridSelectsItsCell) {
  expect_ompi_file_matches(synthetic_grids(), 1);
  expect_ompi_file_matches(synthetic_grids(), 2);
}

TEST(ExportOmpi, EveryPointOfTheDefaultModelsGridSelectsItsCell) {
  expect_ompi_file_matches(model_grids(tools::default_grid()), 1);
  expect_ompi_file_matches(model_grids(tools::default_grid()), 2);
}

TEST(ExportOmpi, VersionLineOnlyInVersionTwoAndCommentsStayComments) {
  const std::vector<std::string> description = {"model \"a\nb 42\"", "second line 7"};
  const ex::ExportText v1 = ex::to_ompi_rules(synthetic_grids(), 1, description);
  const ex::ExportText v2 = ex::to_ompi_rules(synthetic_grids(), 2, description);
  EXPECT_TRUE(v1.text.starts_with("# model \"a b 42\"\n"));
  EXPECT_TRUE(v2.text.starts_with("rule-file-version-2\n# model"));
  // The version-1 reader would take the digits of a version line for the collective count.
  EXPECT_EQ(v1.text.find("rule-file-version"), std::string::npos);
  EXPECT_EQ(OmpiRules(v1.text).rules().size(), 3u);
  EXPECT_TRUE(std::any_of(v1.notes.begin(), v1.notes.end(), [](const std::string& n) {
    return n.find("--ompi-rules-version 2") != std::string::npos;
  }));
  EXPECT_FALSE(ex::to_ompi_rules(synthetic_grids(), 3, {}).error.empty());
}

TEST(ExportOmpi, NativeIsOpenMpisFixedDecision) {
  const OmpiRules file(ex::to_ompi_rules(synthetic_grids(), 1, {}).text);
  const ex::CollectiveGrid g = synthetic_grid(Collective::scatter);
  for (std::size_t i = 0; i < g.cells.size(); ++i) {
    if (g.cells[i].algorithm != kNativeName) continue;
    const GridCell& c = g.cells[i];
    const auto got = file.lookup(15, c.comm_size,
                                 ex::ompi_message_size(Collective::scatter, c.comm_size, c.bytes));
    EXPECT_EQ(got->rule.algorithm, 0);
  }
}

// ---- the command ------------------------------------------------------------------------------

TEST(ExportCommand, ForcedAlgorithmFillsEveryCellOfBothFormats) {
  const TempDir tmp("export");
  const std::string config = (tmp.path() / "force.toml").string();
  std::ofstream(config) << "[override]\nbcast = \"bcast.binary\"\nalltoall = \"alltoall.bruck\"\n";
  const std::string rules = (tmp.path() / "out.rules").string();
  CommandResult r = run_collsel({"export", "--format", "ompi-rules", "--config", config,
                                 "--collective", "bcast,alltoall", "--ranks", "7,3",
                                 "--sizes", "0,1k,4k", "-o", rules});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.out.empty());
  EXPECT_NE(r.err.find("coll_tuned_dynamic_rules_filename " + rules), std::string::npos) << r.err;
  std::ifstream in(rules);
  const OmpiRules file(std::string{std::istreambuf_iterator<char>(in), {}});
  EXPECT_EQ(file.rules().size(), 2u);
  for (const int p : {1, 3, 5, 7, 100}) {
    for (const std::uint64_t m : {0, 1, 1023, 1024, 5000}) {
      EXPECT_EQ(file.lookup(7, p, m)->rule.algorithm, 5);
      EXPECT_EQ(file.lookup(3, p, m * p)->rule.algorithm, 3);
    }
  }

  r = run_collsel({"export", "--format", "mpich-json", "--config", config, "--collective",
                   "bcast", "--ranks", "4", "--sizes", "0,64k"});
  if (std::string(COLLSEL_MPICH_LIBRARY).empty()) GTEST_SKIP() << "no MPICH library found";
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Json doc = Json::parse(r.out);
  EXPECT_TRUE(doc.contains("collective=allreduce"));  // the library's own rules come along
  EXPECT_EQ(select(doc, {Collective::bcast, 4, 70000})->name.starts_with("MPIR_Bcast_intra_"),
            true);
}

TEST(ExportCommand, BadArgumentsAndUnusableInputs) {
  EXPECT_EQ(run_collsel({"export"}).exit_code, 2);  // --format is required
  EXPECT_EQ(run_collsel({"export", "--format", "csv"}).exit_code, 2);
  EXPECT_EQ(run_collsel({"export", "--format", "ompi-rules", "--ranks", "0"}).exit_code, 2);
  EXPECT_EQ(run_collsel({"export", "--format", "ompi-rules", "--sizes", "1.5M"}).exit_code, 2);
  EXPECT_EQ(run_collsel({"export", "--format", "ompi-rules", "--collective", "gather"}).exit_code,
            2);
  EXPECT_EQ(run_collsel({"export", "--format", "ompi-rules", "--mpich-base", "x"}).exit_code, 2);
  EXPECT_EQ(run_collsel({"export", "--format", "ompi-rules", "--ompi-rules-version", "3"})
                .exit_code,
            2);
  const CommandResult no_model =
      run_collsel({"export", "--format", "ompi-rules", "--model", "/nonexistent/model.toml"});
  EXPECT_EQ(no_model.exit_code, 1);
  const CommandResult no_base = run_collsel(
      {"export", "--format", "mpich-json", "--mpich-base", "/nonexistent/libmpich.so"});
  EXPECT_EQ(no_base.exit_code, 1);
  EXPECT_NE(no_base.err.find("/nonexistent/libmpich.so"), std::string::npos);
  const TempDir tmp("export-bad");
  const std::string not_mpich = (tmp.path() / "libfoo.so").string();
  std::ofstream(not_mpich) << "\x7f" "ELF nothing useful";
  const CommandResult wrong_base =
      run_collsel({"export", "--format", "mpich-json", "--mpich-base", not_mpich});
  EXPECT_EQ(wrong_base.exit_code, 1);
  EXPECT_NE(wrong_base.err.find("MPIR-level collective selection"), std::string::npos);
}

}  // namespace
}  // namespace collsel::testing
