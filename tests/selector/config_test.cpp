// The config reader: every bad input gives one message with file, line, problem and fix (asserted
// word for word, STYLE.md 8.9 #33), and the rest of the file still applies.
#include <gtest/gtest.h>

#include "conf/embedded.hpp"
#include "selector/catalog.hpp"
#include "selector/config.hpp"

namespace collsel {
namespace {

std::vector<std::string> messages(const Diagnostics& ds) {
  std::vector<std::string> out;
  for (const auto& d : ds) out.push_back(d.format());
  return out;
}

TEST(Config, DefaultsWithoutAFile) {
  const ConfigLoad load = resolve_config({});
  EXPECT_TRUE(load.diagnostics.empty());
  EXPECT_EQ(load.config.source, "<built-in defaults>");
  EXPECT_FALSE(load.config.model_path.has_value());
  EXPECT_EQ(load.config.log_dir, "collsel-logs");
  EXPECT_EQ(load.config.log_level, LogLevel::trace);
  EXPECT_EQ(load.config.log_stack_depth, 4);
  EXPECT_EQ(load.config.log_max_records, 100'000u);
  EXPECT_EQ(load.config.log_summary_entries, 4096u);
  EXPECT_TRUE(load.config.policy.of(Collective::bcast).enabled);
  EXPECT_FALSE(load.config.policy.of(Collective::scatter).force.has_value());
  EXPECT_EQ(load.config.policy.segment_unit_bytes, 8u);
}

TEST(Config, ReadsEveryKey) {
  const ConfigLoad load = parse_config(R"(
[model]
path = "models/cluster.toml"
[log]
dir = "/tmp/logs"
level = "summary"
buffer_records = 100
stack_depth = 8
max_records = 250
summary_entries = 64
[enable]
scatter = false
alltoall = false
[override]
bcast = "bcast.chain_segmented"
alltoall = "alltoall.bruck"
segment_bytes = 4096
window = 3
[selection]
segment_unit_bytes = 4
)",
                                       "/etc/collsel/collsel.toml");
  EXPECT_TRUE(load.diagnostics.empty()) << messages(load.diagnostics).front();
  const Config& c = load.config;
  EXPECT_EQ(c.source, "/etc/collsel/collsel.toml");
  EXPECT_EQ(c.model_path, "/etc/collsel/models/cluster.toml");  // relative to the config file
  EXPECT_EQ(c.log_dir, "/tmp/logs");
  EXPECT_EQ(c.log_level, LogLevel::summary);
  EXPECT_EQ(c.log_buffer_records, 100u);
  EXPECT_EQ(c.log_stack_depth, 8);
  EXPECT_EQ(c.log_max_records, 250u);
  EXPECT_EQ(c.log_summary_entries, 64u);
  EXPECT_FALSE(c.policy.of(Collective::scatter).enabled);
  EXPECT_TRUE(c.policy.of(Collective::bcast).enabled);
  EXPECT_EQ(c.policy.of(Collective::bcast).force, "bcast.chain_segmented");
  EXPECT_EQ(c.policy.segment_bytes, 4096u);
  EXPECT_EQ(c.policy.segment_unit_bytes, 4u);
  EXPECT_FALSE(c.policy.of(Collective::alltoall).enabled);
  EXPECT_EQ(c.policy.of(Collective::alltoall).force, "alltoall.bruck");
  EXPECT_EQ(c.policy.window, 3);
}

TEST(Config, TheInstalledDefaultFileParsesCleanly) {
  // conf/collsel.toml must say exactly what the built-in defaults are.
  const ConfigLoad file = parse_config(conf::embedded_default_config(), "conf/collsel.toml");
  EXPECT_TRUE(file.diagnostics.empty());
  const Config defaults;
  EXPECT_EQ(file.config.model_path, defaults.model_path);
  EXPECT_EQ(file.config.log_dir, defaults.log_dir);
  EXPECT_EQ(file.config.log_level, defaults.log_level);
  EXPECT_EQ(file.config.log_buffer_records, defaults.log_buffer_records);
  EXPECT_EQ(file.config.log_stack_depth, defaults.log_stack_depth);
  EXPECT_EQ(file.config.log_max_records, defaults.log_max_records);
  EXPECT_EQ(file.config.log_summary_entries, defaults.log_summary_entries);
  EXPECT_EQ(file.config.log_traces_per_site, defaults.log_traces_per_site);
  EXPECT_EQ(file.config.log_max_bytes, defaults.log_max_bytes);
  EXPECT_EQ(file.config.policy.segment_unit_bytes, defaults.policy.segment_unit_bytes);
  const AdaptSettings& a = file.config.adapt;
  const AdaptSettings& d = defaults.adapt;
  EXPECT_EQ(a.mode, d.mode);
  EXPECT_EQ(a.threshold, d.threshold);
  EXPECT_EQ(a.candidate_factor, d.candidate_factor);
  EXPECT_EQ(a.max_candidates, d.max_candidates);
  EXPECT_EQ(a.trial_calls, d.trial_calls);
  EXPECT_EQ(a.hysteresis, d.hysteresis);
  EXPECT_EQ(a.significance, d.significance);
  EXPECT_EQ(a.max_trial_calls, d.max_trial_calls);
  EXPECT_EQ(a.abandon_factor, d.abandon_factor);
  EXPECT_EQ(a.first_checkpoint, d.first_checkpoint);
  EXPECT_EQ(a.learned_path, d.learned_path);
  EXPECT_EQ(file.config.max_private_comms, defaults.max_private_comms);
  EXPECT_EQ(file.config.serve_from_call, defaults.serve_from_call);
}

TEST(Config, ReadsTheRuntimeSection) {
  const ConfigLoad load =
      parse_config("[runtime]\nmax_private_comms = 3\nserve_from_call = 5\n", "c.toml");
  EXPECT_TRUE(load.diagnostics.empty());
  EXPECT_EQ(load.config.max_private_comms, 3);
  EXPECT_EQ(load.config.serve_from_call, 5u);
}

TEST(Config, MaxPrivateCommsOutOfRangeKeepsTheDefault) {
  const ConfigLoad load = parse_config("[runtime]\nmax_private_comms = -1\n", "c.toml");
  ASSERT_EQ(load.diagnostics.size(), 1u);
  EXPECT_EQ(load.diagnostics[0].line, 2);
  EXPECT_NE(load.diagnostics[0].problem.find("max_private_comms = -1 in [runtime] is out of range"),
            std::string::npos);
  EXPECT_NE(load.diagnostics[0].fix.find("use 0 to 1024; using 64"), std::string::npos);
  EXPECT_EQ(load.config.max_private_comms, Config{}.max_private_comms);
}

TEST(Config, MaxPrivateCommsFromTheEnvironment) {
  Config c;
  Diagnostics d;
  apply_env(c, {{"COLLSEL_MAX_PRIVATE_COMMS", "0"}}, d);
  EXPECT_TRUE(d.empty());
  EXPECT_EQ(c.max_private_comms, 0);
  apply_env(c, {{"COLLSEL_MAX_PRIVATE_COMMS", "lots"}}, d);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_NE(d[0].problem.find("COLLSEL_MAX_PRIVATE_COMMS: 'lots' is not a count from 0 to 1024"),
            std::string::npos);
  EXPECT_EQ(c.max_private_comms, 0);
  apply_env(c, {{"COLLSEL_SERVE_FROM_CALL", "0"}}, d);
  ASSERT_EQ(d.size(), 2u);
  EXPECT_NE(d[1].problem.find("COLLSEL_SERVE_FROM_CALL: '0' is not a count from 1 to"),
            std::string::npos);
  EXPECT_EQ(c.serve_from_call, Config{}.serve_from_call);
}

TEST(Config, ReadsTheAdaptSection) {
  const ConfigLoad load = parse_config(R"([adapt]
mode = "explore"
threshold = 2
candidate_factor = 3.5
max_candidates = 5
trial_calls = 7
hysteresis = 0.2
significance = 1.5
max_trial_calls = 30
abandon_factor = 4.0
tie_margin = 0.3
agree_lag_s = 1.5
try_segments = false
first_checkpoint = 12
learned = "runs/learned.toml"
)",
                                       "/etc/collsel/collsel.toml");
  EXPECT_TRUE(load.diagnostics.empty()) << messages(load.diagnostics)[0];
  const AdaptSettings& a = load.config.adapt;
  EXPECT_EQ(a.mode, AdaptMode::explore);
  EXPECT_EQ(a.threshold, 2.0);
  EXPECT_EQ(a.candidate_factor, 3.5);
  EXPECT_EQ(a.max_candidates, 5);
  EXPECT_EQ(a.trial_calls, 7);
  EXPECT_EQ(a.hysteresis, 0.2);
  EXPECT_EQ(a.significance, 1.5);
  EXPECT_EQ(a.max_trial_calls, 30);
  EXPECT_EQ(a.abandon_factor, 4.0);
  EXPECT_EQ(a.tie_margin, 0.3);
  EXPECT_EQ(a.agree_lag_s, 1.5);
  EXPECT_FALSE(a.try_segments);
  EXPECT_TRUE(AdaptSettings{}.try_segments);
  EXPECT_EQ(a.first_checkpoint, 12);
  EXPECT_EQ(a.learned_path, "/etc/collsel/runs/learned.toml");
}

TEST(Config, BadAdaptValuesKeepTheirDefaults) {
  const ConfigLoad load = parse_config("[adapt]\nmode = \"learn\"\nthreshold = -1\n"
                                       "trial_calls = 0\nagree_lag_s = 61\ntry_segments = 1\n",
                                       "c.toml");
  const auto m = messages(load.diagnostics);
  ASSERT_EQ(m.size(), 5u);
  EXPECT_EQ(m[0], "collsel: c.toml:2: unknown mode 'learn' in [adapt]; valid: off, monitor, "
                  "explore, exhaustive; using monitor");
  EXPECT_EQ(m[1], "collsel: c.toml:3: threshold in [adapt] must be a number from 0 to 1000000; "
                  "write e.g. threshold = 1.2; using 1.2");
  EXPECT_EQ(m[2], "collsel: c.toml:5: agree_lag_s in [adapt] must be a number from 0 to 60; "
                  "write e.g. agree_lag_s = 0.25; using 0.25");
  EXPECT_EQ(m[3], "collsel: c.toml:4: trial_calls = 0 in [adapt] is out of range; use 1 to 100; "
                  "using 4");
  EXPECT_EQ(m[4], "collsel: c.toml:6: try_segments in [adapt] must be a boolean; write e.g. "
                  "try_segments = true");
  EXPECT_TRUE(load.config.adapt.try_segments);
  EXPECT_EQ(load.config.adapt.mode, AdaptMode::monitor);
  EXPECT_EQ(load.config.adapt.agree_lag_s, AdaptSettings{}.agree_lag_s);
}

// The first checkpoint must come before the 64th call (the second), and late enough that the
// window (the first call left out) has two calls for a standard error.
TEST(Config, FirstCheckpointOutOfRangeKeepsTheDefault) {
  for (const char* text : {"[adapt]\nfirst_checkpoint = 2\n", "[adapt]\nfirst_checkpoint = 64\n"}) {
    const ConfigLoad load = parse_config(text, "c.toml");
    const auto m = messages(load.diagnostics);
    ASSERT_EQ(m.size(), 1u) << text;
    EXPECT_NE(m[0].find("c.toml:2: first_checkpoint = "), std::string::npos) << m[0];
    EXPECT_NE(m[0].find("is out of range; use 3 to 63; using 8"), std::string::npos) << m[0];
    EXPECT_EQ(load.config.adapt.first_checkpoint, AdaptSettings{}.first_checkpoint);
  }
  EXPECT_EQ(parse_config("[adapt]\nfirst_checkpoint = 63\n", "c.toml").config.adapt
                .first_checkpoint, 63);
}

TEST(Config, AdaptFromTheEnvironment) {
  ConfigInputs in;
  in.env = {{"COLLSEL_ADAPT", "explore"}, {"COLLSEL_LEARNED", "/data/learned.toml"}};
  ConfigLoad load = resolve_config(in);
  EXPECT_TRUE(load.diagnostics.empty());
  EXPECT_EQ(load.config.adapt.mode, AdaptMode::explore);
  EXPECT_EQ(load.config.adapt.learned_path, "/data/learned.toml");
  in.env = {{"COLLSEL_ADAPT", "exhaustive"}};
  EXPECT_EQ(resolve_config(in).config.adapt.mode, AdaptMode::exhaustive);
  in.env = {{"COLLSEL_ADAPT", "on"}};
  load = resolve_config(in);
  ASSERT_EQ(load.diagnostics.size(), 1u);
  EXPECT_EQ(load.diagnostics[0].format(),
            "collsel: environment: COLLSEL_ADAPT: unknown mode 'on'; valid: off, monitor, "
            "explore, exhaustive; using monitor");
}

TEST(Config, UnknownAlgorithmNamesFileLineAndValidNames) {
  const ConfigLoad load = parse_config("[override]\n\nbcast = \"bcast.binomal\"\n", "c.toml");
  ASSERT_EQ(load.diagnostics.size(), 1u);
  EXPECT_EQ(load.diagnostics[0].format(),
            "collsel: c.toml:3: unknown algorithm 'bcast.binomal' in [override]; valid: " +
                algorithm_names(Collective::bcast) + ", native; using the model's choice instead");
  EXPECT_FALSE(load.config.policy.of(Collective::bcast).force.has_value());
}

TEST(Config, AlgorithmOfTheWrongCollectiveIsUnknown) {
  const ConfigLoad load = parse_config("[override]\nscatter = \"bcast.flat\"\n", "c.toml");
  ASSERT_EQ(load.diagnostics.size(), 1u);
  EXPECT_EQ(load.diagnostics[0].line, 2);
  EXPECT_FALSE(load.config.policy.of(Collective::scatter).force.has_value());
}

TEST(Config, UnknownKeyIsAWarningAndTheRestApplies) {
  const ConfigLoad load =
      parse_config("[log]\ndirectory = \"x\"\nlevel = \"off\"\n[colors]\nred = 1\n", "c.toml");
  const auto m = messages(load.diagnostics);
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[0],
            "collsel: c.toml:4: unknown key 'colors' in the top level; remove it; valid keys in "
            "the top level: model, log, enable, override, selection, adapt, runtime");
  EXPECT_EQ(m[1],
            "collsel: c.toml:2: unknown key 'directory' in [log]; remove it; valid keys in [log]: "
            "dir, level, buffer_records, stack_depth, max_records, summary_entries, max_bytes, "
            "traces_per_site");
  EXPECT_EQ(load.diagnostics[0].severity, Diagnostic::Severity::warning);
  EXPECT_EQ(load.config.log_level, LogLevel::off);
}

TEST(Config, WrongTypeKeepsTheDefault) {
  const ConfigLoad load = parse_config("[enable]\nbcast = \"yes\"\n", "c.toml");
  ASSERT_EQ(load.diagnostics.size(), 1u);
  EXPECT_EQ(load.diagnostics[0].format(),
            "collsel: c.toml:2: bcast in [enable] must be a boolean; write e.g. bcast = true");
  EXPECT_TRUE(load.config.policy.of(Collective::bcast).enabled);
}

TEST(Config, SyntaxErrorIgnoresTheWholeFile) {
  const ConfigLoad load = parse_config("[log]\nlevel = \"off\"\ndir = \n", "c.toml");
  ASSERT_EQ(load.diagnostics.size(), 1u);
  EXPECT_EQ(load.diagnostics[0].line, 3);
  EXPECT_TRUE(load.diagnostics[0].problem.starts_with("not valid TOML: "));
  EXPECT_EQ(load.diagnostics[0].fix,
            "fix the syntax; until then the whole file is ignored and the built-in defaults apply");
  EXPECT_EQ(load.config.log_level, LogLevel::trace);
}

TEST(Config, BadValuesAreReported) {
  const ConfigLoad load = parse_config(
      "[log]\nlevel = \"loud\"\nbuffer_records = 3\n[override]\nsegment_bytes = 0\nwindow = -2\n",
      "c.toml");
  const auto m = messages(load.diagnostics);
  ASSERT_EQ(m.size(), 4u);
  EXPECT_EQ(m[0], "collsel: c.toml:2: unknown log level 'loud' in [log]; valid: trace, summary, "
                  "off; using trace");
  EXPECT_EQ(m[1],
            "collsel: c.toml:3: buffer_records = 3 in [log] is out of range; use 16 to 1000000; "
            "using 4096");
  EXPECT_EQ(m[2],
            "collsel: c.toml:5: segment_bytes = 0 in [override] must be positive; use a size in "
            "bytes such as 8192, or remove it to let the model choose");
  EXPECT_EQ(m[3],
            "collsel: c.toml:6: window = -2 in [override] must be a positive count; use e.g. 4 "
            "(exchanges in flight), or remove it to let the model choose");
  EXPECT_FALSE(load.config.policy.window.has_value());
}

TEST(Config, LogLimitsOutOfRangeKeepTheirDefaults) {
  const ConfigLoad load = parse_config(
      "[log]\nstack_depth = 9\nmax_records = 0\nsummary_entries = 8\nlevel = \"summary\"\n",
      "c.toml");
  const auto m = messages(load.diagnostics);
  ASSERT_EQ(m.size(), 3u);
  EXPECT_EQ(m[0],
            "collsel: c.toml:2: stack_depth = 9 in [log] is out of range; use 0 to 8; using 4");
  EXPECT_EQ(m[1], "collsel: c.toml:3: max_records = 0 in [log] is out of range; use 1 to "
                  "1000000000; using 100000");
  EXPECT_EQ(m[2], "collsel: c.toml:4: summary_entries = 8 in [log] is out of range; use 16 to "
                  "1048576; using 4096");
  EXPECT_EQ(load.config.log_stack_depth, 4);
  EXPECT_EQ(load.config.log_max_records, 100'000u);
  EXPECT_EQ(load.config.log_summary_entries, 4096u);
  EXPECT_EQ(load.config.log_level, LogLevel::summary);  // the rest of the section applies
}

TEST(Config, TracesPerSite) {
  EXPECT_EQ(Config{}.log_traces_per_site, 32u);
  ConfigLoad load = parse_config("[log]\ntraces_per_site = 0\n", "c.toml");
  EXPECT_TRUE(load.diagnostics.empty());
  EXPECT_EQ(load.config.log_traces_per_site, 0u);  // no limit
  load = parse_config("[log]\ntraces_per_site = -1\n", "c.toml");
  ASSERT_EQ(load.diagnostics.size(), 1u);
  EXPECT_EQ(load.diagnostics[0].format(),
            "collsel: c.toml:2: traces_per_site = -1 in [log] is out of range; use 0 to "
            "1000000000; using 32");

  ConfigInputs in;
  in.config_path = "c.toml";
  in.config_text = "[log]\ntraces_per_site = 8\n";
  in.env = {{"COLLSEL_LOG_TRACES_PER_SITE", "0"}};
  load = resolve_config(in);
  EXPECT_TRUE(load.diagnostics.empty());
  EXPECT_EQ(load.config.log_traces_per_site, 0u);
  in.env = {{"COLLSEL_LOG_TRACES_PER_SITE", "many"}};
  load = resolve_config(in);
  ASSERT_EQ(load.diagnostics.size(), 1u);
  EXPECT_EQ(load.diagnostics[0].format(),
            "collsel: environment: COLLSEL_LOG_TRACES_PER_SITE: 'many' is not a count from 0 to "
            "1000000000; use e.g. 32 (0: no limit); using 8");
  EXPECT_EQ(load.config.log_traces_per_site, 8u);
}

TEST(Config, StackDepthZeroTurnsCallSitesOff) {
  const ConfigLoad load = parse_config("[log]\nstack_depth = 0\n", "c.toml");
  EXPECT_TRUE(load.diagnostics.empty());
  EXPECT_EQ(load.config.log_stack_depth, 0);
}

TEST(Config, LogLevelFromTheEnvironment) {
  ConfigInputs in;
  in.config_path = "c.toml";
  in.config_text = "[log]\nlevel = \"off\"\n";
  in.env = {{"COLLSEL_LOG_LEVEL", "summary"}};
  ConfigLoad load = resolve_config(in);
  EXPECT_TRUE(load.diagnostics.empty());
  EXPECT_EQ(load.config.log_level, LogLevel::summary);

  in.env = {{"COLLSEL_LOG_LEVEL", "verbose"}};
  load = resolve_config(in);
  ASSERT_EQ(load.diagnostics.size(), 1u);
  EXPECT_EQ(load.diagnostics[0].format(),
            "collsel: environment: COLLSEL_LOG_LEVEL: unknown log level 'verbose'; valid: trace, "
            "summary, off; using off");
  EXPECT_EQ(load.config.log_level, LogLevel::off);
}

TEST(Config, LogLevelNames) {
  EXPECT_EQ(log_level_name(LogLevel::trace), "trace");
  EXPECT_EQ(log_level_name(LogLevel::summary), "summary");
  EXPECT_EQ(log_level_name(LogLevel::off), "off");
}

TEST(Config, EnvironmentWinsOverTheFile) {
  ConfigInputs in;
  in.config_path = "c.toml";
  in.config_text = "[override]\nbcast = \"bcast.flat\"\n[log]\ndir = \"a\"\n";
  in.env = {{"COLLSEL_FORCE_BCAST", "bcast.binomial"},
            {"COLLSEL_FORCE_SCATTER", "native"},
            {"COLLSEL_LOG_DIR", "b"},
            {"COLLSEL_MODEL", "m.toml"},
            {"COLLSEL_SEGMENT_BYTES", "1000"},
            {"COLLSEL_FORCE_ALLTOALL", "alltoall.pairwise"},
            {"COLLSEL_WINDOW", "5"},
            {"COLLSEL_LOG_LEVEL", "off"}};
  const ConfigLoad load = resolve_config(in);
  EXPECT_TRUE(load.diagnostics.empty());
  EXPECT_EQ(load.config.policy.of(Collective::bcast).force, "bcast.binomial");
  EXPECT_EQ(load.config.policy.of(Collective::scatter).force, "native");
  EXPECT_EQ(load.config.log_dir, "b");
  EXPECT_EQ(load.config.model_path, "m.toml");  // relative to the working directory
  EXPECT_EQ(load.config.policy.segment_bytes, 1000u);
  EXPECT_EQ(load.config.log_level, LogLevel::off);
  EXPECT_EQ(load.config.policy.of(Collective::alltoall).force, "alltoall.pairwise");
  EXPECT_EQ(load.config.policy.window, 5);
}

TEST(Config, BadEnvironmentValuesNameTheVariable) {
  ConfigInputs in;
  in.env = {{"COLLSEL_FORCE_SCATTER", "scatter.tree"},
            {"COLLSEL_SEGMENT_BYTES", "12k"},
            {"COLLSEL_DISABLE", "bcast,allgather"}};
  const ConfigLoad load = resolve_config(in);
  const auto m = messages(load.diagnostics);
  ASSERT_EQ(m.size(), 3u);
  EXPECT_EQ(m[0], "collsel: environment: COLLSEL_FORCE_SCATTER: unknown algorithm 'scatter.tree'; "
                  "valid: " + algorithm_names(Collective::scatter) +
                      ", native; using the model's choice instead");
  EXPECT_EQ(m[1], "collsel: environment: COLLSEL_SEGMENT_BYTES: '12k' is not a positive number "
                  "of bytes; use e.g. 8192; the model chooses the segment size meanwhile");
  EXPECT_EQ(m[2], "collsel: environment: COLLSEL_DISABLE: unknown collective 'allgather'; valid: "
                  "bcast, scatter, alltoall, all (comma-separated)");
  EXPECT_FALSE(load.config.policy.of(Collective::bcast).enabled);  // the valid part applies
  EXPECT_TRUE(load.config.policy.of(Collective::scatter).enabled);
}

TEST(Config, DisableAll) {
  ConfigInputs in;
  in.env = {{"COLLSEL_DISABLE", "all"}};
  const ConfigLoad load = resolve_config(in);
  for (Collective c : kCollectives) EXPECT_FALSE(load.config.policy.of(c).enabled);
}

TEST(Config, UnreadableConfigFromTheEnvironmentIsReported) {
  ConfigInputs in;
  in.config_path = "/nonexistent/collsel.toml";
  in.config_read_error = "No such file or directory";
  in.config_path_from_env = true;
  const ConfigLoad load = resolve_config(in);
  ASSERT_EQ(load.diagnostics.size(), 1u);
  EXPECT_EQ(load.diagnostics[0].format(),
            "collsel: /nonexistent/collsel.toml: cannot read the config file (No such file or "
            "directory); check COLLSEL_CONFIG; using the built-in defaults");
}

TEST(Config, MissingInstalledDefaultIsSilent) {
  ConfigInputs in;
  in.config_path = "/usr/local/etc/collsel/collsel.toml";
  in.config_read_error = "No such file or directory";
  EXPECT_TRUE(resolve_config(in).diagnostics.empty());
}

}  // namespace
}  // namespace collsel
