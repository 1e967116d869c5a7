// The cost of choosing an algorithm: a decision-cache hit (what every repeated call pays) against
// a full decide() over the registry (a miss). Runs as a singleton MPI process (the cache lives in
// a CommContext, which duplicates a communicator).
//   build/bench/decision_cost [ITERATIONS]
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

#include "conf/embedded.hpp"
#include "models/model_file.hpp"
#include "pmpi/comm_context.hpp"
#include "selector/decide.hpp"

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

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const int iterations = argc > 1 ? std::atoi(argv[1]) : 100000;
  const auto model = collsel::models::parse_model(collsel::conf::embedded_default_model(),
                                                  collsel::conf::kEmbeddedModelName);
  const collsel::ModelSet models{nullptr, &*model.model};
  const collsel::Policy policy;
  // Scoped: the context frees its communicator, which must happen before MPI_Finalize.
  auto ctx_owner = std::make_unique<collsel::pmpi::CommContext>(MPI_COMM_WORLD, 0, 0);
  auto& ctx = *ctx_owner;
  const collsel::CallShape shapes[] = {{collsel::Collective::bcast, 16, 1, 0},
                                       {collsel::Collective::bcast, 16, 65536, 0},
                                       {collsel::Collective::bcast, 16, 1 << 20, 0},
                                       {collsel::Collective::scatter, 16, 4096, 0}};
  for (const auto& s : shapes) {
    const auto d = collsel::decide(s, models, policy);
    ctx.remember(s, {d.winner, d.params(), d.rung, d.predicted_s()});
  }
  volatile const void* sink = nullptr;
  const double hit = median_ns_per_op(iterations, [&](int i) { sink = ctx.cached(shapes[i % 4]); });
  const double miss = median_ns_per_op(iterations / 100, [&](int i) {
    sink = collsel::decide(shapes[i % 4], models, policy).table.data();
  });
  std::printf("decision_cost_ns cache_hit=%.1f decide=%.1f\n", hit, miss);
  (void)sink;
  ctx_owner.reset();
  MPI_Finalize();
  return 0;
}
