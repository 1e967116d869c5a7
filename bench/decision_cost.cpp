// The cost of choosing an algorithm: a decision-cache hit (what every repeated call pays), a memo
// hit (a new communicator's first call on a shape its group decided before: a new context and its
// cache entry from the private communicator's memo) and a full decide() over the registry (a
// miss). Runs as a singleton MPI process (the cache lives in a CommContext; here one with no
// private communicator, since only its cache is measured).
//   build/bench/decision_cost [ITERATIONS]
// With a model file, the cost of one decide() at scale instead: per P (16 to 1024), ranks per
// node (1: closed forms, but for an All-to-All whose blocks' link time hides the receive
// overhead, at P <= 64; 8: schedules simulated on the placement when the model has a
// [contention] section) and call shape, the median over repetitions.
//   build/bench/decision_cost --scale MODEL
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "conf/embedded.hpp"
#include "models/model_file.hpp"
#include "pmpi/comm_context.hpp"
#include "selector/adapt.hpp"
#include "selector/decide.hpp"
#include "selector/registry.hpp"

namespace {

template <class F>
double median_ns_per_op(int iterations, F f) {
  std::vector<double> batches;
  for (int b = 0; b < 11; ++b) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < iterations; ++i) f(i);
    const auto t1 = std::chrono::steady_clock::now();
    batches.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / iterations);
  }
  std::sort(batches.begin(), batches.end());
  return batches[batches.size() / 2];
}

template <class F>
double median_s(int repetitions, F f) {
  std::vector<double> t;
  for (int r = 0; r < repetitions; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

int scale(const char* path) {
  const auto load = collsel::models::load_model_file(path);
  if (!load.model) {
    for (const auto& d : load.diagnostics) std::fprintf(stderr, "%s\n", d.format().c_str());
    return 2;
  }
  const collsel::ModelSet models{&*load.model, nullptr};
  // What [adapt] mode = "explore" adds to a new shape's decision: plan_adapt()'s runners-up and
  // their segment variants, each variant predicted (simulated at 8 per node) at its segment.
  collsel::AdaptSettings explore;
  explore.mode = collsel::AdaptMode::explore;
  std::printf("P,ranks_per_node,coll,bytes,decide_s,simulated,explore_plan_s\n");
  for (int P : {16, 48, 64, 100, 256, 1024}) {
    for (int per_node : {1, 8}) {
      const auto placement = collsel::models::contention::make_placement(
          collsel::models::contention::PlacementKind::filled, P, per_node);
      for (const auto& [coll, bytes] : {std::pair{collsel::Collective::bcast, 16ull},
                                        {collsel::Collective::bcast, 1ull << 20},
                                        {collsel::Collective::scatter, 16ull << 10},
                                        {collsel::Collective::alltoall, 1ull << 10},
                                        {collsel::Collective::alltoall, 1ull << 20}}) {
        const collsel::CallShape shape{coll, P, bytes, 0};
        const collsel::Decision d = collsel::decide(shape, models, {}, &placement);
        const auto decide = [&] {
          volatile const void* sink = collsel::decide(shape, models, {}, &placement).table.data();
          (void)sink;
        };
        const auto plan = [&] {
          volatile std::size_t sink =
              collsel::plan_adapt(shape, d, explore, models, {}, &placement, nullptr)
                  .ranking.size();
          (void)sink;
        };
        // Fewer repetitions where one decision takes long (simulated schedules at large P).
        const auto reps = [](double once) { return once > 0.05 ? 3 : once > 1e-3 ? 11 : 101; };
        std::printf("%d,%d,%s,%llu,%.6g,%d,%.6g\n", P, per_node,
                    std::string(collsel::collective_name(coll)).c_str(),
                    static_cast<unsigned long long>(bytes),
                    median_s(reps(median_s(1, decide)), decide), d.simulated() ? 1 : 0,
                    median_s(reps(median_s(1, plan)), plan));
        std::fflush(stdout);
      }
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  if (argc == 3 && std::string(argv[1]) == "--scale") {
    const int rc = scale(argv[2]);
    MPI_Finalize();
    return rc;
  }
  const int iterations = argc > 1 ? std::atoi(argv[1]) : 100000;
  if (iterations <= 0 || argc > 2) {
    // --help, or anything that is not a positive count: say how to call it, not "inf".
    const std::string first = argc > 1 ? argv[1] : "";
    const bool help = first == "--help" || first == "-h";
    std::fprintf(help ? stdout : stderr,
                 "usage: decision_cost [ITERATIONS]   cache hit, memo hit and decide() with the "
                 "embedded model (default 100000)\n"
                 "       decision_cost --scale MODEL  one decide() per P (16-1024), ranks per "
                 "node and shape, as CSV\n");
    MPI_Finalize();
    return help ? 0 : 2;
  }
  const auto model = collsel::models::parse_model(collsel::conf::embedded_default_model(),
                                                  collsel::conf::kEmbeddedModelName);
  const collsel::ModelSet models{nullptr, &*model.model};
  const collsel::Policy policy;
  auto ctx_owner = std::make_unique<collsel::pmpi::CommContext>(0, 1);
  auto& ctx = *ctx_owner;
  collsel::pmpi::DecisionMemo memo;
  const collsel::CallShape shapes[] = {{collsel::Collective::bcast, 16, 1, 0},
                                       {collsel::Collective::bcast, 16, 65536, 0},
                                       {collsel::Collective::bcast, 16, 1 << 20, 0},
                                       {collsel::Collective::scatter, 16, 4096, 0}};
  for (const auto& s : shapes) {
    const auto d = collsel::decide(s, models, policy);
    auto decided = std::make_shared<collsel::pmpi::Decided>();
    decided->ranking.push_back({collsel::winner_row(s.coll, d), d.params(), d.rung,
                                d.predicted_s(), d.simulated(), d.algorithm()});
    memo.keep(s, decided);
    ctx.remember(s, {std::move(decided), std::nullopt, nullptr, std::nullopt});
  }
  volatile const void* sink = nullptr;
  const double hit = median_ns_per_op(iterations, [&](int i) { sink = ctx.cached(shapes[i % 4]); });
  // A new communicator over a group whose private communicator decided the shape already: the
  // memo's lookup (under its lock) and the communicator's own cache entry.
  const double memo_hit = median_ns_per_op(iterations / 10, [&](int i) {
    auto fresh = std::make_unique<collsel::pmpi::CommContext>(0, 1);
    sink = &fresh->remember(shapes[i % 4],
                            {memo.find(shapes[i % 4]), std::nullopt, nullptr, std::nullopt});
  });
  const double miss = median_ns_per_op(iterations / 100, [&](int i) {
    sink = collsel::decide(shapes[i % 4], models, policy).table.data();
  });
  std::printf("decision_cost_ns cache_hit=%.1f memo_hit=%.1f decide=%.1f\n", hit, memo_hit,
              miss);
  (void)sink;
  ctx_owner.reset();
  MPI_Finalize();
  return 0;
}
