#include "pmpi/startup.hpp"

#include <unistd.h>

#include <climits>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "conf/embedded.hpp"
#include "flavour/flavour.hpp"

namespace collsel::pmpi {
namespace {

// Everything rank 0 read, as raw text, so every rank can parse the same bytes.
struct BootPayload {
  ConfigInputs config;
  std::string model_path;
  std::optional<std::string> model_text;
  std::string model_read_error;
  std::string learned_path;
  std::optional<std::string> learned_text;
  std::string learned_read_error;
  std::string run_id;
};

// The payload's fields, listed once for both directions: `f` is the packer on rank 0 and the
// unpacker on the others.
template <class F>
void each_field(BootPayload& p, F&& f) {
  f(p.config.config_path);
  f(p.config.config_text);
  f(p.config.config_read_error);
  f(p.config.config_path_from_env);
  f(p.config.env);
  f(p.model_path);
  f(p.model_text);
  f(p.model_read_error);
  f(p.learned_path);
  f(p.learned_text);
  f(p.learned_read_error);
  f(p.run_id);
}

// Length-prefixed fields in one byte string: one broadcast carries the whole payload.
struct Packer {
  std::string bytes;
  void operator()(std::string_view s) {
    const std::uint64_t n = s.size();
    bytes.append(reinterpret_cast<const char*>(&n), sizeof n);
    bytes.append(s);
  }
  void operator()(const std::string& s) { (*this)(std::string_view(s)); }
  void operator()(bool b) { (*this)(std::string_view(b ? "1" : "0")); }
  void operator()(const std::optional<std::string>& s) {
    (*this)(s.has_value());
    (*this)(s ? std::string_view(*s) : std::string_view());
  }
  void operator()(const EnvMap& env) {
    (*this)(std::to_string(env.size()));
    for (const auto& [k, v] : env) {
      (*this)(k);
      (*this)(v);
    }
  }
};

struct Unpacker {
  std::string_view rest;
  void operator()(std::string& s) {
    std::uint64_t n = 0;
    std::memcpy(&n, rest.data(), sizeof n);
    s.assign(rest.substr(sizeof n, n));
    rest.remove_prefix(sizeof n + n);
  }
  void operator()(bool& b) {
    std::string s;
    (*this)(s);
    b = s == "1";
  }
  void operator()(std::optional<std::string>& s) {
    bool present = false;
    std::string text;
    (*this)(present);
    (*this)(text);
    s = present ? std::optional<std::string>(std::move(text)) : std::nullopt;
  }
  void operator()(EnvMap& env) {
    std::string count;
    (*this)(count);
    for (unsigned long i = std::stoul(count); i > 0; --i) {
      std::string k, v;
      (*this)(k);
      (*this)(v);
      env.emplace(std::move(k), std::move(v));
    }
  }
};

std::string make_run_id() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &utc);
  return fmt::format("{}-p{}", stamp, static_cast<long>(getpid()));
}

// Broadcasts a string from `root` over `comm` (length first, then the bytes).
void broadcast_string(std::string& s, int root, MPI_Comm comm) {
  unsigned long long n = s.size();
  PMPI_Bcast(&n, 1, MPI_UNSIGNED_LONG_LONG, root, comm);
  s.resize(n);
  if (n > 0) PMPI_Bcast(s.data(), static_cast<int>(n), MPI_CHAR, root, comm);
}

// Rank 0 reads, everyone receives the same payload.
BootPayload exchange_payload(MPI_Comm boot, int rank) {
  BootPayload p;
  std::string bytes;
  if (rank == 0) {
    p.config = gather_config_inputs();
    const ConfigLoad resolved = resolve_config(p.config);
    if (resolved.config.model_path) {
      p.model_path = *resolved.config.model_path;
      p.model_text = read_text_file(p.model_path, p.model_read_error);
    }
    if (resolved.config.adapt.mode != AdaptMode::off) {
      p.learned_path = resolved.config.adapt.learned_path;
      if (!p.learned_path.empty()) {
        p.learned_text = read_text_file(p.learned_path, p.learned_read_error);
      }
    }
    p.run_id = make_run_id();
    Packer packer;
    each_field(p, packer);
    bytes = std::move(packer.bytes);
  }
  broadcast_string(bytes, 0, boot);
  if (rank != 0) each_field(p, Unpacker{bytes});
  return p;
}

// The config and the models, parsed from the payload identically on every rank; only the
// speaker prints the problems.
void load(const BootPayload& payload, bool speaker, Startup& s) {
  ConfigLoad resolved = resolve_config(payload.config);
  s.config = std::move(resolved.config);
  Diagnostics diagnostics = std::move(resolved.diagnostics);

  const std::string_view fallback_consequence = "; using the embedded default model instead";
  if (s.config.model_path) {
    if (!payload.model_text) {
      diagnostics.push_back({Diagnostic::Severity::error, payload.model_path, 0,
                             fmt::format("cannot read the model file ({})",
                                         payload.model_read_error),
                             fmt::format("check {} or [model] path in the config{}", kEnvModel,
                                         fallback_consequence)});
    } else {
      models::ModelLoad m = models::parse_model(*payload.model_text, payload.model_path);
      if (!m.model) {
        for (auto& d : m.diagnostics) {
          if (d.severity == Diagnostic::Severity::error) {
            d.fix += fallback_consequence;
            break;
          }
        }
      }
      s.calibrated = std::move(m.model);
      diagnostics.insert(diagnostics.end(), m.diagnostics.begin(), m.diagnostics.end());
    }
  }
  models::ModelLoad embedded =
      models::parse_model(conf::embedded_default_model(), conf::kEmbeddedModelName);
  s.fallback = std::move(embedded.model);
  diagnostics.insert(diagnostics.end(), embedded.diagnostics.begin(), embedded.diagnostics.end());

  const ModelSet models = s.models();
  const models::ModelFile* in_use = models.in_use();
  s.placement_wanted = in_use != nullptr && in_use->contention &&
                       in_use->contention->use != models::contention::Use::never;
  if (in_use != nullptr) s.model_name = in_use->name;
  if (!payload.learned_path.empty()) {
    if (!payload.learned_text) {
      diagnostics.push_back({Diagnostic::Severity::error, payload.learned_path, 0,
                             fmt::format("cannot read the learned table ({})",
                                         payload.learned_read_error),
                             fmt::format("check [adapt] learned in the config or {}; the model "
                                         "decides meanwhile",
                                         kEnvLearned)});
    } else {
      LearnedLoad l = parse_learned(*payload.learned_text, payload.learned_path, s.model_name);
      s.learned = std::move(l.table);
      diagnostics.insert(diagnostics.end(), l.diagnostics.begin(), l.diagnostics.end());
    }
  }
  if (speaker) {
    for (const Diagnostic& d : diagnostics) fmt::print(stderr, "{}\n", d.format());
  }
}

// Opens this rank's log; all ranks agree whether the run is logged, and the first failure is
// reported once.
void open_log(MPI_Comm boot, const std::string& run_id, int world_rank, bool speaker,
              Startup& s) {
  const Config& config = s.config;
  // `[log] level = "off"` promises no files: the learned table goes next to the logs only.
  if (config.log_level == LogLevel::off) return;
  if (config.adapt.mode != AdaptMode::off) {
    s.learned_out = (std::filesystem::path(config.log_dir) / run_id / "learned.toml").string();
  }
  int world_size = 1;
  PMPI_Comm_size(MPI_COMM_WORLD, &world_size);
  char host[MPI_MAX_PROCESSOR_NAME] = {};
  int host_length = 0;
  PMPI_Get_processor_name(host, &host_length);

  const std::filesystem::path dir = std::filesystem::path(config.log_dir) / run_id;
  std::string error;
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  RunInfo info{run_id,
               world_rank,
               world_size,
               std::string(host, static_cast<std::size_t>(host_length)),
               config.source,
               s.calibrated ? *config.model_path
                            : (s.fallback ? std::string(conf::kEmbeddedModelName) : "none"),
               config.log_level,
               config.log_stack_depth,
               config.log_max_records,
               std::string(flavour::name()),
               config.log_max_bytes,
               config.log_traces_per_site};
  const auto path = dir / fmt::format("rank-{:05d}.jsonl", world_rank);
  if (ec) {
    error = fmt::format("cannot create {} ({})", dir.string(), ec.message());
  } else {
    // Any failure to set the log up (allocation, the loaded-object scan) means "not logged",
    // agreed below like an unwritable folder, never a failed MPI_Init.
    try {
      s.log = std::make_unique<CallLog>(path.string(), info, config.log_summary_entries, error);
      if (error.empty() && config.log_stack_depth > 0) {
        s.sites = std::make_unique<const CallSiteCapture>(config.log_stack_depth);
      }
    } catch (const std::exception& e) {
      error = fmt::format("cannot set up the log ({})", e.what());
    }
  }

  int rank = 0;
  PMPI_Comm_rank(boot, &rank);
  int first_failure = error.empty() ? INT_MAX : rank;
  PMPI_Allreduce(MPI_IN_PLACE, &first_failure, 1, MPI_INT, MPI_MIN, boot);
  if (first_failure == INT_MAX) return;
  broadcast_string(error, first_failure, boot);
  if (speaker) {
    fmt::print(stderr,
               "collsel: {}: cannot write the log folder: {} (rank {}); set [log] dir in the "
               "config or {} to a writable folder; this run is not logged\n",
               config.log_dir, error, first_failure, kEnvLogDir);
  }
  s.sites.reset();
  if (s.log) {
    s.log.reset();
    std::filesystem::remove(path, ec);
  }
}

// COLLSEL_TEST_FAIL=STAGE@RANK (startup.hpp): this rank's stage, none for every other rank.
InjectedFailure injected_failure(int world_rank) {
  const char* value = std::getenv("COLLSEL_TEST_FAIL");
  if (value == nullptr) return InjectedFailure::none;
  const std::string_view text(value);
  const std::size_t at = text.find('@');
  if (at == std::string_view::npos || text.substr(at + 1) != std::to_string(world_rank)) {
    return InjectedFailure::none;
  }
  if (text.substr(0, at) == "bind") return InjectedFailure::bind;
  if (text.substr(0, at) == "context") return InjectedFailure::context;
  if (text.substr(0, at) == "decide") return InjectedFailure::decide;
  if (text.substr(0, at) == "schedule") return InjectedFailure::schedule;
  return InjectedFailure::none;
}

}  // namespace

Startup start_up(MPI_Comm comm, int world_rank) {
  Startup s;
  s.time_origin = PMPI_Wtime();
  // The start-up exchange runs on a private duplicate, never on the user's communicator.
  MPI_Comm boot = MPI_COMM_NULL;
  PMPI_Comm_dup(comm, &boot);
  int rank = 0;
  PMPI_Comm_rank(boot, &rank);
  const BootPayload payload = exchange_payload(boot, rank);
  load(payload, rank == 0, s);
  open_log(boot, payload.run_id, world_rank, rank == 0, s);
  // Tags on the shared private communicators are handed out by each group's rank 0 and used by
  // all its ranks: every rank takes the smallest upper bound.
  void* tag_ub = nullptr;
  int found = 0;
  PMPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &found);
  if (found) s.tag_ub = *static_cast<int*>(tag_ub);
  PMPI_Allreduce(MPI_IN_PLACE, &s.tag_ub, 1, MPI_INT, MPI_MIN, boot);
  PMPI_Comm_free(&boot);
  s.inject = injected_failure(world_rank);
  return s;
}

}  // namespace collsel::pmpi
