// The registry's flat fan-outs (bcast.flat, scatter.flat, alltoall.all_at_once) switch to LogfP
// (seed 004) for the sizes the model file's [logfp] section serves, and keep pLogP above them.
// No MPI.
#include <gtest/gtest.h>

#include "models/alltoall/contention.hpp"
#include "models/contention/params.hpp"
#include "models/logfp/fanout.hpp"
#include "models/plogp/bcast.hpp"
#include "models/plogp/scatter.hpp"
#include "selector/catalog.hpp"

namespace collsel {
namespace {

models::ModelFile with_logfp() {
  models::ModelFile f;
  f.plogp.latency_s = 5e-6;
  f.plogp.table = {{1, 2e-6, 1e-6, 1e-6}, {1 << 20, 1e-2, 1e-4, 1e-4}};
  // Posting is cheap (o falls with P) and the first 4 messages are free of g: a flat fan-out of
  // small messages costs far less than pLogP's (P - 1) g(m).
  f.logfp = models::logfp::Params{.latency_s = 5e-6, .o_min_s = 0.2e-6, .o_max_s = 1.6e-6,
                                  .gap_s = 1e-6, .f = 4, .max_bytes = 64};
  return f;
}

double predicted(Collective c, std::string_view name, const models::ModelFile& f, int P,
                 std::uint64_t m) {
  const AlgorithmView* view = find_algorithm(c, name);
  EXPECT_NE(view, nullptr) << name;
  return view->model(f, {c, P, m, 0}, Policy{}).seconds;
}

TEST(LogfpAdapter, FlatFanoutsUseLogfpForTheSizesItServes) {
  const models::ModelFile f = with_logfp();
  const auto& lf = *f.logfp;
  EXPECT_DOUBLE_EQ(predicted(Collective::bcast, "bcast.flat", f, 8, 16),
                   models::logfp::bcast_flat(lf, f.plogp, 8, 16));
  EXPECT_DOUBLE_EQ(predicted(Collective::scatter, "scatter.flat", f, 8, 16),
                   models::logfp::scatter_flat(lf, f.plogp, 8, 16));
  EXPECT_DOUBLE_EQ(predicted(Collective::alltoall, "alltoall.all_at_once", f, 8, 16),
                   models::logfp::alltoall_fanout_round(lf, f.plogp, 8, 16));
  // And it differs from the pLogP formula it replaces (else this test could not fail).
  EXPECT_LT(predicted(Collective::bcast, "bcast.flat", f, 8, 16),
            models::plogp::bcast_flat(f.plogp, 8, 16));
}

// One segment is the plain twin: at the sizes LogfP serves, bcast.flat_segmented predicts
// bcast.flat's fan-out (registry order then prefers flat), with the whole message as its segment.
// With the posted gap a pLogP flat_segmented could otherwise undercut LogfP's flat (simulated
// gige, P = 100, 1 B: 376 us against 911 us) and be chosen for the same tree.
TEST(LogfpAdapter, TheSegmentedFlatTreeIsTheFlatFanoutWhereLogfpServes) {
  const models::ModelFile f = with_logfp();
  const AlgorithmView* seg = find_algorithm(Collective::bcast, "bcast.flat_segmented");
  ASSERT_NE(seg, nullptr);
  const Prediction p = seg->model(f, {Collective::bcast, 8, 16, 0}, Policy{});
  EXPECT_DOUBLE_EQ(p.seconds, predicted(Collective::bcast, "bcast.flat", f, 8, 16));
  EXPECT_EQ(p.params.segment_bytes, 16u);
  // A segment the user fixed below the message is a pipeline: pLogP's formula.
  Policy fixed;
  fixed.segment_bytes = 4;
  const Prediction four = seg->model(f, {Collective::bcast, 8, 16, 0}, fixed);
  EXPECT_EQ(four.params.segment_bytes, 4u);
  EXPECT_DOUBLE_EQ(four.seconds, models::plogp::bcast_flat_segmented(f.plogp, 8, 16, 4));
  // Above LogfP's sizes, pLogP's segment search as before.
  const Prediction large = seg->model(f, {Collective::bcast, 8, 4096, 0}, Policy{});
  EXPECT_DOUBLE_EQ(large.seconds, models::plogp::bcast_flat_segmented(
                                      f.plogp, 8, 4096, large.params.segment_bytes));
}

TEST(LogfpAdapter, LargerMessagesAndFilesWithoutLogfpKeepPlogp) {
  models::ModelFile f = with_logfp();
  EXPECT_DOUBLE_EQ(predicted(Collective::bcast, "bcast.flat", f, 8, 65),
                   models::plogp::bcast_flat(f.plogp, 8, 65));
  EXPECT_DOUBLE_EQ(predicted(Collective::scatter, "scatter.flat", f, 8, 4096),
                   models::plogp::scatter_flat(f.plogp, 8, 4096));
  f.logfp.reset();
  EXPECT_DOUBLE_EQ(predicted(Collective::bcast, "bcast.flat", f, 8, 16),
                   models::plogp::bcast_flat(f.plogp, 8, 16));
  // Other algorithms never read [logfp].
  const models::ModelFile g = with_logfp();
  EXPECT_DOUBLE_EQ(predicted(Collective::bcast, "bcast.binomial", g, 8, 16),
                   models::plogp::bcast_binomial(g.plogp, 8, 16));
}

// The flat Scatter takes the link's time per byte from the [contention] section: a burst of
// sends that wait for their transfers runs at the link's pace (models::plogp::Params::
// burst_gap_s), which the closed form alone does not know. The flat Bcast does not: its tree
// engine completes each send before the next.
TEST(FlatBurst, TheFlatScatterTakesTheLinkFromTheContentionSection) {
  models::ModelFile f = with_logfp();
  f.logfp.reset();
  constexpr std::uint64_t m = 65536;  // o_s(m) = 7.2 us, past 1.5 o_s(1): the sends wait
  ASSERT_TRUE(f.plogp.send_waits(m));
  const double without = models::plogp::scatter_flat(f.plogp, 8, m);
  EXPECT_DOUBLE_EQ(predicted(Collective::scatter, "scatter.flat", f, 8, m), without);
  models::contention::Params c;
  c.rule = models::contention::RuleKind::fair;
  c.alpha_s_per_byte = 1e-9;
  f.contention = c;
  EXPECT_DOUBLE_EQ(predicted(Collective::scatter, "scatter.flat", f, 8, m),
                   models::plogp::scatter_flat(f.plogp, 8, m, 1e-9));
  EXPECT_DOUBLE_EQ(predicted(Collective::bcast, "bcast.flat", f, 8, m),
                   models::plogp::bcast_flat(f.plogp, 8, m));
  EXPECT_LT(predicted(Collective::scatter, "scatter.flat", f, 8, m), without / 2);
  // An unusable section is no link.
  f.contention->alpha_s_per_byte = -1.0;
  EXPECT_DOUBLE_EQ(predicted(Collective::scatter, "scatter.flat", f, 8, m), without);
}

TEST(AlltoallRegistry, WindowedSchedulesPayEveryMessagesOverheads) {
  // 47 exchanges of 16 B with cheap start-ups (the ib-fattree case of docs/MODELS.md): section
  // 6's model alone predicts about one alpha; each rank still sends 47 messages and receives 47,
  // (P-1)(o_s + o_r) = 47 x 2 us here, above LogfP's size limit (16 B > max_bytes 1).
  models::ModelFile f;
  f.plogp.latency_s = 1e-6;
  f.plogp.table = {{1, 1e-6, 1e-6, 1e-6}, {1 << 20, 1e-3, 1e-4, 1e-4}};
  const double floor = models::alltoall::message_overheads(f.plogp, 48, 16);
  EXPECT_DOUBLE_EQ(floor, 47 * (f.plogp.send_overhead_s(16) + f.plogp.recv_overhead_s(16)));
  EXPECT_NEAR(floor, 47 * 2e-6, 47 * 2e-6 * 0.01);  // o_s, o_r interpolated just above 1 us
  const models::alltoall::Contention c = models::alltoall::contention_free(f.plogp);
  ASSERT_LT(models::alltoall::all_at_once(c, 48, 16), floor);
  EXPECT_DOUBLE_EQ(predicted(Collective::alltoall, "alltoall.all_at_once", f, 48, 16), floor);
  EXPECT_DOUBLE_EQ(predicted(Collective::alltoall, "alltoall.windowed", f, 48, 16), floor);
  // A forced window is floored too.
  Policy window;
  window.window = 47;
  EXPECT_DOUBLE_EQ(find_algorithm(Collective::alltoall, "alltoall.windowed")
                       ->model(f, {Collective::alltoall, 48, 16, 0}, window)
                       .seconds,
                   floor);
  // The LogfP fan-out, where it serves, is not floored: it has its own overheads.
  f.logfp = models::logfp::Params{.latency_s = 1e-6, .o_min_s = 0.2e-6, .o_max_s = 1.6e-6,
                                  .gap_s = 1e-6, .f = 4, .max_bytes = 64};
  EXPECT_DOUBLE_EQ(predicted(Collective::alltoall, "alltoall.all_at_once", f, 48, 16),
                   models::logfp::alltoall_fanout_round(*f.logfp, f.plogp, 48, 16));
}

TEST(AlltoallRegistry, EverySchedulePaysItsOwnMessagesOverheads) {
  // Overheads far above the network's costs (SMPI's Ethernet platforms, the emulated cluster's
  // loaded cores): every schedule that sends P - 1 messages costs the same floor, so none is
  // ranked below another for a cost all of them pay; Bruck pays for its ceil(log2 P) packed ones.
  models::ModelFile f;
  f.plogp.latency_s = 1e-6;
  f.plogp.table = {{1, 1e-6, 1e-3, 1e-3}, {1 << 20, 1e-2, 2e-3, 2e-3}};
  const models::alltoall::Contention c = models::alltoall::contention_free(f.plogp);
  const double floor = models::alltoall::message_overheads(f.plogp, 8, 16);
  ASSERT_LT(models::alltoall::direct_exchange(c, 8, 16), floor);
  for (std::string_view name : {"alltoall.direct_exchange", "alltoall.pairwise",
                                "alltoall.all_at_once", "alltoall.windowed"}) {
    EXPECT_DOUBLE_EQ(predicted(Collective::alltoall, name, f, 8, 16), floor) << name;
  }
  // Bruck at P = 8: three rounds of 4 blocks each, one send and one receive per round.
  const double bruck_floor = 3 * (f.plogp.send_overhead_s(64) + f.plogp.recv_overhead_s(64));
  EXPECT_DOUBLE_EQ(models::alltoall::bruck_message_overheads(f.plogp, 8, 16), bruck_floor);
  ASSERT_LT(models::alltoall::bruck(c, 8, 16), bruck_floor);
  EXPECT_DOUBLE_EQ(predicted(Collective::alltoall, "alltoall.bruck", f, 8, 16), bruck_floor);
  // Where the network costs more than the overheads (7 x 10 ms against 7 x 4 ms), the floor
  // changes nothing.
  EXPECT_DOUBLE_EQ(predicted(Collective::alltoall, "alltoall.direct_exchange", f, 8, 1 << 20),
                   models::alltoall::direct_exchange(c, 8, 1 << 20));
}

}  // namespace
}  // namespace collsel
