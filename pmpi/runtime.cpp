#include "pmpi/runtime.hpp"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <mutex>
#include <optional>
#include <set>
#include <span>

#include <fmt/format.h>

#include "conf/embedded.hpp"
#include "models/model_file.hpp"
#include "pmpi/call_log.hpp"
#include "pmpi/call_site.hpp"
#include "pmpi/comm_context.hpp"
#include "selector/config.hpp"
#include "selector/registry.hpp"

namespace collsel::pmpi {

static_assert(kMaxStackDepth == kMaxLogStackDepth,
              "the config's [log] stack_depth bound must be what CallSite can hold");

namespace {

thread_local const char* t_last_algorithm = kNativeName.data();

// Everything rank 0 read, as raw text, so every rank can parse the same bytes (STYLE 8.7 #28).
struct BootPayload {
  ConfigInputs config;
  std::string model_path;
  std::optional<std::string> model_text;
  std::string model_read_error;
  std::string run_id;
};

class Packer {
 public:
  void put(std::string_view s) {
    const std::uint64_t n = s.size();
    bytes_.append(reinterpret_cast<const char*>(&n), sizeof n);
    bytes_.append(s);
  }
  void put_optional(const std::optional<std::string>& s) {
    put(s ? "1" : "0");
    put(s ? *s : std::string());
  }
  std::string& bytes() { return bytes_; }

 private:
  std::string bytes_;
};

class Unpacker {
 public:
  explicit Unpacker(std::string_view bytes) : rest_(bytes) {}
  std::string get() {
    std::uint64_t n = 0;
    std::memcpy(&n, rest_.data(), sizeof n);
    std::string s(rest_.substr(sizeof n, n));
    rest_.remove_prefix(sizeof n + n);
    return s;
  }
  std::optional<std::string> get_optional() {
    const bool present = get() == "1";
    std::string s = get();
    return present ? std::optional<std::string>(std::move(s)) : std::nullopt;
  }

 private:
  std::string_view rest_;
};

std::string pack(const BootPayload& p) {
  Packer out;
  out.put(p.config.config_path);
  out.put_optional(p.config.config_text);
  out.put(p.config.config_read_error);
  out.put(p.config.config_path_from_env ? "1" : "0");
  out.put(std::to_string(p.config.env.size()));
  for (const auto& [k, v] : p.config.env) {
    out.put(k);
    out.put(v);
  }
  out.put(p.model_path);
  out.put_optional(p.model_text);
  out.put(p.model_read_error);
  out.put(p.run_id);
  return std::move(out.bytes());
}

BootPayload unpack(std::string_view bytes) {
  Unpacker in(bytes);
  BootPayload p;
  p.config.config_path = in.get();
  p.config.config_text = in.get_optional();
  p.config.config_read_error = in.get();
  p.config.config_path_from_env = in.get() == "1";
  const auto entries = std::stoul(in.get());
  for (unsigned long i = 0; i < entries; ++i) {
    std::string k = in.get();
    p.config.env.emplace(std::move(k), in.get());
  }
  p.model_path = in.get();
  p.model_text = in.get_optional();
  p.model_read_error = in.get();
  p.run_id = in.get();
  return p;
}

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

int delete_context(MPI_Comm, int, void* attribute, void*) {
  delete static_cast<CommContext*>(attribute);
  return MPI_SUCCESS;
}

// MPI deletes MPI_COMM_SELF's attributes first thing in MPI_Finalize, also when the program
// calls PMPI_Finalize directly (mpi_f08, Open MPI's Fortran): the last chance to write the log.
int finalize_from_self(MPI_Comm, int, void*, void*) {
  runtime().finalize();
  return MPI_SUCCESS;
}

}  // namespace

struct Runtime::Impl {
  std::mutex init_mutex;
  std::atomic<bool> initialized{false};
  std::atomic<bool> finalized{false};
  int context_keyval = MPI_KEYVAL_INVALID;
  int self_keyval = MPI_KEYVAL_INVALID;
  int world_rank = 0;
  std::atomic<std::uint64_t> context_serial{0};
  double time_origin = 0.0;

  Config config;
  std::optional<models::ModelFile> calibrated;
  std::optional<models::ModelFile> fallback;
  ModelSet models;
  // The model in use simulates schedules ([contention] use != never): contexts then gather their
  // ranks' placement. Equal on all ranks, like the model it comes from.
  bool placement_wanted = false;
  std::unique_ptr<CallLog> log;
  // Set when the run is logged with stack_depth > 0: captures each logged call's site.
  std::unique_ptr<const CallSiteCapture> sites;

  std::mutex notes_mutex;
  std::set<Collective> noted;  // collectives whose decision note was printed already

  // Lazy start for programs whose MPI_Init we did not see (mpi_f08 calls PMPI_Init directly): the
  // first intercepted call's communicator carries the start-up exchange.
  bool ready(MPI_Comm comm) {
    if (finalized.load(std::memory_order_acquire)) return false;
    if (initialized.load(std::memory_order_acquire)) return true;
    std::lock_guard lock(init_mutex);
    if (initialized.load()) return true;
    int is_initialized = 0, is_finalized = 0;
    PMPI_Initialized(&is_initialized);
    PMPI_Finalized(&is_finalized);
    if (!is_initialized || is_finalized) return false;
    start(comm);
    return true;
  }

  void start(MPI_Comm comm);
  void load(const BootPayload& payload, bool speaker);
  void open_log(MPI_Comm boot, const std::string& run_id, bool speaker);

  CommContext& context(MPI_Comm comm) {
    void* attribute = nullptr;
    int found = 0;
    PMPI_Comm_get_attr(comm, context_keyval, &attribute, &found);
    if (found) return *static_cast<CommContext*>(attribute);
    auto* created =
        new CommContext(comm, world_rank, context_serial.fetch_add(1), placement_wanted);
    PMPI_Comm_set_attr(comm, context_keyval, created);
    return *created;
  }

  const Choice& choose(CommContext& ctx, const CallShape& shape) {
    if (const Choice* c = ctx.cached(shape)) return *c;
    const Decision d = decide(shape, models, config.policy, ctx.placement());
    // Only an override that could not be honoured is news to the user; a disabled collective or
    // a model's choice is what they asked for.
    if (!d.note.empty() && config.policy.of(shape.coll).force && ctx.rank() == 0) {
      note_once(shape.coll, d.note);
    }
    return ctx.remember(shape, {d.winner, d.params(), d.rung, d.predicted_s(), d.simulated()});
  }

  // The one path of every served call once its shape is known: decide (cached), run the chosen
  // algorithm of `registry` on the private communicator or `native()`, log the call.
  template <class Call, class Native>
  int serve(CommContext& ctx, const CallShape& shape, double start,
            std::span<const Algorithm<Call>> registry, const Call& call, Native native) {
    const Choice& choice = choose(ctx, shape);
    std::string_view name = kNativeName;
    int rc = MPI_SUCCESS;
    if (choice.algorithm < 0) {
      rc = native();
    } else {
      const auto& algorithm = registry[static_cast<std::size_t>(choice.algorithm)];
      name = algorithm.view.name;
      rc = algorithm.run(call, choice.params);
    }
    record(ctx, shape, choice, name, start, PMPI_Wtime());
    return rc;
  }

  void note_once(Collective coll, const std::string& note) {
    std::lock_guard lock(notes_mutex);
    if (!noted.insert(coll).second) return;
    fmt::print(stderr, "collsel: {}: {}; further such calls are not reported\n",
               collective_name(coll), note);
  }

  void record(CommContext& ctx, const CallShape& shape, const Choice& choice,
              std::string_view algorithm, double start, double end) {
    t_last_algorithm = algorithm.data();
    const std::uint64_t seq = ctx.next_seq();
    if (!log) return;
    CallRecord r;
    std::memcpy(r.comm.data(), ctx.id(), r.comm.size());
    r.comm_rank = ctx.rank();
    r.comm_size = ctx.size();
    r.seq = seq;
    r.coll = shape.coll;
    r.bytes = shape.bytes;
    r.root = shape.root;
    r.algorithm = algorithm;
    r.segment_bytes = choice.params.segment_bytes;
    r.window = choice.params.window;
    r.rung = choice.rung;
    r.predicted_s = choice.predicted_s;
    r.simulated = choice.simulated;
    r.actual_s = end - start;
    r.start_s = start - time_origin;
    // Captured after `end` so the unwind is not part of actual_s. The frames between here and the
    // user's call (ours and the MPI library's) are skipped by the capture itself.
    if (sites) r.site = sites->capture();
    log->add(r);
  }
};

void Runtime::Impl::start(MPI_Comm comm) {
  PMPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  time_origin = PMPI_Wtime();
  // Contexts are not inherited by MPI_Comm_dup: a duplicate needs its own private communicator.
  PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_context, &context_keyval, nullptr);
  PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, finalize_from_self, &self_keyval, nullptr);
  PMPI_Comm_set_attr(MPI_COMM_SELF, self_keyval, nullptr);

  // The start-up exchange runs on a private duplicate, never on the user's communicator.
  MPI_Comm boot = MPI_COMM_NULL;
  PMPI_Comm_dup(comm, &boot);
  int rank = 0;
  PMPI_Comm_rank(boot, &rank);
  std::string bytes;
  if (rank == 0) {
    BootPayload p;
    p.config = gather_config_inputs();
    const ConfigLoad resolved = resolve_config(p.config);
    if (resolved.config.model_path) {
      p.model_path = *resolved.config.model_path;
      p.model_text = read_text_file(p.model_path, p.model_read_error);
    }
    p.run_id = make_run_id();
    bytes = pack(p);
  }
  broadcast_string(bytes, 0, boot);
  const BootPayload payload = unpack(bytes);
  load(payload, rank == 0);
  open_log(boot, payload.run_id, rank == 0);
  PMPI_Comm_free(&boot);
  initialized.store(true, std::memory_order_release);
}

void Runtime::Impl::load(const BootPayload& payload, bool speaker) {
  ConfigLoad resolved = resolve_config(payload.config);
  config = std::move(resolved.config);
  Diagnostics diagnostics = std::move(resolved.diagnostics);

  const std::string_view fallback_consequence = "; using the embedded default model instead";
  if (config.model_path) {
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
      calibrated = std::move(m.model);
      diagnostics.insert(diagnostics.end(), m.diagnostics.begin(), m.diagnostics.end());
    }
  }
  models::ModelLoad embedded =
      models::parse_model(conf::embedded_default_model(), conf::kEmbeddedModelName);
  fallback = std::move(embedded.model);
  diagnostics.insert(diagnostics.end(), embedded.diagnostics.begin(), embedded.diagnostics.end());

  models.calibrated = calibrated ? &*calibrated : nullptr;
  models.fallback = fallback ? &*fallback : nullptr;
  const models::ModelFile* in_use = models.calibrated ? models.calibrated : models.fallback;
  placement_wanted = in_use != nullptr && in_use->contention &&
                     in_use->contention->use != models::contention::Use::never;
  if (speaker) {
    for (const Diagnostic& d : diagnostics) fmt::print(stderr, "{}\n", d.format());
  }
}

void Runtime::Impl::open_log(MPI_Comm boot, const std::string& run_id, bool speaker) {
  if (config.log_level == LogLevel::off) return;
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
               calibrated ? *config.model_path
                          : (fallback ? std::string(conf::kEmbeddedModelName) : "none"),
               config.log_level,
               config.log_stack_depth,
               config.log_max_records};
  const auto path = dir / fmt::format("rank-{:05d}.jsonl", world_rank);
  if (ec) {
    error = fmt::format("cannot create {} ({})", dir.string(), ec.message());
  } else {
    // Any failure to set the log up (allocation, the loaded-object scan) means "not logged",
    // agreed below like an unwritable folder, never a failed MPI_Init.
    try {
      log = std::make_unique<CallLog>(path.string(), info, config.log_buffer_records,
                                      config.log_summary_entries, error);
      if (error.empty() && config.log_stack_depth > 0) {
        sites = std::make_unique<const CallSiteCapture>(config.log_stack_depth);
      }
    } catch (const std::exception& e) {
      error = fmt::format("cannot set up the log ({})", e.what());
    }
  }

  // All ranks agree whether the run is logged, and the first failure is reported once.
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
  sites.reset();
  if (log) {
    log.reset();
    std::filesystem::remove(path, ec);
  }
}

Runtime::Runtime() : impl_(std::make_unique<Impl>()) {}
Runtime::~Runtime() = default;

void Runtime::initialize() {
  std::lock_guard lock(impl_->init_mutex);
  if (impl_->initialized.load()) return;
  impl_->start(MPI_COMM_WORLD);
}

void Runtime::finalize() {
  Impl& I = *impl_;
  if (!I.initialized.load() || I.finalized.exchange(true)) return;
  if (I.log) I.log->close();
}

void Runtime::release_world() {
  // Frees MPI_COMM_WORLD's private duplicate while MPI is still fully up, rather than from an
  // attribute callback in the middle of PMPI_Finalize.
  if (impl_->context_keyval != MPI_KEYVAL_INVALID) {
    PMPI_Comm_delete_attr(MPI_COMM_WORLD, impl_->context_keyval);
  }
}

int Runtime::bcast(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  Impl& I = *impl_;
  int type_size = 0;
  int inter = 0;
  // Anything unusual goes to the native routine, which also reports the user's errors.
  if (comm == MPI_COMM_NULL || buffer == MPI_IN_PLACE || count < 0 || !I.ready(comm) ||
      PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter ||
      PMPI_Type_size(type, &type_size) != MPI_SUCCESS) {
    t_last_algorithm = kNativeName.data();
    return PMPI_Bcast(buffer, count, type, root, comm);
  }
  const double start = PMPI_Wtime();
  CommContext& ctx = I.context(comm);
  if (root < 0 || root >= ctx.size()) return PMPI_Bcast(buffer, count, type, root, comm);
  const CallShape shape{Collective::bcast, ctx.size(),
                        static_cast<std::uint64_t>(count) * static_cast<std::uint64_t>(type_size),
                        root};
  return I.serve(ctx, shape, start, bcast_registry(),
                 BcastCall{buffer, count, type, root, ctx.comm(), ctx.rank(), ctx.size()},
                 [&] { return PMPI_Bcast(buffer, count, type, root, comm); });
}

int Runtime::scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                     int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  Impl& I = *impl_;
  const auto native = [&] {
    t_last_algorithm = kNativeName.data();
    return PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
  };
  int inter = 0;
  if (comm == MPI_COMM_NULL || !I.ready(comm) ||
      PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter) {
    return native();
  }
  const double start = PMPI_Wtime();
  CommContext& ctx = I.context(comm);
  if (root < 0 || root >= ctx.size()) return native();
  const bool is_root = ctx.rank() == root;
  // Only the significant arguments count: the root's send side, everyone else's receive side.
  const int count = is_root ? sendcount : recvcount;
  const MPI_Datatype type = is_root ? sendtype : recvtype;
  int type_size = 0;
  if (count < 0 || PMPI_Type_size(type, &type_size) != MPI_SUCCESS ||
      (!is_root && recvbuf == MPI_IN_PLACE)) {
    return native();
  }
  const CallShape shape{Collective::scatter, ctx.size(),
                        static_cast<std::uint64_t>(count) * static_cast<std::uint64_t>(type_size),
                        root};
  return I.serve(ctx, shape, start, scatter_registry(),
                 ScatterCall{sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                             ctx.comm(), ctx.rank(), ctx.size()},
                 native);
}

int Runtime::alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                      int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  Impl& I = *impl_;
  const auto native = [&] {
    t_last_algorithm = kNativeName.data();
    return PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  };
  int inter = 0;
  if (comm == MPI_COMM_NULL || !I.ready(comm) ||
      PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter) {
    return native();
  }
  const double start = PMPI_Wtime();
  // MPI_IN_PLACE is given at all ranks or none (MPI 4.0 section 6.8), so the block size below is
  // rank-invariant either way.
  const bool in_place = sendbuf == MPI_IN_PLACE;
  const int count = in_place ? recvcount : sendcount;
  const MPI_Datatype type = in_place ? recvtype : sendtype;
  int type_size = 0;
  if (count < 0 || recvcount < 0 || PMPI_Type_size(type, &type_size) != MPI_SUCCESS) {
    return native();
  }
  CommContext& ctx = I.context(comm);
  const CallShape shape{Collective::alltoall, ctx.size(),
                        static_cast<std::uint64_t>(count) * static_cast<std::uint64_t>(type_size),
                        0};
  return I.serve(ctx, shape, start, alltoall_registry(),
                 AlltoallCall{sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                              ctx.comm(), ctx.rank(), ctx.size()},
                 native);
}

const char* Runtime::last_algorithm() { return t_last_algorithm; }

Runtime& runtime() {
  // Deliberately leaked: MPI may run attribute callbacks (finalize_from_self) during exit,
  // after static destructors would have run.
  static Runtime* instance = new Runtime();
  return *instance;
}

}  // namespace collsel::pmpi
