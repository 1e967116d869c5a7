// `collsel explain`, run as users run it; assertions on its parsed --format json output and exit
// codes. The expected algorithm names come from the registry, never from a list kept here.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "command.hpp"
#include "conf/embedded.hpp"
#include "models/model_file.hpp"
#include "selector/catalog.hpp"

namespace collsel::testing {
namespace {

using nlohmann::json;

std::vector<std::string> registry_names(Collective c) {
  std::vector<std::string> names;
  for (const auto& a : catalog(c)) names.emplace_back(a.name);
  return names;
}

json explain_json(std::vector<std::string> args) {
  args.insert(args.begin(), {"explain", "--format", "json"});
  const CommandResult r = run_collsel(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  if (r.exit_code != 0) return json::object();
  return json::parse(r.out);
}

// The first applicable entry with the smallest prediction: decide()'s rule, restated here from
// the table explain printed so the two can be compared.
std::string argmin(const json& table) {
  std::string best;
  double best_s = 0.0;
  for (const json& e : table) {
    if (!e.at("applicable").get<bool>() || e.at("predicted_s").is_null()) continue;
    const double s = e.at("predicted_s").get<double>();
    if (best.empty() || s < best_s) {
      best = e.at("name").get<std::string>();
      best_s = s;
    }
  }
  return best.empty() ? "native" : best;
}

std::vector<std::string> table_names(const json& table) {
  std::vector<std::string> names;
  for (const json& e : table) names.push_back(e.at("name").get<std::string>());
  return names;
}

struct Shape {
  std::string coll;
  int ranks;
  std::string size;
  int root;

  friend void PrintTo(const Shape& s, std::ostream* os) {
    *os << s.coll << "_P" << s.ranks << "_m" << s.size << "_root" << s.root;
  }
};

class ExplainShapes : public ::testing::TestWithParam<Shape> {};

TEST_P(ExplainShapes, WinnerIsTheArgminOfTheFullTable) {
  const Shape& s = GetParam();
  const json doc = explain_json({"--coll", s.coll, "-P", std::to_string(s.ranks), "-m", s.size,
                                 "--root", std::to_string(s.root)});
  ASSERT_FALSE(doc.empty());
  const Collective coll = *collective_from_name(s.coll);
  EXPECT_EQ(table_names(doc.at("table")), registry_names(coll));
  EXPECT_EQ(doc.at("winner"), argmin(doc.at("table")));
  EXPECT_EQ(doc.at("rung"), "default_model");  // no --model: only the embedded default
  EXPECT_EQ(doc.at("model").at("source"), std::string(conf::kEmbeddedModelName));
  EXPECT_EQ(doc.at("shape").at("comm_size"), s.ranks);
  EXPECT_EQ(doc.at("shape").at("root"), s.root);
  EXPECT_FALSE(doc.at("why").get<std::string>().empty());
  for (const json& e : doc.at("table")) {
    // Every entry either has a reason or a prediction, never neither.
    EXPECT_TRUE(e.at("applicable").get<bool>() != e.at("reason").is_string()) << e.dump();
    if (e.at("applicable").get<bool>()) {
      EXPECT_TRUE(e.at("predicted_s").is_number()) << e.dump();
    }
  }
  if (doc.at("winner") != "native") {
    const auto idx = doc.at("winner_index").get<std::size_t>();
    EXPECT_EQ(doc.at("table").at(idx).at("name"), doc.at("winner"));
    EXPECT_NE(doc.at("why").get<std::string>().find(doc.at("winner").get<std::string>()),
              std::string::npos);
  }
}

// The "in a loop" column: each entry's repetition interval (docs/MODELS.md). At P = 16 the
// segmented chain's calls, a pipeline, repeat several times faster than one call takes, and
// faster than the chosen split_binary's; a flat tree's root sends everything either way.
TEST(Explain, EachEntryCarriesItsRepetitionInterval) {
  const json doc = explain_json({"--coll", "bcast", "-P", "16", "-m", "64KiB"});
  ASSERT_FALSE(doc.empty());
  const auto entry = [&](std::string_view name) {
    for (const json& e : doc.at("table")) {
      if (e.at("name") == name) return e;
    }
    return json::object();
  };
  const json chain = entry("bcast.chain_segmented");
  const json split = entry("bcast.split_binary");
  const json flat = entry("bcast.flat");
  ASSERT_TRUE(chain.at("interval_s").is_number() && split.at("interval_s").is_number());
  EXPECT_LT(3 * chain.at("interval_s").get<double>(), chain.at("predicted_s").get<double>());
  EXPECT_LT(chain.at("interval_s").get<double>(), split.at("interval_s").get<double>());
  EXPECT_NEAR(flat.at("interval_s").get<double>(), flat.at("predicted_s").get<double>(),
              0.05 * flat.at("predicted_s").get<double>());
  const CommandResult text = run_collsel({"explain", "--coll", "bcast", "-P", "16", "-m", "64KiB"});
  EXPECT_NE(text.out.find("in a loop"), std::string::npos) << text.out;
}

// With [adapt] mode = "explore" explain says what the monitor may try: the runners-up, and the
// loop runners-up. The gige model with its gaps / 3 (as bench/adapt_demo.py makes it wrong) ranks
// chain_segmented for the loop (docs/ADAPT.md, "The loop runner-up"); monitor mode tries nothing.
TEST(Explain, SaysWhatExploringMayTry) {
  const std::string model = std::string(COLLSEL_TOOLS_FIXTURES) + "/gige-gaps-third.toml";
  const std::string config = ::testing::TempDir() + "explain-explore.toml";
  std::ofstream(config) << "[adapt]\nmode = \"explore\"\n";
  const json doc = explain_json({"--coll", "bcast", "-P", "16", "-m", "16KiB", "--model", model,
                                 "--config", config});
  ASSERT_FALSE(doc.empty());
  const json& explore = doc.at("explore");
  ASSERT_TRUE(explore.is_object()) << doc.dump();
  EXPECT_EQ(explore.at("runners_up"),
            json({"bcast.scatter_doubling_allgather", "bcast.binomial_segmented",
                  "bcast.flat_segmented"}));
  // Two of the three runners-up repeat slower than the winner by more than the tie margin: a
  // loop skips them and tries two more loop runners-up in their places.
  EXPECT_EQ(explore.at("loop_runners_up"),
            json({"bcast.chain_preposted", "bcast.binary", "bcast.chain_segmented"}));
  const CommandResult text = run_collsel({"explain", "--coll", "bcast", "-P", "16", "-m", "16KiB",
                                          "--model", model, "--config", config});
  EXPECT_NE(text.out.find("also bcast.chain_preposted, bcast.binary, bcast.chain_segmented (their "
                          "intervals)"),
            std::string::npos)
      << text.out;
  const json monitor =
      explain_json({"--coll", "bcast", "-P", "16", "-m", "16KiB", "--model", model});
  EXPECT_TRUE(monitor.at("explore").is_null());
}

// A schedule past the simulation's cap says it was extrapolated, and from how many segments: the
// preposted chain at P = 16, 8 per node, 4 MiB in 8 KiB segments (7680 messages) from its first
// 130; in 16 KiB segments (3840) it is simulated whole (docs/MODELS.md, "Past the cap").
TEST(Explain, SaysWhenAPredictionIsExtrapolated) {
  const std::string model = std::string(COLLSEL_TOOLS_FIXTURES) + "/gige-gaps-third.toml";
  for (const int segment : {8192, 16384}) {
    const std::string config =
        ::testing::TempDir() + "explain-segment-" + std::to_string(segment) + ".toml";
    std::ofstream(config) << "[override]\nsegment_bytes = " << segment << "\n";
    const std::vector<std::string> args = {"--coll",  "bcast", "-P",       "16",
                                           "-m",      "4MiB",  "--model",  model,
                                           "--config", config, "--ranks-per-node", "8"};
    const json doc = explain_json(args);
    ASSERT_FALSE(doc.empty());
    const auto e = std::find_if(doc.at("table").begin(), doc.at("table").end(), [](const json& x) {
      return x.at("name") == "bcast.chain_preposted";
    });
    ASSERT_NE(e, doc.at("table").end());
    EXPECT_TRUE(e->at("simulated").get<bool>()) << e->dump();
    EXPECT_EQ(e->at("extrapolated_from_segments"), segment == 8192 ? 130 : 0) << e->dump();
    std::vector<std::string> text_args = {"explain"};
    text_args.insert(text_args.end(), args.begin(), args.end());
    const CommandResult text = run_collsel(text_args);
    EXPECT_EQ(text.out.find("simulated 130 segments, extrapolated") != std::string::npos,
              segment == 8192)
        << text.out;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, ExplainShapes,
    ::testing::Values(Shape{"bcast", 1, "0", 0}, Shape{"bcast", 2, "1", 1},
                      Shape{"bcast", 5, "4k", 3}, Shape{"bcast", 16, "1MiB", 0},
                      Shape{"bcast", 7, "64KiB", 6}, Shape{"scatter", 1, "0", 0},
                      Shape{"scatter", 8, "4096B", 2}, Shape{"scatter", 13, "1M", 12}));

TEST(Explain, SizeSuffixesAreBinary) {
  const json doc = explain_json({"--coll", "bcast", "-P", "4", "-m", "1M"});
  EXPECT_EQ(doc.at("shape").at("bytes"), 1048576);
}

TEST(Explain, ForcedAlgorithmWinsOnTheOverrideRung) {
  const std::string forced = registry_names(Collective::bcast).back();
  const json doc = explain_json({"--coll", "bcast", "-P", "8", "-m", "64k", "--force", forced});
  EXPECT_EQ(doc.at("winner"), forced);
  EXPECT_EQ(doc.at("rung"), "override");
}

TEST(Explain, ForcedNativeRunsNative) {
  const json doc = explain_json({"--coll", "scatter", "-P", "8", "-m", "64k", "--force", "native"});
  EXPECT_EQ(doc.at("winner"), "native");
  EXPECT_EQ(doc.at("rung"), "override");
  EXPECT_TRUE(doc.at("predicted_s").is_null());
}

class ExplainFiles : public ::testing::Test {
 protected:
  // A valid model file with a recognisable name: the embedded model under another name.
  std::string write_model_file() {
    models::ModelLoad load =
        models::parse_model(conf::embedded_default_model(), conf::kEmbeddedModelName);
    EXPECT_TRUE(load.model.has_value());
    models::ModelFile m = load.model.value_or(models::ModelFile{});
    m.name = "tools-test-model";
    m.provenance.command = "tools_tests (hand-made)";
    const std::string path = (tmp_.path() / "model.toml").string();
    std::ofstream(path) << models::write_model(m);
    return path;
  }

  std::string write_file(const std::string& name, const std::string& text) {
    const std::string path = (tmp_.path() / name).string();
    std::ofstream(path) << text;
    return path;
  }

  TempDir tmp_{"explain"};
};

TEST_F(ExplainFiles, ModelFileIsTheCalibratedModel) {
  const std::string path = write_model_file();
  const json doc = explain_json({"--coll", "bcast", "-P", "8", "-m", "4k", "--model", path});
  EXPECT_EQ(doc.at("rung"), "model");
  EXPECT_EQ(doc.at("model").at("name"), "tools-test-model");
  EXPECT_EQ(doc.at("model").at("source"), path);
  EXPECT_EQ(doc.at("model").at("command"), "tools_tests (hand-made)");
  EXPECT_EQ(doc.at("default_model").at("source"), std::string(conf::kEmbeddedModelName));
  EXPECT_EQ(doc.at("winner"), argmin(doc.at("table")));
}

TEST_F(ExplainFiles, MissingModelFileExitsOneNamingTheFile) {
  const std::string path = (tmp_.path() / "no-such-model.toml").string();
  const CommandResult r =
      run_collsel({"explain", "--coll", "bcast", "-P", "4", "-m", "4k", "--model", path});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find(path), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
}

TEST_F(ExplainFiles, MalformedModelFileExitsOneNamingTheFile) {
  const std::string path = write_file("bad-model.toml", "format_version = [\n");
  const CommandResult r =
      run_collsel({"explain", "--coll", "bcast", "-P", "4", "-m", "4k", "--model", path});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find(path), std::string::npos) << r.err;
}

TEST_F(ExplainFiles, ConfigOverrideApplies) {
  const std::string forced = registry_names(Collective::bcast).front();
  const std::string path =
      write_file("collsel.toml", "[override]\nbcast = \"" + forced + "\"\n");
  const json doc = explain_json({"--coll", "bcast", "-P", "8", "-m", "1MiB", "--config", path});
  EXPECT_EQ(doc.at("winner"), forced);
  EXPECT_EQ(doc.at("rung"), "override");
  EXPECT_EQ(doc.at("config"), path);
}

TEST_F(ExplainFiles, ConfigDisablingTheCollectiveGivesNative) {
  const std::string path = write_file("collsel.toml", "[enable]\nscatter = false\n");
  const json doc = explain_json({"--coll", "scatter", "-P", "8", "-m", "1k", "--config", path});
  EXPECT_EQ(doc.at("winner"), "native");
  EXPECT_EQ(doc.at("rung"), "native");
  EXPECT_FALSE(doc.at("note").get<std::string>().empty());
}

TEST_F(ExplainFiles, UnreadableConfigExitsOne) {
  const std::string path = (tmp_.path() / "missing.toml").string();
  const CommandResult r =
      run_collsel({"explain", "--coll", "bcast", "-P", "4", "-m", "4k", "--config", path});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find(path), std::string::npos) << r.err;
}

struct BadArgs {
  std::string name;  // names the test case (ctest shows it)
  std::vector<std::string> args;
  std::string in_message;  // what the message must name

  friend void PrintTo(const BadArgs& b, std::ostream* os) { *os << b.name; }
};

class ExplainBadArguments : public ::testing::TestWithParam<BadArgs> {};

TEST_P(ExplainBadArguments, ExitTwoWithAClearMessage) {
  std::vector<std::string> args = GetParam().args;
  args.insert(args.begin(), "explain");
  const CommandResult r = run_collsel(args);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find(GetParam().in_message), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
}

INSTANTIATE_TEST_SUITE_P(
    Cases, ExplainBadArguments,
    ::testing::Values(
        BadArgs{"size_unknown_suffix", {"--coll", "bcast", "-P", "4", "-m", "4x"}, "4x"},
        BadArgs{"size_negative", {"--coll", "bcast", "-P", "4", "-m", "-1"}, "-1"},
        BadArgs{"size_fraction", {"--coll", "bcast", "-P", "4", "-m", "1.5M"}, "1.5M"},
        BadArgs{"size_overflow", {"--coll", "bcast", "-P", "4", "-m", "99999999999999999999"},
                "too large"},
        BadArgs{"ranks_zero", {"--coll", "bcast", "-P", "0", "-m", "4k"}, "ranks must be"},
        BadArgs{"ranks_not_a_number", {"--coll", "bcast", "-P", "x", "-m", "4k"}, "'x'"},
        BadArgs{"root_out_of_range", {"--coll", "bcast", "-P", "4", "-m", "4k", "--root", "4"},
                "--root 4"},
        BadArgs{"unknown_collective", {"--coll", "allgather", "-P", "4", "-m", "4k"},
                "allgather"},
        BadArgs{"size_missing", {"--coll", "bcast", "-P", "4"}, "--size is required"},
        BadArgs{"unknown_format", {"--coll", "bcast", "-P", "4", "-m", "4k", "--format", "xml"},
                "xml"}));

TEST(Explain, UnknownForcedAlgorithmListsTheValidNames) {
  for (Collective c : kCollectives) {
    const std::string coll(collective_name(c));
    // Another collective's name is as wrong as a typo.
    const std::string wrong = c == Collective::bcast ? "scatter.flat" : "bcast.flat";
    const CommandResult r =
        run_collsel({"explain", "--coll", coll, "-P", "4", "-m", "4k", "--force", wrong});
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("'" + wrong + "'"), std::string::npos) << r.err;
    for (const std::string& name : registry_names(c)) {
      EXPECT_NE(r.err.find(name), std::string::npos) << name << " missing in: " << r.err;
    }
  }
}

}  // namespace
}  // namespace collsel::testing
