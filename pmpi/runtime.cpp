// The per-call path. Start-up (config, models, the log) is startup.cpp; per-communicator state is
// comm_context.cpp. Every collective enters through enter(): a rank-local check of its arguments,
// the communicator's context, the call's rank-invariant shape, then serve(): the cached decision's
// registry row (or the native routine), run on the private communicator, and the log record.
// Over 600 lines on purpose: Runtime::Impl, the one owned object of the shim's mutable state, is
// private to this unit; cutting the path in two would publish it in a header for one reader.
#include "pmpi/runtime.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <new>
#include <optional>
#include <set>
#include <span>
#include <utility>

#include <fmt/format.h>

#include "common/file_write.hpp"
#include "flavour/flavour.hpp"
#include "pmpi/call_log.hpp"
#include "pmpi/comm_context.hpp"
#include "pmpi/endings.hpp"
#include "pmpi/startup.hpp"
#include "pmpi/text_gather.hpp"
#include "pmpi/uncovered_counts.hpp"
#include "selector/adapt.hpp"
#include "selector/config.hpp"
#include "selector/registry.hpp"

namespace collsel::pmpi {

static_assert(kMaxStackDepth == kMaxLogStackDepth,
              "the config's [log] stack_depth bound must be what CallSite can hold");

namespace {

thread_local const char* t_last_algorithm = kNativeName.data();

// Before its [runtime] serve_from_call-th call a communicator has no context, only its call count
// stored in the attribute value itself, tagged by the low bit (a CommContext* has it clear): a
// communicator used once costs no allocation and no communication.
constexpr std::uintptr_t kCountTag = 1;
// A communicator this rank could not make a context for (an allocation failed before the
// binding's allreduce, which then made it native on every rank): its calls run native, unlogged
// on this rank, and it is never bound again. Neither a count (low bit clear) nor a CommContext*
// (aligned).
constexpr std::uintptr_t kNativeMarker = 2;

void* count_attribute(std::uint64_t calls) {
  return reinterpret_cast<void*>(static_cast<std::uintptr_t>(calls << 1) | kCountTag);
}

int delete_context(MPI_Comm, int, void* attribute, void*) {
  const auto value = reinterpret_cast<std::uintptr_t>(attribute);
  if ((value & kCountTag) != 0 || value == kNativeMarker) return MPI_SUCCESS;
  runtime().retire_context(static_cast<CommContext*>(attribute));
  return MPI_SUCCESS;
}

// MPI deletes MPI_COMM_SELF's attributes first thing in MPI_Finalize, also when the program
// calls PMPI_Finalize directly (mpi_f08, Open MPI's Fortran): the last chance to write the log.
int finalize_from_self(MPI_Comm, int, void*, void*) {
  runtime().finalize();
  return MPI_SUCCESS;
}

// A call collsel serves: its rank-invariant shape and the arguments its algorithms take.
template <class Call>
struct Served {
  CallShape shape;
  Call call;
};

// What the attribute of a communicator says about its coming call.
struct Found {
  CommContext* context = nullptr;  // the communicator's context, if it has one
  bool bind = false;               // none yet: this call binds it
  bool before_serving = false;     // before the serve_from_call-th call: native, counted
};

template <class Call>
constexpr Collective kCollectiveOf = Collective::bcast;
template <>
constexpr Collective kCollectiveOf<ScatterCall> = Collective::scatter;
template <>
constexpr Collective kCollectiveOf<AlltoallCall> = Collective::alltoall;

// Where a call run native before its communicator was served is counted (pmpi/uncovered_counts).
constexpr uncovered::Id before_serving_id(Collective c) {
  switch (c) {
    case Collective::bcast:
      return uncovered::Id::bcast_before_serving;
    case Collective::scatter:
      return uncovered::Id::scatter_before_serving;
    case Collective::alltoall:
      return uncovered::Id::alltoall_before_serving;
  }
  return uncovered::Id::bcast_before_serving;
}

// A communicator's first served call: its new context, and the state of the call's shape as the
// binding's allreduce agreed it (nullptr: the call decides it in choose()).
struct FirstCall {
  CommContext* context = nullptr;  // nullptr: this rank keeps no context (kNativeMarker)
  ShapeState* state = nullptr;
};

}  // namespace

struct Runtime::Impl {
  std::mutex init_mutex;
  std::atomic<bool> initialized{false};
  std::atomic<bool> finalized{false};
  int context_keyval = MPI_KEYVAL_INVALID;
  int self_keyval = MPI_KEYVAL_INVALID;
  int world_rank = 0;
  std::atomic<std::uint64_t> context_serial{0};
  Startup boot;  // read-only once `initialized`
  ModelSet models;
  // The private communicators, shared by the user communicators over one group.
  std::unique_ptr<PrivateComms> private_comms;

  std::mutex notes_mutex;
  std::set<Collective> noted;  // collectives whose decision note was printed already
  std::atomic<bool> local_failure_noted{false};
  // What choose() hands out when the ranks could not agree on a decision: the native routine
  // (an empty ranking, no monitor). Never modified, so threads may share it.
  ShapeState undecided;

  // What the monitors learned: harvested from contexts when they are freed and at finalize.
  std::mutex learned_mutex;
  CommContext* live = nullptr;  // the contexts with monitors, linked by CommContext::live
  LearnedTable learned;

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

  void start(MPI_Comm comm) {
    PMPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    // Contexts are not inherited by MPI_Comm_dup: a duplicate needs its own private communicator.
    PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_context, &context_keyval, nullptr);
    PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, finalize_from_self, &self_keyval, nullptr);
    PMPI_Comm_set_attr(MPI_COMM_SELF, self_keyval, nullptr);
    boot = start_up(comm, world_rank);
    models = boot.models();
    // From here on an exit without MPI_Finalize, MPI_Abort or a fatal signal still ends the log.
    if (boot.log) {
      install_endings(boot.log.get());
      boot.log->keep_uncovered_counts(flavour::counts_uncovered());
    }
    private_comms = std::make_unique<PrivateComms>(boot.config.max_private_comms, boot.tag_ub,
                                                   boot.placement_wanted,
                                                   boot.inject == InjectedFailure::bind);
    initialized.store(true, std::memory_order_release);
  }

  // What the communicator's attribute says: its context; or none while its calls are counted,
  // before the serve_from_call-th (the count is the same on every rank: each makes the same
  // collective calls on a communicator, in the same order); or that this call binds it.
  // MPI_COMM_WORLD lives for the whole run and is served from its first call, and so is a call
  // whose collective has a forced algorithm: the user asked for that algorithm on every call, and
  // the config is the same on every rank, so the rule is too.
  Found find(MPI_Comm comm, Collective coll) {
    void* attribute = nullptr;
    int found = 0;
    PMPI_Comm_get_attr(comm, context_keyval, &attribute, &found);
    const std::uintptr_t value = found ? reinterpret_cast<std::uintptr_t>(attribute) : 0;
    if (found && value == kNativeMarker) return {};
    if (found && (value & kCountTag) == 0) return {static_cast<CommContext*>(attribute), false};
    const std::uint64_t calls_before = value >> 1;
    if (comm != MPI_COMM_WORLD && calls_before + 1 < boot.config.serve_from_call &&
        !boot.config.policy.of(coll).forces_algorithm()) {
      PMPI_Comm_set_attr(comm, context_keyval, count_attribute(calls_before + 1));
      return {nullptr, false, true};
    }
    return {nullptr, true};
  }

  // Binds the communicator of a call to a private communicator: collective over `comm`, one
  // allreduce (PrivateComms::complete). Everything this rank needs after it is made before it:
  // the context (its allocation failing makes the communicator native on every rank) and the
  // decision of this call's shape, whose success the same allreduce agrees on, so that a
  // communicator's first call needs no agreement of its own (issue 20's cost of a new
  // communicator). Nothing between prepare() and complete() throws: every rank must reach the
  // allreduce.
  template <class Call, class Prepare>
  FirstCall bind_context(MPI_Comm comm, const Prepare& prepare) {
    PendingBind pending = private_comms->prepare(comm, world_rank, context_serial.fetch_add(1));
    std::unique_ptr<CommContext> owned;
    try {
      if (boot.inject == InjectedFailure::context) throw std::bad_alloc();
      owned = std::make_unique<CommContext>(pending.rank(), pending.size());
    } catch (const std::exception& e) {
      pending.fail(e.what());
    }
    std::optional<CallShape> first;
    if (owned && pending.prepared()) {
      // The context holds no private communicator yet: only the shape is taken from prepare().
      // Decided with this rank's current private communicator for the group (its placement and
      // its decisions), which is the one every rank binds to when they agree; otherwise see
      // below.
      try {
        if (const std::optional<Served<Call>> served = prepare(*owned)) {
          first = served->shape;
          if (try_decide<Call>(*owned, pending.current(), *first) == nullptr) pending.undecided();
        }
      } catch (const std::exception&) {  // not expected of prepare(); still, reach the allreduce
        pending.undecided();
      }
    }
    BindOutcome bound = private_comms->complete(pending);
    if (!owned) {
      PMPI_Comm_set_attr(comm, context_keyval, reinterpret_cast<void*>(kNativeMarker));
      return {};
    }
    const bool decided = bound.shape_decided;
    const bool created = bound.created;
    CommContext* ctx = owned.release();
    ctx->attach(std::move(bound));
    PMPI_Comm_set_attr(comm, context_keyval, ctx);
    if (ctx->served() && boot.config.adapt.mode != AdaptMode::off) link_live(*ctx);
    FirstCall out{ctx, nullptr};
    if (!first) return out;
    if (!ctx->served()) {
      ctx->forget(*first);
    } else if (!decided) {
      // Some rank could not decide it: every rank runs this call natively and decides the shape
      // again on its next call, as choose() does.
      ctx->forget(*first);
      out.state = &undecided;
    } else if (created && boot.placement_wanted) {
      // A new private communicator: the decision was taken without its placement (gathered just
      // now); choose() takes it again, agreed by its own allreduce, once per group.
      ctx->forget(*first);
    } else {
      out.state = ctx->cached(*first);
      // The decision did not depend on a placement: the new private communicator keeps it too.
      if (created && out.state != nullptr) {
        ctx->shared()->decisions.keep(*first, out.state->decided);
      }
    }
    return out;
  }

  // Joins the list of contexts whose monitors learn (no allocation: intrusive).
  void link_live(CommContext& ctx) {
    std::lock_guard lock(learned_mutex);
    ctx.live = {nullptr, live, true};
    if (live != nullptr) live->live.prev = &ctx;
    live = &ctx;
  }
  // Under learned_mutex.
  void unlink_live(CommContext& ctx) {
    if (!ctx.live.linked) return;
    if (ctx.live.prev != nullptr) ctx.live.prev->live.next = ctx.live.next;
    if (ctx.live.next != nullptr) ctx.live.next->live.prev = ctx.live.prev;
    if (live == &ctx) live = ctx.live.next;
    ctx.live = {};
  }

  // Moves what a context's monitors learned into the run's table (under learned_mutex).
  void harvest(const CommContext& ctx) {
    for (LearnedShape& l : ctx.learned()) learned.merge(std::move(l));
  }
  // Harvests every live context and empties the list, so that none is harvested twice (under
  // learned_mutex).
  void harvest_live() {
    while (live != nullptr) {
      CommContext& ctx = *live;
      harvest(ctx);
      unlink_live(ctx);
    }
  }

  // The shape's state; on a new shape (a miss in the communicator's cache) decided now, from when
  // `setup_start` is set if it is not yet. Every rank decides from equal values, but a decision
  // can still fail on one rank alone (an allocation in the model's evaluation or in the cache).
  // The ranks therefore agree before any schedule starts: either every rank keeps its decision,
  // or every rank runs this call natively and decides the shape afresh on its next call. The
  // agreement is one small allreduce per new shape, on the user's communicator (where collectives
  // are never concurrent, which a private communicator shared by several user communicators
  // cannot promise); its cost is in the call's set-up time, never in its measured time. A
  // communicator's first shape is agreed in the binding's allreduce instead (bind_context()).
  template <class Call>
  ShapeState& choose(CommContext& ctx, MPI_Comm user_comm, const CallShape& shape,
                     std::optional<double>& setup_start) {
    if (ShapeState* st = ctx.cached(shape)) return *st;
    if (!setup_start) setup_start = PMPI_Wtime();
    ShapeState* decided = try_decide<Call>(ctx, ctx.shared(), shape);
    const int ok = decided != nullptr ? 1 : 0;
    int all_ok = 0;
    PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, user_comm);
    if (all_ok == 1) return *decided;
    ctx.forget(shape);
    return undecided;
  }

  // The shape decided into the context's cache, or nullptr when that failed on this rank (said
  // once): what the ranks then agree on.
  template <class Call>
  ShapeState* try_decide(CommContext& ctx, const SharedComm* shared, const CallShape& shape) {
    try {
      if (boot.inject == InjectedFailure::decide) throw std::bad_alloc();
      return &decide_shape<Call>(ctx, shared, shape);
    } catch (const std::exception& e) {
      note_local_failure(shape, e.what());
      return nullptr;
    }
  }

  // The decision comes from the private communicator's memo when another communicator over the
  // group took it already (pmpi/decision_memo.hpp: equal to a fresh decide() on every rank);
  // the monitor is this communicator's own.
  template <class Call>
  ShapeState& decide_shape(CommContext& ctx, const SharedComm* shared, const CallShape& shape) {
    ShapeState st;
    st.decided = shared != nullptr ? shared->decisions.find(shape) : nullptr;
    if (!st.decided) {
      const models::contention::Placement* placement =
          shared != nullptr && shared->placement ? &*shared->placement : nullptr;
      st.decided = decide_fresh<Call>(shape, placement, ctx.rank());
      if (shared != nullptr) shared->decisions.keep(shape, st.decided);
    }
    if (!st.decided->monitor_entries.empty()) {
      st.monitor.emplace(boot.config.adapt, st.decided->monitor_entries, st.decided->monitor_start);
      if (ctx.size() <= kAllExchangeRanks && boot.config.adapt.agree_lag_s > 0.0) {
        st.deferred = std::make_unique<DeferredAgreement>();
      }
    }
    return ctx.remember(shape, std::move(st));
  }

  template <class Call>
  std::shared_ptr<const Decided> decide_fresh(const CallShape& shape,
                                              const models::contention::Placement* placement,
                                              int comm_rank) {
    const Decision d = decide(shape, models, boot.config.policy, placement);
    // Only an override that could not be honoured is news to the user; a disabled collective or
    // a model's choice is what they asked for.
    if (!d.note.empty() && boot.config.policy.of(shape.coll).force && comm_rank == 0) {
      note_once(shape.coll, d.note);
    }
    auto out = std::make_shared<Decided>();
    out->ranking.push_back(
        {winner_row<Call>(d), d.params(), d.rung, d.predicted_s(), d.simulated(), d.algorithm()});
    const LearnedShape* learned = boot.learned ? boot.learned->find(shape) : nullptr;
    add_runners_up<Call>(*out, plan_adapt(shape, d, boot.config.adapt, models,
                                          boot.config.policy, placement, learned));
    return out;
  }

  // Said once per rank: the failing rank is the one that knows why.
  void note_local_failure(const CallShape& shape, const char* what) {
    if (local_failure_noted.exchange(true)) return;
    std::fprintf(stderr,
                 "collsel: rank %d: deciding %s of %llu bytes failed (%s); every rank runs the "
                 "call natively and decides again on the next one; further such failures are not "
                 "reported\n",
                 world_rank, std::string(collective_name(shape.coll)).c_str(),
                 static_cast<unsigned long long>(shape.bytes), what);
  }

  // Runs a registry row. From its first message on, the row's peers are inside the same schedule,
  // so a failure here (an allocation inside the algorithm, say) cannot be answered by the native
  // routine on this rank alone: its peers would wait forever, or match its messages against
  // another collective. collsel says what failed and aborts the job through the user's
  // communicator, as MPICH's own collectives end when their scratch allocation fails under the
  // default error handler: no deadlock, and no data returned silently wrong. Everything that can
  // fail before the schedule is agreed in choose() instead.
  template <class Call>
  int run_row(const Algorithm<Call>& row, const Call& call, const Choice& choice,
              MPI_Comm user_comm) {
    try {
      if (boot.inject == InjectedFailure::schedule) throw std::bad_alloc();
      return row.run(call, choice.params);
    } catch (const std::exception& e) {
      const bool no_memory = dynamic_cast<const std::bad_alloc*>(&e) != nullptr;
      // A stack buffer and std::fprintf: nothing here may need the memory that just ran out.
      std::array<char, 512> cause{};
      std::snprintf(cause.data(), cause.size(), "%.*s failed inside its schedule (%s)",
                    static_cast<int>(row.view.name.size()), row.view.name.data(), e.what());
      std::fprintf(stderr,
                   "collsel: rank %d: %s; the other ranks are already in it, so collsel aborts "
                   "the job rather than leave them waiting; COLLSEL_DISABLE=all runs every "
                   "collective natively\n",
                   world_rank, cause.data());
      const int code = no_memory ? MPI_ERR_NO_MEM : MPI_ERR_INTERN;
      // The log says how the rank ended, as MPI_Abort's wrapper does (entry.cpp), and why: the
      // launcher, killing the other ranks, may drop this rank's last output on stderr.
      try {
        runtime().finalize(Ending::abort, code, std::string_view(cause.data()));
      } catch (...) {
      }
      PMPI_Abort(user_comm, code);
      return MPI_ERR_INTERN;  // PMPI_Abort does not return
    }
  }

  // The runners-up the monitor may try, and where it starts: the learned table's choice for this
  // shape when there is one (every rank parsed the same table), else the model's (plan_adapt).
  template <class Call>
  void add_runners_up(Decided& st, const AdaptPlan& plan) {
    if (plan.ranking.empty()) return;
    const auto rows = registry<Call>();
    for (std::size_t r = 1; r < plan.ranking.size(); ++r) {
      const RankedEntry& e = plan.ranking[r];
      st.ranking.push_back({&rows[static_cast<std::size_t>(e.table_index)], e.cost.params,
                            st.ranking.front().rung, e.cost.predicted_s, e.cost.simulated,
                            e.cost.name, e.moved_segment});
    }
    st.monitor_entries = plan.monitor_entries();
    st.monitor_start = plan.start;
  }

  // The one path of every collective. `local_ok` checks what can be checked without the
  // communicator's context; `prepare` makes the shape and the call from the context, or nothing
  // when collsel does not serve the call. Anything collsel does not serve goes to `native`, which
  // also raises the user's errors as the MPI library would.
  template <class Call, class Native, class Prepare>
  int enter(MPI_Comm comm, bool local_ok, Native native, Prepare prepare) {
    const auto go_native = [&] {
      t_last_algorithm = kNativeName.data();
      return native();
    };
    int inter = 0;
    if (!local_ok || comm == MPI_COMM_NULL || !ready(comm) ||
        PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter) {
      return go_native();
    }
    const Found found = find(comm, kCollectiveOf<Call>);
    if (found.before_serving) {
      // Run by the MPI library, and counted, not traced: what a record would cost is what
      // serve_from_call saves a communicator used once (docs/BENCHMARKS.md, "A new
      // communicator's cost").
      const double start = PMPI_Wtime();
      const int rc = go_native();
      uncovered::add(before_serving_id(kCollectiveOf<Call>), PMPI_Wtime() - start);
      return rc;
    }
    CommContext* ctx = found.context;
    // Set when this call pays a set-up (a new communicator or shape): logged apart from its time.
    std::optional<double> setup_start;
    ShapeState* state = nullptr;
    if (found.bind) {
      setup_start = PMPI_Wtime();
      const FirstCall first = bind_context<Call>(comm, prepare);
      ctx = first.context;
      state = first.state;
    }
    // No context on this rank (its allocation failed, so every rank runs native): not logged.
    if (ctx == nullptr) return go_native();
    const std::optional<Served<Call>> served = prepare(*ctx);
    if (!served) return go_native();
    return serve<Call>(*ctx, comm, served->shape, setup_start, state, served->call, native);
  }

  // Decides (cached; `state` when the binding agreed it already), runs the chosen registry row on
  // the private communicator or `native()`, logs the call.
  template <class Call, class Native>
  int serve(CommContext& ctx, MPI_Comm user_comm, const CallShape& shape,
            std::optional<double> setup_start, ShapeState* state, const Call& call,
            Native native) {
    // A communicator collsel holds no private communicator for runs native, logged as such.
    Choice choice;
    if (ctx.served()) {
      if (state == nullptr) state = &choose<Call>(ctx, user_comm, shape, setup_start);
      choice = state->current();
    } else {
      state = nullptr;
    }
    std::string_view name = kNativeName;
    int rc = MPI_SUCCESS;
    const double run_start = PMPI_Wtime();
    if (const auto* row = std::get_if<const Algorithm<Call>*>(&choice.row)) {
      name = (*row)->view.name;
      rc = run_row(**row, call, choice, user_comm);
    } else {
      rc = native();
    }
    const double end = PMPI_Wtime();
    // The collective has run: nothing below may throw to the entry point, which would run the
    // native routine a second time.
    try {
      // A call logs its algorithm's time; what a new communicator or shape cost before it is
      // its set-up, logged apart so the model's errors stay clean.
      record(ctx, shape, choice, name, run_start, end,
             setup_start ? run_start - *setup_start : 0.0);
      // The monitor sees the algorithm's time only; at its agreed points every rank of the
      // communicator reduces, point to point on its own tags of the private communicator (a
      // collective there could run concurrently with another user communicator's), so the
      // algorithm it leads to comes from the same value everywhere (selector/adapt.hpp). Outside
      // a trial the reduction is started now and its result applied some calls later, at the
      // same call on every rank, so that no rank waits for the slowest here.
      if (state && state->monitor) {
        ShapeMonitor& monitor = *state->monitor;
        // The time since this shape's previous call ended: whether its calls are back to back.
        // The program's time only: an agreement's own wait is stamped out below (on the emulated
        // cluster the first checkpoint's, 100 ms and more on the ranks that ran ahead, lifted
        // the mean gap of Bcast 64 KiB's next 56 calls from 0.65 to 2.6 ms, past a quarter of a
        // 10 ms call, and the loop went unseen).
        const double gap = state->last_end_s ? run_start - *state->last_end_s : -1.0;
        state->last_end_s = end;
        if (monitor.record(end - run_start, gap)) {
          const AdaptSample mine = monitor.local_value();
          const int lag = monitor.agree_lag();
          if (lag > 0 && ctx.start_deferred(*state, mine)) {
            monitor.defer(lag);
          } else {
            monitor.agree(ctx.agree_slowest(mine));
            state->last_end_s = PMPI_Wtime();
          }
        } else if (monitor.apply_due()) {
          ctx.settle(*state);
          state->last_end_s = PMPI_Wtime();
        }
      }
    } catch (const std::exception& e) {
      std::fprintf(stderr, "collsel: rank %d: after the call (%s); its result stands\n",
                   world_rank, e.what());
    }
    return rc;
  }

  void note_once(Collective coll, const std::string& note) {
    std::lock_guard lock(notes_mutex);
    if (!noted.insert(coll).second) return;
    fmt::print(stderr, "collsel: {}: {}; further such calls are not reported\n",
               collective_name(coll), note);
  }

  void record(CommContext& ctx, const CallShape& shape, const Choice& choice,
              std::string_view algorithm, double start, double end, double setup_s) {
    t_last_algorithm = algorithm.data();
    const std::uint64_t seq = ctx.next_seq();
    if (!boot.log) return;
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
    r.setup_s = setup_s;
    r.start_s = start - boot.time_origin;
    // Captured after `end` so the unwind is not part of actual_s. The frames between here and the
    // user's call (ours and the MPI library's) are skipped by the capture itself.
    if (boot.sites) r.site = boot.sites->capture();
    boot.log->add(r);
  }
};

Runtime::Runtime() : impl_(std::make_unique<Impl>()) {}
Runtime::~Runtime() = default;

void Runtime::initialize() {
  std::lock_guard lock(impl_->init_mutex);
  if (impl_->initialized.load()) return;
  impl_->start(MPI_COMM_WORLD);
}

void Runtime::finalize(Ending how, int code, std::string_view cause) {
  Impl& I = *impl_;
  if (!I.initialized.load() || I.finalized.exchange(true)) return;
  write_learned();
  // What collsel did not serve (pmpi/uncovered.cpp), where this MPI's build counts it.
  // The counts of the calls before serve_from_call are kept by every build.
  if (I.boot.log) {
    I.boot.log->add_uncovered(uncovered::snapshot(flavour::counts_uncovered()),
                              flavour::counts_uncovered());
  }
  if (I.boot.log) I.boot.log->close(how, code, cause);
}

void Runtime::retire_context(CommContext* ctx) {
  Impl& I = *impl_;
  {
    std::lock_guard lock(I.learned_mutex);
    if (ctx->live.linked) {
      I.unlink_live(*ctx);
      I.harvest(*ctx);
    }
  }
  delete ctx;
}

void Runtime::gather_learned() {
  Impl& I = *impl_;
  // Nothing before the collective may skip it on one rank: a failure here sends an empty text.
  std::string mine;
  try {
    if (I.initialized.load() && !I.finalized.load()) {
      std::lock_guard lock(I.learned_mutex);
      // The deferred agreements still in flight end here, their results applied: every rank of
      // each communicator started them and is in MPI_Finalize too, and their messages were all
      // posted when they started, so the order in which the ranks settle them does not matter.
      for (CommContext* ctx = I.live; ctx != nullptr; ctx = ctx->live.next) ctx->settle_all();
      I.harvest_live();
      if (I.world_rank != 0 && !I.learned.shapes.empty()) {
        LearnedTable table;
        table.model = I.boot.model_name;
        table.shapes = I.learned.shapes;
        mine = format_learned(table);
      }
    }
  } catch (...) {
    mine.clear();
  }
  // Every rank takes part, served or not, so the collective cannot diverge on this rank's state.
  const std::vector<std::string> texts = gather_text_to_world_root(mine);
  if (!I.initialized.load() || I.finalized.load()) return;
  std::lock_guard lock(I.learned_mutex);
  for (std::size_t r = 0; r < texts.size(); ++r) {
    if (texts[r].empty()) continue;
    // Written by format_learned() of the same build a moment ago; a text that does not read
    // back is left out, not reported.
    LearnedLoad l = parse_learned(texts[r], fmt::format("world rank {}", r), "");
    if (!l.table) continue;
    for (LearnedShape& shape : l.table->shapes) I.learned.merge(std::move(shape));
  }
}

void Runtime::write_learned() {
  // World rank 0 writes what the communicators it belongs to learned, and, after MPI_Finalize's
  // gather_learned(), what every other rank's did, over the table the run started from, so a
  // shape this run did not measure again is kept.
  Impl& I = *impl_;
  if (I.world_rank != 0 || I.boot.learned_out.empty()) return;
  std::lock_guard lock(I.learned_mutex);
  I.harvest_live();
  if (I.learned.shapes.empty()) return;
  LearnedTable out = I.boot.learned.value_or(LearnedTable{});
  out.model = I.boot.model_name;
  for (LearnedShape& l : I.learned.shapes) out.put(std::move(l));
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(I.boot.learned_out).parent_path(), ec);
  const std::optional<std::string> problem =
      ec ? std::optional<std::string>(ec.message())
         : common::write_file_atomically(I.boot.learned_out, format_learned(out));
  if (problem) {
    fmt::print(stderr,
               "collsel: {}: cannot write the learned table ({}); set [log] dir or {} to a "
               "writable folder to keep what this run measured\n",
               I.boot.learned_out, *problem, kEnvLogDir);
  }
}

void Runtime::release_world() {
  // Frees MPI_COMM_WORLD's context (its share of a private communicator) and the idle private
  // communicators while MPI is still fully up, rather than from an attribute callback in the
  // middle of PMPI_Finalize.
  if (impl_->context_keyval != MPI_KEYVAL_INVALID) {
    PMPI_Comm_delete_attr(MPI_COMM_WORLD, impl_->context_keyval);
  }
  if (impl_->private_comms) impl_->private_comms->free_idle();
}

namespace {

std::optional<std::uint64_t> bytes_of(int count, MPI_Datatype type) {
  int type_size = 0;
  if (count < 0 || PMPI_Type_size(type, &type_size) != MPI_SUCCESS) return std::nullopt;
  return static_cast<std::uint64_t>(count) * static_cast<std::uint64_t>(type_size);
}

}  // namespace

int Runtime::bcast(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  // Bcast has no in-place form: MPI_IN_PLACE goes to the native routine, which reports it.
  const std::optional<std::uint64_t> bytes = bytes_of(count, type);
  return impl_->enter<BcastCall>(
      comm, buffer != MPI_IN_PLACE && bytes.has_value(),
      [&] { return PMPI_Bcast(buffer, count, type, root, comm); },
      [&](CommContext& ctx) -> std::optional<Served<BcastCall>> {
        if (root < 0 || root >= ctx.size()) return std::nullopt;
        return Served<BcastCall>{{Collective::bcast, ctx.size(), *bytes, root},
                                 {buffer, count, type, root, ctx.comm(), ctx.rank(), ctx.size(),
                                  ctx.tag_base()}};
      });
}

int Runtime::scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                     int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return impl_->enter<ScatterCall>(
      comm, true,
      [&] {
        return PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                            comm);
      },
      [&](CommContext& ctx) -> std::optional<Served<ScatterCall>> {
        if (root < 0 || root >= ctx.size()) return std::nullopt;
        const bool is_root = ctx.rank() == root;
        // Only the significant arguments count: the root's send side, everyone else's receive
        // side.
        const std::optional<std::uint64_t> bytes =
            is_root ? bytes_of(sendcount, sendtype) : bytes_of(recvcount, recvtype);
        if (!bytes || (!is_root && recvbuf == MPI_IN_PLACE)) return std::nullopt;
        return Served<ScatterCall>{{Collective::scatter, ctx.size(), *bytes, root},
                                   {sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                    root, ctx.comm(), ctx.rank(), ctx.size(), ctx.tag_base()}};
      });
}

int Runtime::alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                      int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  // MPI_IN_PLACE is given at all ranks or none (MPI 4.0 section 6.8), so the block size is
  // rank-invariant either way.
  const bool in_place = sendbuf == MPI_IN_PLACE;
  const std::optional<std::uint64_t> bytes =
      in_place ? bytes_of(recvcount, recvtype) : bytes_of(sendcount, sendtype);
  return impl_->enter<AlltoallCall>(
      comm, bytes.has_value() && recvcount >= 0,
      [&] {
        return PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
      },
      [&](CommContext& ctx) -> std::optional<Served<AlltoallCall>> {
        return Served<AlltoallCall>{{Collective::alltoall, ctx.size(), *bytes, 0},
                                    {sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                     ctx.comm(), ctx.rank(), ctx.size(), ctx.tag_base()}};
      });
}

const char* Runtime::last_algorithm() { return t_last_algorithm; }

int Runtime::private_comms_held() const {
  return impl_->private_comms ? impl_->private_comms->held() : 0;
}

Runtime& runtime() {
  // Deliberately leaked: MPI may run attribute callbacks (finalize_from_self) during exit,
  // after static destructors would have run.
  static Runtime* instance = new Runtime();
  return *instance;
}

}  // namespace collsel::pmpi
