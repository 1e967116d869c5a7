#include "selector/config.hpp"

#include <cerrno>
#include <climits>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <type_traits>

#include <fmt/format.h>

#include <toml++/toml.h>

#include "models/toml_input.hpp"

#include "conf/embedded.hpp"
#include "selector/catalog.hpp"

extern char** environ;

namespace collsel {
namespace {

constexpr std::string_view kEnvironment = "environment";

using toml_input::line_of;
using toml_input::Reader;

std::string valid_overrides(Collective c) {
  return fmt::format("{}, {}", algorithm_names(c), kNativeName);
}

// An override value is valid if it names a registered algorithm of `c` or "native".
bool valid_override(Collective c, std::string_view name) {
  return name == kNativeName || find_algorithm(c, name) != nullptr;
}

constexpr std::string_view kValidLogLevels = "trace, summary, off";

std::optional<LogLevel> log_level_from(std::string_view s) {
  if (s == "trace") return LogLevel::trace;
  if (s == "summary") return LogLevel::summary;
  if (s == "off") return LogLevel::off;
  return std::nullopt;
}

std::optional<std::uint64_t> positive_integer(std::string_view text) {
  std::uint64_t value = 0;
  const auto* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc{} || ptr != end || value == 0) return std::nullopt;
  return value;
}

// A count from 0 to `max`: 0 is valid, unlike positive_integer().
std::optional<std::uint64_t> count_up_to(std::string_view text, std::uint64_t max) {
  std::uint64_t value = 0;
  const auto* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc{} || ptr != end || value > max) return std::nullopt;
  return value;
}

// Checks every key of `table` against `valid`; unknown ones are reported and skipped.
void check_keys(Reader& r, const toml::table& table, std::string_view table_name,
                std::initializer_list<std::string_view> valid) {
  toml_input::warn_unknown_keys(r, table, fmt::format("in {}", table_name),
                                std::span<const std::string_view>(valid.begin(), valid.size()));
}

template <class T>
constexpr std::string_view type_name() {
  if constexpr (std::is_same_v<T, bool>) return "a boolean";
  if constexpr (std::is_same_v<T, std::string>) return "a string";
  return "an integer";
}

template <class T>
constexpr std::string_view example_value() {
  if constexpr (std::is_same_v<T, bool>) return "true";
  if constexpr (std::is_same_v<T, std::string>) return "\"...\"";
  return "8192";
}

// Reads table_name.key into `target` when present and of type T; a wrong type is one error and
// leaves `target` at its default.
template <class T>
bool read(Reader& r, const toml::table& table, std::string_view table_name, std::string_view key,
          T& target) {
  const toml::node* node = table.get(key);
  if (node == nullptr) return false;
  if (node->is<T>()) {
    target = *node->value<T>();
    return true;
  }
  r.error(line_of(*node), fmt::format("{} in {} must be {}", key, table_name, type_name<T>()),
          fmt::format("write e.g. {} = {}", key, example_value<T>()));
  return false;
}

// Reads an integer key that must lie in [lo, hi]; out of range is one error and `target` keeps
// its default.
template <class T>
void read_bounded(Reader& r, const toml::table& table, std::string_view table_name,
                  std::string_view key, std::int64_t lo, std::int64_t hi, T& target) {
  std::int64_t value = 0;
  if (!read(r, table, table_name, key, value)) return;
  if (value >= lo && value <= hi) {
    target = static_cast<T>(value);
    return;
  }
  r.error(line_of(*table.get(key)),
          fmt::format("{} = {} in {} is out of range", key, value, table_name),
          fmt::format("use {} to {}; using {}", lo, hi, target));
}

const toml::table* sub_table(Reader& r, const toml::table& root, std::string_view name) {
  const toml::node* node = root.get(name);
  if (node == nullptr) return nullptr;
  if (const auto* t = node->as_table()) return t;
  r.error(line_of(*node), fmt::format("'{}' must be a table", name),
          fmt::format("write it as a [{}] section", name));
  return nullptr;
}

void read_model(Reader& r, const toml::table& root, Config& c) {
  const auto* t = sub_table(r, root, "model");
  if (t == nullptr) return;
  check_keys(r, *t, "[model]", {"path"});
  std::string path;
  if (!read(r, *t, "[model]", "path", path)) return;
  if (path.empty()) {
    c.model_path.reset();
    return;
  }
  std::filesystem::path p(path);
  if (p.is_relative()) {
    const auto dir = std::filesystem::path(std::string(r.source)).parent_path();
    p = dir / p;
  }
  c.model_path = p.lexically_normal().string();
}

// [log] traces_per_site at most, like max_records (0: no limit).
constexpr std::int64_t kMaxTracesPerSite = 1'000'000'000;

void read_log(Reader& r, const toml::table& root, Config& c) {
  const auto* t = sub_table(r, root, "log");
  if (t == nullptr) return;
  check_keys(r, *t, "[log]",
             {"dir", "level", "buffer_records", "stack_depth", "max_records", "summary_entries",
              "max_bytes", "traces_per_site"});
  read(r, *t, "[log]", "dir", c.log_dir);
  std::string level;
  if (read(r, *t, "[log]", "level", level)) {
    if (auto l = log_level_from(level)) {
      c.log_level = *l;
    } else {
      r.error(line_of(*t->get("level")), fmt::format("unknown log level '{}' in [log]", level),
              fmt::format("valid: {}; using {}", kValidLogLevels, log_level_name(c.log_level)));
    }
  }
  read_bounded(r, *t, "[log]", "buffer_records", 16, 1'000'000, c.log_buffer_records);
  read_bounded(r, *t, "[log]", "stack_depth", 0, kMaxLogStackDepth, c.log_stack_depth);
  // Beyond a billion records per rank a trace is no longer something anyone reads.
  read_bounded(r, *t, "[log]", "max_records", 1, 1'000'000'000, c.log_max_records);
  // A million entries is ~200 MB per rank: the bound stops a typo from eating the node's memory.
  read_bounded(r, *t, "[log]", "summary_entries", 16, 1 << 20, c.log_summary_entries);
  // 0: no bound. A terabyte per rank is past any file system's patience.
  read_bounded(r, *t, "[log]", "max_bytes", 0, std::int64_t{1} << 40, c.log_max_bytes);
  read_bounded(r, *t, "[log]", "traces_per_site", 0, kMaxTracesPerSite, c.log_traces_per_site);
}

void read_enable(Reader& r, const toml::table& root, Config& c) {
  const auto* t = sub_table(r, root, "enable");
  if (t == nullptr) return;
  check_keys(r, *t, "[enable]", {"bcast", "scatter", "alltoall"});
  for (Collective coll : kCollectives) {
    read(r, *t, "[enable]", collective_name(coll), c.policy.of(coll).enabled);
  }
}

void read_override(Reader& r, const toml::table& root, Config& c) {
  const auto* t = sub_table(r, root, "override");
  if (t == nullptr) return;
  check_keys(r, *t, "[override]", {"bcast", "scatter", "alltoall", "segment_bytes", "window"});
  for (Collective coll : kCollectives) {
    std::string name;
    if (!read(r, *t, "[override]", collective_name(coll), name)) continue;
    if (valid_override(coll, name)) {
      c.policy.of(coll).force = name;
    } else {
      r.error(line_of(*t->get(collective_name(coll))),
              fmt::format("unknown algorithm '{}' in [override]", name),
              fmt::format("valid: {}; using the model's choice instead", valid_overrides(coll)));
    }
  }
  std::int64_t segment = 0;
  if (read(r, *t, "[override]", "segment_bytes", segment)) {
    if (segment > 0) {
      c.policy.segment_bytes = static_cast<std::uint64_t>(segment);
    } else {
      r.error(line_of(*t->get("segment_bytes")),
              fmt::format("segment_bytes = {} in [override] must be positive", segment),
              "use a size in bytes such as 8192, or remove it to let the model choose");
    }
  }
  std::int64_t window = 0;
  if (read(r, *t, "[override]", "window", window)) {
    if (window > 0 && window <= INT_MAX) {
      c.policy.window = static_cast<int>(window);
    } else {
      r.error(line_of(*t->get("window")),
              fmt::format("window = {} in [override] must be a positive count", window),
              "use e.g. 4 (exchanges in flight), or remove it to let the model choose");
    }
  }
}

void read_selection(Reader& r, const toml::table& root, Config& c) {
  const auto* t = sub_table(r, root, "selection");
  if (t == nullptr) return;
  check_keys(r, *t, "[selection]", {"segment_unit_bytes"});
  std::int64_t unit = 0;
  if (read(r, *t, "[selection]", "segment_unit_bytes", unit)) {
    if (unit > 0) {
      c.policy.segment_unit_bytes = static_cast<std::uint64_t>(unit);
    } else {
      r.error(line_of(*t->get("segment_unit_bytes")),
              fmt::format("segment_unit_bytes = {} in [selection] must be positive", unit),
              fmt::format("use e.g. 8; using {}", c.policy.segment_unit_bytes));
    }
  }
}

// A number key of [adapt] that must lie in [lo, hi] (integers are taken as numbers too).
void read_factor(Reader& r, const toml::table& t, std::string_view key, double lo, double hi,
                 double& target) {
  const toml::node* node = t.get(key);
  if (node == nullptr) return;
  const std::optional<double> v = node->value<double>();
  if (v && *v >= lo && *v <= hi) {
    target = *v;
    return;
  }
  r.error(line_of(*node), fmt::format("{} in [adapt] must be a number from {} to {}", key, lo, hi),
          fmt::format("write e.g. {} = {}; using {}", key, target, target));
}

constexpr std::string_view kValidAdaptModes = "off, monitor, explore, exhaustive";

void read_adapt(Reader& r, const toml::table& root, Config& c) {
  const auto* t = sub_table(r, root, "adapt");
  if (t == nullptr) return;
  check_keys(r, *t, "[adapt]",
             {"mode", "threshold", "candidate_factor", "max_candidates", "trial_calls",
              "hysteresis", "significance", "max_trial_calls", "abandon_factor", "tie_margin",
              "agree_lag_s", "try_segments", "first_checkpoint", "learned"});
  AdaptSettings& a = c.adapt;
  std::string mode;
  if (read(r, *t, "[adapt]", "mode", mode)) {
    if (auto m = adapt_mode_from(mode)) {
      a.mode = *m;
    } else {
      r.error(line_of(*t->get("mode")), fmt::format("unknown mode '{}' in [adapt]", mode),
              fmt::format("valid: {}; using {}", kValidAdaptModes, adapt_mode_name(a.mode)));
    }
  }
  read_factor(r, *t, "threshold", 0.0, 1e6, a.threshold);
  read_factor(r, *t, "candidate_factor", 1.0, 1e6, a.candidate_factor);
  read_factor(r, *t, "hysteresis", 0.0, 0.9, a.hysteresis);
  read_factor(r, *t, "significance", 0.0, 10.0, a.significance);
  read_factor(r, *t, "abandon_factor", 1.0, 1e6, a.abandon_factor);
  read_factor(r, *t, "tie_margin", 0.0, 1.0, a.tie_margin);
  read_factor(r, *t, "agree_lag_s", 0.0, 60.0, a.agree_lag_s);
  // Bounded so that a typo cannot turn exploration into most of a job.
  read_bounded(r, *t, "[adapt]", "max_candidates", 0, 16, a.max_candidates);
  read_bounded(r, *t, "[adapt]", "trial_calls", 1, 100, a.trial_calls);
  read_bounded(r, *t, "[adapt]", "max_trial_calls", 1, 1000, a.max_trial_calls);
  read_bounded(r, *t, "[adapt]", "first_checkpoint", kMinFirstCheckpoint, kMaxFirstCheckpoint,
               a.first_checkpoint);
  // Below trial_calls it would cut the trial short: the monitor takes the larger of the two.
  read(r, *t, "[adapt]", "try_segments", a.try_segments);
  std::string learned;
  if (read(r, *t, "[adapt]", "learned", learned) && !learned.empty()) {
    std::filesystem::path p(learned);
    if (p.is_relative()) p = std::filesystem::path(std::string(r.source)).parent_path() / p;
    a.learned_path = p.lexically_normal().string();
  }
}

// Bounds of [runtime] max_private_comms: 0 serves no communicator at all; MPICH has 2048 context
// ids per process, so more than 1024 private ones would leave the program too few.
constexpr std::int64_t kMaxPrivateCommsLimit = 1024;
// The attribute holding the count keeps it in the bits of a pointer: far more than enough.
constexpr std::int64_t kServeFromCallLimit = 1'000'000'000;

void read_runtime(Reader& r, const toml::table& root, Config& c) {
  const auto* t = sub_table(r, root, "runtime");
  if (t == nullptr) return;
  check_keys(r, *t, "[runtime]", {"max_private_comms", "serve_from_call"});
  read_bounded(r, *t, "[runtime]", "max_private_comms", 0, kMaxPrivateCommsLimit,
               c.max_private_comms);
  read_bounded(r, *t, "[runtime]", "serve_from_call", 1, kServeFromCallLimit, c.serve_from_call);
}

void env_force(Config& c, const EnvMap& env, std::string_view var, Collective coll,
               Diagnostics& out) {
  const auto it = env.find(var);
  if (it == env.end() || it->second.empty()) return;
  if (valid_override(coll, it->second)) {
    c.policy.of(coll).force = it->second;
    return;
  }
  out.push_back({Diagnostic::Severity::error, std::string(kEnvironment), 0,
                 fmt::format("{}: unknown algorithm '{}'", var, it->second),
                 fmt::format("valid: {}; using the model's choice instead", valid_overrides(coll))});
}

// A count from 0 to `max` in `var` into `target`; a bad value is one error, `target` kept.
template <class T>
void env_count(const EnvMap& env, std::string_view var, std::int64_t max,
               std::string_view example, T& target, Diagnostics& out) {
  const auto it = env.find(var);
  if (it == env.end() || it->second.empty()) return;
  if (auto v = count_up_to(it->second, static_cast<std::uint64_t>(max))) {
    target = static_cast<T>(*v);
    return;
  }
  out.push_back({Diagnostic::Severity::error, std::string(kEnvironment), 0,
                 fmt::format("{}: '{}' is not a count from 0 to {}", var, it->second, max),
                 fmt::format("use e.g. {}; using {}", example, target)});
}

void env_disable(Config& c, const std::string& value, Diagnostics& out) {
  std::string_view rest = value;
  while (!rest.empty()) {
    const auto comma = rest.find(',');
    const std::string_view item = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
    if (item.empty()) continue;
    if (item == "all" || item == "1") {
      for (Collective coll : kCollectives) c.policy.of(coll).enabled = false;
    } else if (auto coll = collective_from_name(item)) {
      c.policy.of(*coll).enabled = false;
    } else {
      out.push_back({Diagnostic::Severity::error, std::string(kEnvironment), 0,
                     fmt::format("{}: unknown collective '{}'", kEnvDisable, item),
                     "valid: bcast, scatter, alltoall, all (comma-separated)"});
    }
  }
}

}  // namespace

std::optional<std::string> read_text_file(const std::string& path, std::string& error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = std::strerror(errno);
    return std::nullopt;
  }
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}


std::string_view log_level_name(LogLevel l) {
  switch (l) {
    case LogLevel::trace:
      return "trace";
    case LogLevel::summary:
      return "summary";
    case LogLevel::off:
      break;
  }
  return "off";
}

EnvMap read_collsel_env() {
  EnvMap env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    std::string_view entry(*e);
    if (!entry.starts_with("COLLSEL_")) continue;
    const auto eq = entry.find('=');
    if (eq == std::string_view::npos) continue;
    env.emplace(std::string(entry.substr(0, eq)), std::string(entry.substr(eq + 1)));
  }
  return env;
}

ConfigLoad parse_config(std::string_view text, std::string_view source) {
  ConfigLoad load;
  load.config.source = std::string(source);
  Reader r{source, load.diagnostics};
  const std::optional<toml::table> parsed = toml_input::parse(
      r, text,
      "fix the syntax; until then the whole file is ignored and the built-in defaults apply");
  if (!parsed) return load;
  const toml::table& root = *parsed;
  check_keys(r, root, "the top level", {"model", "log", "enable", "override", "selection", "adapt", "runtime"});
  read_model(r, root, load.config);
  read_log(r, root, load.config);
  read_enable(r, root, load.config);
  read_override(r, root, load.config);
  read_selection(r, root, load.config);
  read_adapt(r, root, load.config);
  read_runtime(r, root, load.config);
  return load;
}

void apply_env(Config& c, const EnvMap& env, Diagnostics& out) {
  if (auto it = env.find(kEnvModel); it != env.end()) {
    if (it->second.empty()) {
      c.model_path.reset();
    } else {
      c.model_path = it->second;
    }
  }
  if (auto it = env.find(kEnvLogDir); it != env.end() && !it->second.empty()) {
    c.log_dir = it->second;
  }
  if (auto it = env.find(kEnvLogLevel); it != env.end() && !it->second.empty()) {
    if (auto l = log_level_from(it->second)) {
      c.log_level = *l;
    } else {
      out.push_back({Diagnostic::Severity::error, std::string(kEnvironment), 0,
                     fmt::format("{}: unknown log level '{}'", kEnvLogLevel, it->second),
                     fmt::format("valid: {}; using {}", kValidLogLevels,
                                 log_level_name(c.log_level))});
    }
  }
  env_count(env, kEnvLogTracesPerSite, kMaxTracesPerSite, "32 (0: no limit)",
            c.log_traces_per_site, out);
  env_force(c, env, kEnvForceBcast, Collective::bcast, out);
  env_force(c, env, kEnvForceScatter, Collective::scatter, out);
  env_force(c, env, kEnvForceAlltoall, Collective::alltoall, out);
  if (auto it = env.find(kEnvWindow); it != env.end() && !it->second.empty()) {
    if (auto v = positive_integer(it->second); v && *v <= INT_MAX) {
      c.policy.window = static_cast<int>(*v);
    } else {
      out.push_back({Diagnostic::Severity::error, std::string(kEnvironment), 0,
                     fmt::format("{}: '{}' is not a positive count", kEnvWindow, it->second),
                     "use e.g. 4; the model chooses the window meanwhile"});
    }
  }
  if (auto it = env.find(kEnvSegmentBytes); it != env.end() && !it->second.empty()) {
    if (auto v = positive_integer(it->second)) {
      c.policy.segment_bytes = *v;
    } else {
      out.push_back({Diagnostic::Severity::error, std::string(kEnvironment), 0,
                     fmt::format("{}: '{}' is not a positive number of bytes", kEnvSegmentBytes,
                                 it->second),
                     "use e.g. 8192; the model chooses the segment size meanwhile"});
    }
  }
  if (auto it = env.find(kEnvDisable); it != env.end()) env_disable(c, it->second, out);
  if (auto it = env.find(kEnvAdapt); it != env.end() && !it->second.empty()) {
    if (auto m = adapt_mode_from(it->second)) {
      c.adapt.mode = *m;
    } else {
      out.push_back({Diagnostic::Severity::error, std::string(kEnvironment), 0,
                     fmt::format("{}: unknown mode '{}'", kEnvAdapt, it->second),
                     fmt::format("valid: {}; using {}", kValidAdaptModes,
                                 adapt_mode_name(c.adapt.mode))});
    }
  }
  if (auto it = env.find(kEnvLearned); it != env.end()) c.adapt.learned_path = it->second;
  // 0 is valid here: no communicator served.
  env_count(env, kEnvMaxPrivateComms, kMaxPrivateCommsLimit, "64", c.max_private_comms, out);
  if (auto it = env.find(kEnvServeFromCall); it != env.end() && !it->second.empty()) {
    if (auto v = positive_integer(it->second);
        v && *v <= static_cast<std::uint64_t>(kServeFromCallLimit)) {
      c.serve_from_call = *v;
    } else {
      out.push_back({Diagnostic::Severity::error, std::string(kEnvironment), 0,
                     fmt::format("{}: '{}' is not a count from 1 to {}", kEnvServeFromCall,
                                 it->second, kServeFromCallLimit),
                     fmt::format("use e.g. 2; using {}", c.serve_from_call)});
    }
  }
}

ConfigLoad resolve_config(const ConfigInputs& in) {
  ConfigLoad load;
  if (in.config_text) {
    load = parse_config(*in.config_text, in.config_path);
  } else if (!in.config_path.empty() && in.config_path_from_env) {
    load.diagnostics.push_back(
        {Diagnostic::Severity::error, in.config_path, 0,
         fmt::format("cannot read the config file ({})", in.config_read_error),
         fmt::format("check {}; using the built-in defaults", kEnvConfig)});
  }
  apply_env(load.config, in.env, load.diagnostics);
  return load;
}

ConfigInputs gather_config_inputs() {
  ConfigInputs in;
  in.env = read_collsel_env();
  if (auto it = in.env.find(kEnvConfig); it != in.env.end() && !it->second.empty()) {
    in.config_path = it->second;
    in.config_path_from_env = true;
  } else {
    in.config_path = std::string(conf::installed_config_path());
  }
  in.config_text = read_text_file(in.config_path, in.config_read_error);
  return in;
}

}  // namespace collsel
