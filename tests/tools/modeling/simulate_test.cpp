// `collsel simulate` as users run it: GRAPH files whose completion times are computed by hand
// under the fair and InfiniBand rules, malformed files, and algorithm mode checked against the
// library's own simulation of the same schedule.
#include <cmath>
#include <cstdint>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "command.hpp"
#include "conf/embedded.hpp"
#include "models/contention/schedule.hpp"
#include "models/model_file.hpp"
#include "selector/catalog.hpp"
#include "temp_dir.hpp"

namespace collsel::testing {
namespace {

using nlohmann::json;
namespace mc = models::contention;

std::string write_file(const TempDir& dir, const std::string& name, const std::string& text) {
  const std::string path = (dir.path() / name).string();
  std::ofstream(path) << text;
  return path;
}

// The "NAME SECONDS" lines after the step table (after its last blank line).
std::map<std::string, double> completions(const std::string& out) {
  const std::size_t blank = out.rfind("\n\n");
  std::map<std::string, double> times;
  std::istringstream in(out.substr(blank == std::string::npos ? 0 : blank + 2));
  std::string name;
  double seconds = 0.0;
  while (in >> name >> seconds) times[name] = seconds;
  return times;
}

::testing::AssertionResult near(double actual, double expected) {
  if (std::fabs(actual - expected) <= 1e-9 * std::fabs(expected)) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << "got " << actual << " s, expected " << expected << " s";
}

// Seed 003 Fig. 2, third graph, every communication 20 MiB, all starting at 0.
const std::string kFig2Graph3 =
    "# seed 003 Fig. 2, graph 3\n"
    "ab a b 20MiB\n"
    "ac a c 20MiB\n"
    "ad a d 20MiB   # node a sends three\n"
    "db d b 20MiB\n"
    "dc d c 20MiB\n";
constexpr double kBandwidth = 1.82e9;  // seed 003 section 5
constexpr double kAlphaM = 20.0 * 1048576 / kBandwidth;  // one 20 MiB transfer alone

TEST(SimulateGraph, FairRuleByHand) {
  // rho = max(outdegree(src), indegree(dst)): a's edges 3, d's edges 2. d's finish at 2 alpha m,
  // when a's have moved 2/3 of m; alone then (rho 3) the last third takes alpha m: 3 alpha m.
  const TempDir dir("simulate");
  const CommandResult r = run_collsel({"simulate", write_file(dir, "g.txt", kFig2Graph3),
                                       "--rule", "fair", "--bandwidth", "1.82e9"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto t = completions(r.out);
  ASSERT_EQ(t.size(), 5u) << r.out;
  for (const char* n : {"ab", "ac", "ad"}) EXPECT_TRUE(near(t.at(n), 3 * kAlphaM)) << n;
  for (const char* n : {"db", "dc"}) EXPECT_TRUE(near(t.at(n), 2 * kAlphaM)) << n;
}

TEST(SimulateGraph, InfinibandRuleByHand) {
  // Seed 003 eq. 4 on this graph: a's edges 4, d's edges 8/3 (the paper's 2.66). d's finish at
  // 8/3 alpha m, a's have moved 2/3 of m; then Fig. 2's first graph, rho 3: + alpha m.
  const TempDir dir("simulate");
  const CommandResult r = run_collsel({"simulate", write_file(dir, "g.txt", kFig2Graph3),
                                       "--rule", "infiniband", "--bandwidth", "1.82e9"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto t = completions(r.out);
  for (const char* n : {"ab", "ac", "ad"}) EXPECT_TRUE(near(t.at(n), 11.0 / 3 * kAlphaM)) << n;
  for (const char* n : {"db", "dc"}) EXPECT_TRUE(near(t.at(n), 8.0 / 3 * kAlphaM)) << n;
  // Fig. 3's columns, every communication in every step.
  EXPECT_NE(r.out.find("step  com  penalty  data remaining [bytes]"), std::string::npos) << r.out;
}

TEST(SimulateGraph, JsonHasFig3sRowsWithFinishedOnesMarked) {
  const TempDir dir("simulate");
  const CommandResult r =
      run_collsel({"simulate", write_file(dir, "g.txt", kFig2Graph3), "--rule", "infiniband",
                   "--bandwidth", "1.82e9", "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json doc = json::parse(r.out);
  EXPECT_EQ(doc["rule"], "infiniband");
  EXPECT_DOUBLE_EQ(doc["alpha_s_per_byte"].get<double>(), 1.0 / kBandwidth);
  ASSERT_EQ(doc["steps"].size(), 2u);
  const json& first = doc["steps"][0]["rows"];
  const json& second = doc["steps"][1]["rows"];
  ASSERT_EQ(first.size(), 5u);
  ASSERT_EQ(second.size(), 5u);
  EXPECT_NEAR(first[0]["penalty"].get<double>(), 4.0, 1e-12);
  EXPECT_NEAR(first[3]["penalty"].get<double>(), 8.0 / 3, 1e-12);
  EXPECT_NEAR(first[0]["bytes_remaining"].get<double>(), 20.0 * 1048576 / 3, 1e-3);
  EXPECT_NEAR(second[0]["penalty"].get<double>(), 3.0, 1e-12);
  EXPECT_EQ(second[3]["com"], "db");
  EXPECT_EQ(second[3]["state"], "done");
  EXPECT_TRUE(near(second[3]["time_s"].get<double>(), 8.0 / 3 * kAlphaM));
}

TEST(SimulateGraph, LateStartsSplitTheSteps) {
  // 1e9 B/s. x alone for 0.5 ms (half its bytes); then y joins from the same node (rho 2):
  // x's other half takes 1 ms (done at 1.5 ms), y's second half alone 0.5 ms (done at 2 ms).
  const TempDir dir("simulate");
  const CommandResult r = run_collsel(
      {"simulate", write_file(dir, "g.txt", "x n0 n1 1000000\ny n0 n2 1e6 0.5e-3\n"),
       "--bandwidth", "1e9"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto t = completions(r.out);
  EXPECT_TRUE(near(t.at("x"), 1.5e-3));
  EXPECT_TRUE(near(t.at("y"), 2.0e-3));
}

TEST(SimulateGraph, MalformedLinesNameTheFileTheLineAndTheFix) {
  const TempDir dir("simulate");
  const std::string path = write_file(dir, "bad.txt",
                                      "ok a b 1k\n"
                                      "# comment\n"
                                      "ok a c 1k\n"
                                      "self a a 1k\n"
                                      "big a b 1.5x\n"
                                      "late a b 1k -2\n"
                                      "short a b\n");
  const CommandResult r = run_collsel({"simulate", path, "--bandwidth", "1e9"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_NE(r.err.find(path + ":3: the name 'ok' is used on line 1 already"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find(path + ":4: 'self' sends to its own node 'a'"), std::string::npos);
  EXPECT_NE(r.err.find(path + ":5: BYTES '1.5x' is not a size; write a whole number"),
            std::string::npos);
  EXPECT_NE(r.err.find(path + ":6: START_SECONDS '-2' is not a number >= 0"), std::string::npos);
  EXPECT_NE(r.err.find(path + ":7: expected 4 or 5 fields, found 3; write one communication per "
                              "line: NAME SRC DST BYTES [START_SECONDS]"),
            std::string::npos);
}

TEST(SimulateGraph, UsageErrorsExitWith2) {
  const TempDir dir("simulate");
  const std::string graph = write_file(dir, "g.txt", kFig2Graph3);
  const std::vector<std::vector<std::string>> bad{
      {"simulate", graph},                                        // no --bandwidth
      {"simulate", graph, "--bandwidth", "0"},                    // not > 0
      {"simulate", graph, "--bandwidth", "1e9", "--rule", "ib"},  // unknown rule
      {"simulate", graph, "--bandwidth", "1e9", "-P", "4"},       // algorithm mode only
      {"simulate"},                                               // neither mode
      {"simulate", (dir.path() / "missing.txt").string(), "--bandwidth", "1e9"},
      {"simulate", write_file(dir, "empty.txt", "# nothing\n\n"), "--bandwidth", "1e9"},
  };
  for (const auto& args : bad) {
    const CommandResult r = run_collsel(args);
    EXPECT_EQ(r.exit_code, 2) << ::testing::PrintToString(args) << "\n" << r.err;
    EXPECT_FALSE(r.err.empty());
  }
}

// ---- --penalties: seed 003 Fig. 3 replayed with the CLI alone ----------------------------------

// Fig. 3's graph (the reconstruction of docs/MODELS.md: a, b, c from s1; d, e from s2; f from s3),
// 20 MB = 20 MiB each (the printed numbers need it), all at 0.
const std::string kFig3Graph =
    "a s1 x 20MiB\nb s1 y 20MiB\nc s1 z 20MiB\nd s2 x 20MiB\ne s2 w 20MiB\nf s3 w 20MiB\n";
// The printed penalties per step; the printed 3.33 and 2.33 are 10/3 and 7/3.
const std::string kFig3Penalties =
    "# seed 003 Fig. 3\n"
    "a=3.5 b=3.5 c=3.5 d=10/3 e=10/3 f=1.5\n"
    "a=3.5 b=3.5 c=3.5 d=7/3 e=7/3   # f is done\n"
    "a=3 b=3 c=3.0\n";
// Section 5's alpha = 5.105e-10 s/byte, given as its bandwidth.
const std::string kFig3Bandwidth = [] {
  std::ostringstream out;
  out.precision(17);
  out << 1.0 / 5.105e-10;
  return out.str();
}();

::testing::AssertionResult printed(double actual, double printed_value) {
  // The paper prints 6 significant digits.
  if (std::fabs(actual - printed_value) <= 5e-6 * printed_value) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << "got " << actual << ", printed " << printed_value;
}

TEST(SimulatePenalties, ReplaysSeed003Fig3) {
  const TempDir dir("simulate");
  const CommandResult r = run_collsel(
      {"simulate", write_file(dir, "fig3.txt", kFig3Graph), "--penalties",
       write_file(dir, "fig3-penalties.txt", kFig3Penalties), "--bandwidth", kFig3Bandwidth});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto t = completions(r.out);
  ASSERT_EQ(t.size(), 6u) << r.out;
  // "The first communication to end is communication f after a time of 0.016059 seconds ...
  // The second step ends when communications d and e terminate at time 0.0297984 ... The last
  // step ends at time 0.0363749."
  EXPECT_TRUE(printed(t.at("f"), 0.0160590));
  for (const char* n : {"d", "e"}) EXPECT_TRUE(printed(t.at(n), 0.0297984)) << n;
  for (const char* n : {"a", "b", "c"}) EXPECT_TRUE(printed(t.at(n), 0.0363749)) << n;
  EXPECT_NE(r.out.find("penalties from"), std::string::npos) << r.out;

  const CommandResult j = run_collsel(
      {"simulate", write_file(dir, "fig3.txt", kFig3Graph), "--penalties",
       (dir.path() / "fig3-penalties.txt").string(), "--bandwidth", kFig3Bandwidth, "--format",
       "json"});
  ASSERT_EQ(j.exit_code, 0) << j.err;
  const json doc = json::parse(j.out);
  EXPECT_EQ(doc["rule"], "given");
  ASSERT_EQ(doc["steps"].size(), 3u);
  // "During that time the communications a, b and c have sent 8987820 bytes": 11983700 left.
  EXPECT_NEAR(doc["steps"][0]["rows"][0]["bytes_remaining"].get<double>(), 11983700, 100);
  EXPECT_NEAR(doc["steps"][1]["rows"][0]["bytes_remaining"].get<double>(), 4294170, 100);
  EXPECT_NEAR(doc["steps"][0]["rows"][3]["penalty"].get<double>(), 10.0 / 3, 1e-12);
}

TEST(SimulatePenalties, AStepThatDoesNotMatchTheGraphIsNamedWithItsLine) {
  const TempDir dir("simulate");
  const std::string graph = write_file(dir, "fig3.txt", kFig3Graph);
  const auto run = [&](const std::string& penalties) {
    return run_collsel({"simulate", graph, "--penalties",
                        write_file(dir, "p.txt", penalties), "--bandwidth", kFig3Bandwidth});
  };
  // Step 2 still lists f, which finished in step 1.
  const CommandResult stale = run("a=3.5 b=3.5 c=3.5 d=10/3 e=10/3 f=1.5\n"
                                  "a=3.5 b=3.5 c=3.5 d=7/3 e=7/3 f=1\na=3 b=3 c=3\n");
  EXPECT_EQ(stale.exit_code, 2);
  EXPECT_NE(stale.err.find("p.txt:2: step 2 of the graph holds 5 communication(s)"),
            std::string::npos) << stale.err;
  // Too few steps, too many, a name the graph lacks, a penalty below 1.
  const CommandResult short_file = run("a=3.5 b=3.5 c=3.5 d=10/3 e=10/3 f=1.5\n");
  EXPECT_EQ(short_file.exit_code, 2);
  EXPECT_NE(short_file.err.find("the graph has a step 2"), std::string::npos) << short_file.err;
  const CommandResult long_file = run(kFig3Penalties + "a=1\n");
  EXPECT_EQ(long_file.exit_code, 2);
  EXPECT_NE(long_file.err.find("the file gives 4 steps, the graph has 3"), std::string::npos)
      << long_file.err;
  const CommandResult unknown = run("a=3.5 b=3.5 c=3.5 d=10/3 e=10/3 g=1.5\n");
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("p.txt:1: 'g' is not a communication of the graph"),
            std::string::npos) << unknown.err;
  const CommandResult below = run("a=0.5\n");
  EXPECT_EQ(below.exit_code, 2);
  EXPECT_NE(below.err.find("p.txt:1: 'a=0.5' is not NAME=PENALTY"), std::string::npos)
      << below.err;
  // A rule and given penalties contradict each other.
  EXPECT_EQ(run_collsel({"simulate", graph, "--penalties", (dir.path() / "p.txt").string(),
                         "--bandwidth", "1e9", "--rule", "fair"})
                .exit_code,
            2);
}

// ---- algorithm mode --------------------------------------------------------------------------

// What the CLI should have computed: the registered schedule with the closed form's parameters,
// the embedded model's pLogP, the fair rule, alpha = g(M) / M at the table's largest size M.
double expected_completion(const std::string& name, int ranks, std::uint64_t bytes,
                           const mc::Placement& placement) {
  const models::ModelLoad load =
      models::parse_model(conf::embedded_default_model(), conf::kEmbeddedModelName);
  const models::ModelFile& m = *load.model;
  const AlgorithmView* view = find_algorithm(Collective::bcast, name);
  const CallShape shape{Collective::bcast, ranks, bytes, 0};
  const Prediction closed = view->model(m, shape, Policy{});
  mc::Params network;
  network.rule = mc::RuleKind::fair;
  const auto& largest = m.plogp.table.back();
  network.alpha_s_per_byte = largest.gap_s / static_cast<double>(largest.bytes);
  return mc::simulate(view->schedule(shape, closed.params), placement, network, m.plogp)
      .completion_s;
}

TEST(SimulateAlgorithm, BinomialBroadcastOnEightRanksPerNode) {
  const CommandResult r =
      run_collsel({"simulate", "--algorithm", "bcast.binomial", "-P", "64", "-m", "1MiB",
                   "--ranks-per-node", "8", "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json doc = json::parse(r.out);
  EXPECT_EQ(doc["messages"], 63);  // a broadcast tree: one message per non-root rank
  EXPECT_EQ(doc["placement"]["kind"], "filled");
  EXPECT_EQ(doc["placement"]["nodes"], 8);
  EXPECT_EQ(doc["placement"]["max_ranks_per_node"], 8);
  EXPECT_EQ(doc["network"]["rule"], "fair");
  EXPECT_EQ(doc["network"]["intra_source"], "default copy rate");
  const double expected =
      expected_completion("bcast.binomial", 64, 1 << 20,
                          mc::make_placement(mc::PlacementKind::filled, 64, 8));
  EXPECT_TRUE(near(doc["completion_s"].get<double>(), expected));
  EXPECT_GT(doc["closed_form_s"].get<double>(), 0.0);
  // Fewer messages cross the network than ranks: the ranks of a node share it.
  EXPECT_LT(doc["inter_node_messages"].get<int>(), 63);
}

TEST(SimulateAlgorithm, ThePlacementAndTheBandwidthReachTheSimulation) {
  const auto run = [](std::vector<std::string> extra) {
    std::vector<std::string> args{"simulate", "--algorithm", "bcast.binomial", "-P", "16", "-m",
                                  "256k", "--ranks-per-node", "4", "--format", "json"};
    args.insert(args.end(), extra.begin(), extra.end());
    const CommandResult r = run_collsel(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return json::parse(r.out);
  };
  const json rr = run({"--placement", "round-robin"});
  EXPECT_TRUE(near(rr["completion_s"].get<double>(),
                   expected_completion("bcast.binomial", 16, 256 << 10,
                                       mc::make_placement(mc::PlacementKind::round_robin, 16,
                                                          4))));
  const json filled = run({});
  EXPECT_NE(rr["completion_s"].get<double>(), filled["completion_s"].get<double>());

  const json slow = run({"--bandwidth", "1e8"});
  EXPECT_DOUBLE_EQ(slow["network"]["alpha_s_per_byte"].get<double>(), 1e-8);
  EXPECT_EQ(slow["network"]["alpha_source"], "--bandwidth");
  EXPECT_GT(slow["completion_s"].get<double>(), filled["completion_s"].get<double>());

  const json random = run({"--placement", "random", "--seed", "5"});
  EXPECT_EQ(random, run({"--placement", "random", "--seed", "5"}));
}

TEST(SimulateAlgorithm, TheModelsContentionSectionIsUsedUnlessOverridden) {
  const TempDir dir("simulate");
  const std::string model =
      write_file(dir, "m.toml",
                 std::string(conf::embedded_default_model()) +
                     "\n[contention]\nrule = \"infiniband\"\nalpha_s_per_byte = 2e-9\n"
                     "intra_alpha_s_per_byte = 1e-10\n");
  const auto run = [&](std::vector<std::string> extra) {
    std::vector<std::string> args{"simulate", "--algorithm", "bcast.binomial", "-P", "16", "-m",
                                  "64k", "--ranks-per-node", "4", "--model", model, "--format",
                                  "json"};
    args.insert(args.end(), extra.begin(), extra.end());
    const CommandResult r = run_collsel(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return json::parse(r.out);
  };
  const json section = run({});
  EXPECT_EQ(section["network"]["rule"], "infiniband");
  EXPECT_EQ(section["network"]["rule_source"], "the model's [contention] section");
  EXPECT_DOUBLE_EQ(section["network"]["alpha_s_per_byte"].get<double>(), 2e-9);
  EXPECT_DOUBLE_EQ(section["network"]["intra_alpha_s_per_byte"].get<double>(), 1e-10);
  const json overridden = run({"--rule", "gige", "--bandwidth", "1e9"});
  EXPECT_EQ(overridden["network"]["rule"], "gige");
  EXPECT_EQ(overridden["network"]["rule_source"], "--rule");
  EXPECT_DOUBLE_EQ(overridden["network"]["alpha_s_per_byte"].get<double>(), 1e-9);
}

TEST(SimulateAlgorithm, TextNamesTheTimesAndTheSteps) {
  const CommandResult r =
      run_collsel({"simulate", "--algorithm", "bcast.binomial", "-P", "8", "-m", "64k",
                   "--ranks-per-node", "2", "--steps"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\nsimulated:   "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\nclosed form: "), std::string::npos);
  EXPECT_NE(r.out.find("step  com"), std::string::npos);
}

TEST(SimulateAlgorithm, BadArgumentsExitWith2) {
  const std::vector<std::vector<std::string>> bad{
      {"simulate", "--algorithm", "bcast.binomal", "-P", "8", "-m", "1k"},
      {"simulate", "--algorithm", "bcast.binomial", "-P", "8"},
      {"simulate", "--algorithm", "bcast.binomial", "-P", "8", "-m", "1k", "--root", "8"},
      {"simulate", "--algorithm", "bcast.binomial", "-P", "8", "-m", "1k", "--placement",
       "one-per-node", "--ranks-per-node", "2"},
  };
  for (const auto& args : bad) {
    const CommandResult r = run_collsel(args);
    EXPECT_EQ(r.exit_code, 2) << ::testing::PrintToString(args) << "\n" << r.err;
  }
  const CommandResult unknown =
      run_collsel({"simulate", "--algorithm", "bcast.binomal", "-P", "8", "-m", "1k"});
  EXPECT_NE(unknown.err.find("valid: bcast.flat"), std::string::npos) << unknown.err;
}

TEST(SimulateAlgorithm, AnUnreadableModelExitsWith1) {
  const TempDir dir("simulate");
  const CommandResult r =
      run_collsel({"simulate", "--algorithm", "bcast.binomial", "-P", "8", "-m", "1k", "--model",
                   (dir.path() / "missing.toml").string()});
  EXPECT_EQ(r.exit_code, 1) << r.err;
}

// ---- explain with a placement -----------------------------------------------------------------

TEST(ExplainPlacement, AModelThatSaysSoSimulatesOnThePlacementGiven) {
  const TempDir dir("simulate");
  const auto model = [&](const std::string& use) {
    return write_file(dir, use + ".toml",
                      std::string(conf::embedded_default_model()) +
                          "\n[contention]\nrule = \"fair\"\nalpha_s_per_byte = 1e-9\nuse = \"" +
                          use + "\"\n");
  };
  const auto simulated = [](const std::vector<std::string>& args) {
    const CommandResult r = run_collsel(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    const json doc = json::parse(r.out);
    std::vector<bool> flags;
    for (const json& e : doc.at("table")) flags.push_back(e.at("simulated").get<bool>());
    return flags;
  };
  const std::vector<std::string> call{"explain", "--coll", "bcast", "-P", "16", "-m", "64k",
                                      "--format", "json"};
  const auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = call;
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  };
  const std::size_t n = catalog(Collective::bcast).size();
  const std::vector<bool> all(n, true), none(n, false);
  EXPECT_EQ(simulated(with({"--model", model("always"), "--ranks-per-node", "4"})), all);
  EXPECT_EQ(simulated(with({"--model", model("auto"), "--ranks-per-node", "4"})), all);
  EXPECT_EQ(simulated(with({"--model", model("auto"), "--placement", "one-per-node"})), none);
  EXPECT_EQ(simulated(with({"--model", model("never"), "--ranks-per-node", "4"})), none);
  EXPECT_EQ(simulated(with({"--model", model("always")})), none);  // no placement given
  const CommandResult r = run_collsel(
      {"explain", "--coll", "bcast", "-P", "16", "-m", "64k", "--model", model("always"),
       "--ranks-per-node", "4", "--placement", "round-robin"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\nnodes:    round-robin, 16 ranks on 4 nodes, at most 4 per node\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("chosen, simulated"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace collsel::testing
