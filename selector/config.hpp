// The user's configuration: a TOML file (COLLSEL_CONFIG, else the installed default) plus
// environment overrides. Parsing is pure and deterministic: rank 0 reads the file and the
// environment, broadcasts the raw text, and every rank parses the same bytes into the same Config
// (STYLE.md 8.7 #28). Keys and defaults: docs/CONFIG.md and conf/collsel.toml.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "models/diagnostic.hpp"
#include "selector/adapt.hpp"
#include "selector/policy.hpp"

namespace collsel {

// trace: one record per call (up to Config::log_max_records per rank, then summarised);
// summary: per call site aggregates only; off: no log. docs/CONFIG.md, docs/LOGS.md.
enum class LogLevel { off, summary, trace };
std::string_view log_level_name(LogLevel l);

// Frames captured per call site at most (the shim's pmpi::kMaxStackDepth, which is checked equal):
// eight frames reach past any wrapper layer a solver puts around MPI while keeping a record small.
inline constexpr int kMaxLogStackDepth = 8;

struct Config {
  std::string source = "<built-in defaults>";  // the config file this came from
  std::optional<std::string> model_path;       // calibrated model; empty: the embedded default
  std::string log_dir = "collsel-logs";
  LogLevel log_level = LogLevel::trace;
  // Accepted for older configs and ignored: records reach the file as they are made (issue 20).
  std::uint32_t log_buffer_records = 4096;
  int log_stack_depth = 4;  // frames per call site; 0: no call sites (the cheapest logging)
  // The trace cap per rank. A call record is ~0.25 KB of JSON: 100000 of them are ~25 MB per rank,
  // enough for any per-shape statistics; the calls beyond still count, in the summary table.
  std::uint64_t log_max_records = 100'000;
  // Entries of the summary table, allocated at start-up (~200 bytes each: 4096 = ~800 KiB).
  std::uint32_t log_summary_entries = 4096;
  // Level trace: calls traced per call site x collective x algorithm x comm size x size bucket (the
  // summary table's key) before the later ones are summarised; 0: no limit. Bounds the traces by
  // the program's distinct call shapes instead of its length (docs/LOGS.md, "Sizes").
  std::uint64_t log_traces_per_site = 32;
  // A rank's log file at most (0: no bound): traces stop at 3/4 of it, summaries at all of it, so
  // 1,024 ranks write at most 4 GiB by default whatever the job does (docs/LOGS.md).
  std::uint64_t log_max_bytes = std::uint64_t{4} << 20;
  // [runtime] max_private_comms: private communicators collsel holds at most per process. User
  // communicators over one group share one (pmpi/private_comms.hpp); beyond the bound a new
  // group's communicators run native. Each one held is a context id the program cannot use.
  int max_private_comms = 64;
  // [runtime] serve_from_call: a communicator other than MPI_COMM_WORLD is served from its k-th
  // intercepted collective call (from the first for a collective with a forced algorithm); the
  // calls before run native and are counted (`uncovered` records), not traced. 2 by default:
  // binding a communicator costs about a native 1-byte Bcast, which a communicator used once
  // never earns back (docs/BENCHMARKS.md, "A new communicator's cost").
  std::uint64_t serve_from_call = 2;
  Policy policy;
  AdaptSettings adapt;
};

// The environment variables collsel reads, by name. Only these are looked at.
inline constexpr std::string_view kEnvConfig = "COLLSEL_CONFIG";
inline constexpr std::string_view kEnvModel = "COLLSEL_MODEL";
inline constexpr std::string_view kEnvLogDir = "COLLSEL_LOG_DIR";
inline constexpr std::string_view kEnvLogLevel = "COLLSEL_LOG_LEVEL";
inline constexpr std::string_view kEnvLogTracesPerSite = "COLLSEL_LOG_TRACES_PER_SITE";
inline constexpr std::string_view kEnvForceBcast = "COLLSEL_FORCE_BCAST";
inline constexpr std::string_view kEnvForceScatter = "COLLSEL_FORCE_SCATTER";
inline constexpr std::string_view kEnvForceAlltoall = "COLLSEL_FORCE_ALLTOALL";
inline constexpr std::string_view kEnvWindow = "COLLSEL_WINDOW";
inline constexpr std::string_view kEnvSegmentBytes = "COLLSEL_SEGMENT_BYTES";
inline constexpr std::string_view kEnvDisable = "COLLSEL_DISABLE";
inline constexpr std::string_view kEnvAdapt = "COLLSEL_ADAPT";  // off, monitor, explore, exhaustive
inline constexpr std::string_view kEnvLearned = "COLLSEL_LEARNED";  // a learned table to start from
inline constexpr std::string_view kEnvMaxPrivateComms = "COLLSEL_MAX_PRIVATE_COMMS";
inline constexpr std::string_view kEnvServeFromCall = "COLLSEL_SERVE_FROM_CALL";

using EnvMap = std::map<std::string, std::string, std::less<>>;
// The COLLSEL_* variables of this process's environment.
EnvMap read_collsel_env();

struct ConfigLoad {
  Config config;
  Diagnostics diagnostics;
};

// Parses a config file's text. Unknown keys, wrong types, unknown algorithm names and bad values
// each give one diagnostic (file, line, problem, fix, valid values) and leave that one setting at
// its default; the rest of the file still applies. A relative model path is taken relative to the
// config file's directory.
ConfigLoad parse_config(std::string_view text, std::string_view source);

// Applies the environment on top of `config` (environment wins), reporting bad values with
// file "environment" and the variable's name in the problem. A relative COLLSEL_MODEL is taken
// relative to the working directory.
void apply_env(Config& config, const EnvMap& env, Diagnostics& diagnostics);

// Everything rank 0 gathers, as raw text, so all ranks can run the same resolve().
struct ConfigInputs {
  std::string config_path;                 // empty: no file (built-in defaults)
  std::optional<std::string> config_text;  // nullopt: the file could not be read
  std::string config_read_error;           // strerror text when config_text is nullopt
  bool config_path_from_env = false;       // a missing default file is not an error
  EnvMap env;
};

ConfigLoad resolve_config(const ConfigInputs& inputs);
// The whole file at `path`; empty with `error` set to strerror's sentence when it cannot be read.
// The one reader of the shim's and the tools' text inputs (config, model, tuning bases).
std::optional<std::string> read_text_file(const std::string& path, std::string& error);

// Reads the files/environment of this process into ConfigInputs (rank 0 only in the shim).
ConfigInputs gather_config_inputs();

}  // namespace collsel
