#include "calibrate/plogp_measure.hpp"
#include "calibrate/mpi_resources.hpp"
#include "flavour/flavour.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <numeric>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <time.h>

namespace collsel::calibrate {

Estimate estimate(std::vector<double> v) {
  if (v.empty()) return {};
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  const double med = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
  if (n < 3 || med <= 0.0) return {med, 0.0, v.front()};
  // Order-statistic interval of the median: ranks n/2 -+ 1.96 sqrt(n)/2 (normal approximation
  // of the binomial), clamped to the sample. No assumption on the samples' distribution, so the
  // scheduler's long tail widens it without biasing it.
  const double half = 1.96 * std::sqrt(static_cast<double>(n)) / 2.0;
  const auto lo = static_cast<std::size_t>(std::max(0.0, std::floor(n / 2.0 - half)));
  const auto hi =
      std::min(n - 1, static_cast<std::size_t>(std::ceil(n / 2.0 + half)));
  return {med, (v[hi] - v[lo]) / (2.0 * med), v.front()};
}

double size_weight(std::uint64_t m) {
  // One sample costs a few round trips; small messages cost their latency, large ones their
  // bytes. 4 KiB is roughly where the two meet on the networks we know.
  return static_cast<double>(std::max<std::uint64_t>(m, 4096));
}

namespace {

constexpr int kTag = 77;

// How the receiver of a burst takes its messages (docs/MODELS.md, "Two gaps" and "Two receives
// ahead"): one MPI_Recv at a time, many receives posted ahead, or exactly two, as the tree
// engine's pipeline posts them.
enum class Receives { one_at_a_time, posted_ahead, two_ahead };

class Pair {
 public:
  Pair(MPI_Comm comm, int rank, std::size_t max_bytes, const MeasureOptions& o)
      : comm_(comm), rank_(rank), o_(o), buffer_(std::max<std::size_t>(max_bytes, 1)) {}

  // Until this time (rank 0's clock), a value may take more samples than the minimum.
  void set_deadline(double t) { deadline_ = t; }

  // Ping-pong; meaningful on rank 0. Each timed exchange follows an untimed one, so rank 1 is
  // already in its receive when rank 0's clock starts: after sample()'s MPI_Bcast rank 0 starts
  // at once while rank 1 enters its receive only once the Bcast has reached it, and where a
  // transfer starts only once its receive is posted (SMPI below smpi/async-small-thresh) the
  // round trip then carried that wait, one latency: 163.6 us on simulated gige for 113 us, which
  // made L + g(0) 82 us where a lone message takes 56 us (docs/MODELS.md, "Two gaps").
  Estimate round_trip(std::uint64_t m) {
    exchange(m, 0);  // warm-up
    return sample([&] {
      exchange(m, 0);
      const double t0 = MPI_Wtime();
      exchange(m, 0);
      return MPI_Wtime() - t0;
    });
  }

  // n back-to-back sends then a zero-byte reply; n grows until the burst lasts min_burst_s.
  // The receiver takes them one MPI_Recv at a time (Receives::one_at_a_time: the stream gap g(m)
  // of a pipeline's segments) or keeps receives posted ahead (Receives::posted_ahead: the posted
  // gap g_p(m) of a fan-out to receivers already waiting) or keeps exactly two posted
  // (Receives::two_ahead: the pipeline gap g_2(m) of the tree engine's segments); docs/MODELS.md,
  // "Two gaps" and "Two receives ahead".
  Estimate gap(std::uint64_t m, double rtt0, Receives receives) {
    int n = 4;
    for (;;) {  // find n once, then keep it for every sample
      // The fastest of three bursts: one burst stretched by a scheduler stall on a busy machine
      // would stop n at 4, and the samples of such short bursts then fall below the round trip
      // subtracted from them (g came out 0 under load: calibrate.quick_4).
      double elapsed = burst(m, n, receives);
      for (int k = 0; k < 2; ++k) elapsed = std::min(elapsed, burst(m, n, receives));
      int grow = rank_ == 0 && elapsed < o_.min_burst_s && n < (1 << 20);
      MPI_Bcast(&grow, 1, MPI_INT, 0, comm_);
      if (!grow) break;
      n *= 2;
    }
    return sample([&] { return std::max(0.0, (burst(m, n, receives) - rtt0) / n); });
  }

  // Time of the send call with the receiver already waiting and the link idle.
  Estimate send_overhead(std::uint64_t m) {
    return sample([&] {
      MPI_Barrier(comm_);
      double t = 0.0;
      if (rank_ == 0) {
        const double t0 = MPI_Wtime();
        send(m);
        t = MPI_Wtime() - t0;
        recv(0);
      } else {
        recv(m);
        send(0);
      }
      return t;
    });
  }

  // Time to complete a receive, posted beforehand, whose message was sent while the receiver
  // was busy for `delay` seconds (longer than a round trip of m). Measured on rank 1, sent to
  // rank 0. Posted first, as collsel's schedules post theirs: where a transfer starts only once
  // its receive is posted (SMPI below smpi/async-small-thresh, any rendezvous), a receive posted
  // after the send waits for the whole transfer, and o_r(m) came out one network latency on
  // every simulated Ethernet. On an MPI with an eager protocol both ways measure the same copy.
  Estimate recv_overhead(std::uint64_t m, double delay) {
    return sample([&] {
      MPI_Request request = MPI_REQUEST_NULL;
      if (rank_ == 1) post_recv(buffer_.data(), m, &request);
      MPI_Barrier(comm_);
      double t = 0.0;
      if (rank_ == 0) {
        send(m);
        recv(0);
      } else {
        flavour::busy_until(MPI_Wtime() + delay);
        const double t0 = MPI_Wtime();
        MPI_Wait(&request, MPI_STATUS_IGNORE);
        t = MPI_Wtime() - t0;
        send(0);
      }
      MPI_Bcast(&t, 1, MPI_DOUBLE, 1, comm_);
      return t;
    });
  }

 private:
  // Samples until the interval is narrow enough, the maximum is reached, or the deadline has
  // passed with the minimum taken. Rank 0 decides; both ranks run the same number of samples.
  template <class F>
  Estimate sample(F one) {
    std::vector<double> samples;
    for (;;) {
      samples.push_back(one());
      int more = 0;
      if (rank_ == 0) {
        const int n = static_cast<int>(samples.size());
        more = n < o_.min_samples ||
               (n < o_.max_samples && MPI_Wtime() < deadline_ &&
                estimate(samples).spread > o_.target_spread);
      }
      MPI_Bcast(&more, 1, MPI_INT, 0, comm_);
      if (!more) break;
    }
    return estimate(samples);
  }

  void exchange(std::uint64_t m, std::uint64_t reply) {
    if (rank_ == 0) {
      send(m);
      recv(reply);
    } else {
      recv(m);
      send(reply);
    }
  }

  double burst(std::uint64_t m, int n, Receives receives) {
    std::vector<MPI_Request> posted;
    if (rank_ == 1 && receives != Receives::one_at_a_time) {
      const int window = std::min(n, receives == Receives::two_ahead ? 2 : receive_window(m));
      slots_.resize(static_cast<std::size_t>(window) * std::max<std::uint64_t>(m, 1));
      posted.assign(static_cast<std::size_t>(window), MPI_REQUEST_NULL);
      for (int i = 0; i < window; ++i) post_recv(slot(i, m), m, &posted[i]);
    }
    MPI_Barrier(comm_);
    const double t0 = MPI_Wtime();
    if (rank_ == 0) {
      for (int i = 0; i < n; ++i) send(m);
      recv(0);
    } else if (posted.empty()) {
      for (int i = 0; i < n; ++i) recv(m);
      send(0);
    } else {
      const int window = static_cast<int>(posted.size());
      for (int i = 0; i < n; ++i) {
        const int k = i % window;
        MPI_Wait(&posted[k], MPI_STATUS_IGNORE);
        if (i + window < n) post_recv(slot(k, m), m, &posted[k]);
      }
      send(0);
    }
    return MPI_Wtime() - t0;
  }

  // Receives posted ahead in a burst: enough to cover a latency of small messages (64), at most
  // 64 MiB of slots for large ones.
  static int receive_window(std::uint64_t m) {
    constexpr std::uint64_t kSlotBytes = 64ull << 20;
    return static_cast<int>(
        std::clamp<std::uint64_t>(kSlotBytes / std::max<std::uint64_t>(m, 1), 2, 64));
  }
  std::byte* slot(int k, std::uint64_t m) {
    return slots_.data() + static_cast<std::size_t>(k) * std::max<std::uint64_t>(m, 1);
  }
  void post_recv(std::byte* data, std::uint64_t m, MPI_Request* request) {
    MPI_Irecv(data, static_cast<int>(m), MPI_BYTE, 1 - rank_, kTag, comm_, request);
  }

  void send(std::uint64_t m) {
    MPI_Send(buffer_.data(), static_cast<int>(m), MPI_BYTE, 1 - rank_, kTag, comm_);
  }
  void recv(std::uint64_t m) {
    MPI_Recv(buffer_.data(), static_cast<int>(m), MPI_BYTE, 1 - rank_, kTag, comm_,
             MPI_STATUS_IGNORE);
  }

  MPI_Comm comm_;
  int rank_;
  const MeasureOptions& o_;
  std::vector<std::byte> buffer_;
  std::vector<std::byte> slots_;  // the posted-ahead burst's receive slots (rank 1)
  double deadline_ = 0.0;
};

// The fan-out share sigma(m) of docs/MODELS.md, "Shared fan-out", and the pair share tau(m) of
// "Two receives ahead", measured among ranks 0, 1 and 2 of `trio`: rank 0 sends m bytes to rank 1
// alone, or then m bytes to rank 2 (sigma), or then m bytes again to rank 1, which posted both
// receives beforehand as the tree engine's pipeline does (tau); it completes each send before the
// next as the tree engine does. Rank 1 times its first receive from the common barrier. The
// second message delays the first by sigma g_p(m) (tau g_p(m)): 0 where the first has left before
// the second starts, g_p(m) where the two share the link. Rank 1's own clock on every side
// cancels the clocks' offset. The three kinds alternate so a disturbance hits all alike.
struct SecondMessageDelays {
  std::vector<double> other_receiver;  // per size, the median delay: sigma g_p(m)
  std::vector<double> same_receiver;   // tau g_p(m)
};

SecondMessageDelays second_message_delays(MPI_Comm trio, const std::vector<std::uint64_t>& sizes,
                                          int samples) {
  enum Kind { alone, other_receiver, same_receiver, kinds };
  int rank = 0;
  MPI_Comm_rank(trio, &rank);
  const std::size_t largest = std::max<std::uint64_t>(sizes.empty() ? 1 : sizes.back(), 1);
  std::vector<std::byte> buffer(largest), second_buffer(largest);
  SecondMessageDelays delays;
  for (const std::uint64_t m : sizes) {
    const int count = static_cast<int>(m);
    std::vector<double> times[kinds];
    for (int k = 0; k < kinds * samples; ++k) {
      const auto kind = static_cast<Kind>(k % kinds);
      const int receiver = kind == other_receiver ? 2 : 1;  // of the second message
      MPI_Request first = MPI_REQUEST_NULL, second = MPI_REQUEST_NULL;
      if (rank == 1) MPI_Irecv(buffer.data(), count, MPI_BYTE, 0, kTag, trio, &first);
      if (kind != alone && rank == receiver) {
        MPI_Irecv(second_buffer.data(), count, MPI_BYTE, 0, kTag, trio, &second);
      }
      MPI_Barrier(trio);
      if (rank == 0) {
        MPI_Request request = MPI_REQUEST_NULL;
        MPI_Isend(buffer.data(), count, MPI_BYTE, 1, kTag, trio, &request);
        MPI_Wait(&request, MPI_STATUS_IGNORE);
        if (kind != alone) {
          MPI_Isend(buffer.data(), count, MPI_BYTE, receiver, kTag, trio, &request);
          MPI_Wait(&request, MPI_STATUS_IGNORE);
        }
        for (int from = 1; from <= (kind == other_receiver ? 2 : 1); ++from) {
          MPI_Recv(nullptr, 0, MPI_BYTE, from, kTag, trio, MPI_STATUS_IGNORE);
        }
      } else if (first != MPI_REQUEST_NULL || second != MPI_REQUEST_NULL) {
        if (first != MPI_REQUEST_NULL) {
          const double t0 = MPI_Wtime();
          MPI_Wait(&first, MPI_STATUS_IGNORE);
          times[kind].push_back(MPI_Wtime() - t0);
        }
        MPI_Wait(&second, MPI_STATUS_IGNORE);
        MPI_Send(nullptr, 0, MPI_BYTE, 0, kTag, trio);
      }
    }
    if (rank == 1) {
      const double base = estimate(times[alone]).median;
      delays.other_receiver.push_back(estimate(times[other_receiver]).median - base);
      delays.same_receiver.push_back(estimate(times[same_receiver]).median - base);
    }
  }
  return delays;
}

// One size's table row: every value the pair measures at m, with the spreads the step search
// weighs them by.
MeasuredPoint measure_point(Pair& p, std::uint64_t m, const Estimate& rtt0) {
  MeasuredPoint measured;
  models::plogp::SizePoint& point = measured.point;
  point.bytes = m;
  const Estimate rtt = p.round_trip(m);
  // The burst's closing round trip is subtracted at its undisturbed value: a median inflated
  // by scheduler stalls would eat the gap of small messages (g would come out 0).
  const Estimate g = p.gap(m, rtt0.min, Receives::one_at_a_time);
  const Estimate gp = p.gap(m, rtt0.min, Receives::posted_ahead);
  const Estimate g2 = p.gap(m, rtt0.min, Receives::two_ahead);
  const Estimate os = p.send_overhead(m);
  const Estimate orr = p.recv_overhead(m, 2.0 * rtt.median + 20e-6);
  point.gap_s = g.median;
  point.gap_spread = g.spread;
  point.posted_gap_s = gp.median;
  point.posted_gap_spread = gp.spread;
  point.pipeline_gap_s = g2.median;
  measured.pipeline_gap_spread = g2.spread;
  // The ping-pong answers with 0 bytes: RTT(m) = one-way(m) + one-way(0), and one-way(0) =
  // RTT(0) / 2.
  point.one_way_s = std::max(0.0, rtt.median - rtt0.median / 2.0);
  measured.one_way_spread =
      point.one_way_s > 0.0 ? rtt.spread * rtt.median / point.one_way_s : 0.0;
  point.send_overhead_s = os.median;
  point.send_overhead_spread = os.spread;
  point.recv_overhead_s = orr.median;
  point.recv_overhead_spread = orr.spread;
  return measured;
}

// The step search (MeasureOptions::step_depth; docs/MODELS.md, "Steps between calibrated
// sizes"), on both ranks of the pair: rank 0 picks each midpoint, smallest bracket first, and
// whether it joins `table`; rank 1 follows.
void find_steps(Pair& p, MPI_Comm pair, int rank, const Estimate& rtt0, const MeasureOptions& o,
                double seconds_per_weight, std::vector<models::plogp::SizePoint>& table) {
  if (o.step_depth <= 0) return;
  struct Bracket {
    std::uint64_t a, b;
    int depth;
  };
  std::vector<Bracket> todo;
  for (std::size_t i = 1; i < table.size(); ++i) {
    if (step_midpoint(table[i - 1].bytes, table[i].bytes)) {
      todo.push_back({table[i - 1].bytes, table[i].bytes, 1});
    }
  }
  if (rank == 0 && o.progress) {
    fmt::print(stderr, "collsel-calibrate: step search: the midpoints of {} neighbouring sizes, "
               "kept where the line between the neighbours misses by more than {:.0f} %\n",
               todo.size(), 100 * o.step_tolerance);
  }
  std::vector<std::string> kept;
  int tried = 0;
  const double start = MPI_Wtime();
  for (;;) {
    std::uint64_t next = 0;  // 0: done
    Bracket bracket{};
    if (rank == 0 && !todo.empty() && static_cast<int>(kept.size()) < o.max_step_points) {
      const auto first = std::min_element(
          todo.begin(), todo.end(), [](const Bracket& x, const Bracket& y) { return x.a < y.a; });
      bracket = *first;
      todo.erase(first);
      next = step_midpoint(bracket.a, bracket.b);
    }
    MPI_Bcast(&next, 1, MPI_UINT64_T, 0, pair);
    if (next == 0) break;
    p.set_deadline(MPI_Wtime() + seconds_per_weight * size_weight(next));
    const MeasuredPoint c = measure_point(p, next, rtt0);
    ++tried;
    if (rank != 0) continue;
    const auto by_bytes = [](const models::plogp::SizePoint& x, std::uint64_t m) {
      return x.bytes < m;
    };
    const auto b = std::lower_bound(table.begin(), table.end(), bracket.b, by_bytes);
    const auto missed = interpolation_misses(*(b - 1), *b, c, o.step_tolerance);
    if (!missed) continue;
    table.insert(b, c.point);
    kept.push_back(fmt::format("{} B ({})", next, *missed));
    if (bracket.depth >= o.step_depth) continue;
    for (const Bracket half : {Bracket{bracket.a, next, bracket.depth + 1},
                               Bracket{next, bracket.b, bracket.depth + 1}}) {
      if (step_midpoint(half.a, half.b)) todo.push_back(half);
    }
  }
  if (rank == 0 && o.progress) {
    fmt::print(stderr, "collsel-calibrate: step search: {} sizes tried in {:.1f} s, {} kept{}{}\n",
               tried, MPI_Wtime() - start, kept.size(), kept.empty() ? "" : ": ",
               fmt::join(kept, ", "));
  }
}

}  // namespace

std::uint64_t step_midpoint(std::uint64_t a, std::uint64_t b) {
  if (b < a + kNarrowestStepBracket) return 0;
  // A multiple of 8 bytes, as a segment or a block of doubles would be.
  return (a + (b - a) / 2) / 8 * 8;
}

std::optional<std::string_view> interpolation_misses(const models::plogp::SizePoint& a,
                                                     const models::plogp::SizePoint& b,
                                                     const MeasuredPoint& c, double tolerance) {
  using Field = double models::plogp::SizePoint::*;
  struct Checked {
    std::string_view name;
    Field field;
    double spread;
  };
  const Checked checked[] = {{"g", &models::plogp::SizePoint::gap_s, c.point.gap_spread},
                             {"g_p", &models::plogp::SizePoint::posted_gap_s,
                              c.point.posted_gap_spread},
                             {"g_2", &models::plogp::SizePoint::pipeline_gap_s,
                              c.pipeline_gap_spread},
                             {"one-way", &models::plogp::SizePoint::one_way_s, c.one_way_spread}};
  const double t = static_cast<double>(c.point.bytes - a.bytes) /
                   static_cast<double>(b.bytes - a.bytes);
  for (const auto& [name, field, spread] : checked) {
    const double line = a.*field + (b.*field - a.*field) * t;
    const double measured = c.point.*field;
    const double miss = std::abs(measured - line);
    // Noise is no step: the miss must exceed the measurement's own interval twice over, and the
    // clock's grain.
    if (miss > kStepClockGrain_s &&
        miss > std::max(tolerance, 2.0 * spread) * std::max(measured, line)) {
      return name;
    }
  }
  return std::nullopt;
}

std::optional<models::plogp::Params> measure_plogp(MPI_Comm comm, const MeasureOptions& o) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  // Only ranks 0 and 1 take part; the pair communicator keeps the others out of the way.
  MPI_Comm pair = MPI_COMM_NULL;
  MPI_Comm_split(comm, rank < 2 ? 0 : MPI_UNDEFINED, rank, &pair);
  int size = 1;
  MPI_Comm_size(comm, &size);
  MPI_Comm trio = MPI_COMM_NULL;  // the fan-out share's three ranks, when rank 2 is meant for it
  if (o.fanout_share && size >= 3) {
    MPI_Comm_split(comm, rank < 3 ? 0 : MPI_UNDEFINED, rank, &trio);
  }
  std::optional<models::plogp::Params> result;
  if (pair != MPI_COMM_NULL) {
    Pair p(pair, rank, o.sizes.empty() ? 1 : o.sizes.back(), o);
    models::plogp::Params params;
    const double start = MPI_Wtime();
    double weight_left = 0.0;
    for (const std::uint64_t m : o.sizes) weight_left += size_weight(m);
    const double total_weight = weight_left;
    p.set_deadline(start + o.budget_s * size_weight(0) / total_weight);
    const Estimate rtt0 = p.round_trip(0);
    for (std::size_t i = 0; i < o.sizes.size(); ++i) {
      const std::uint64_t m = o.sizes[i];
      // This size's share of what is left of the budget, by weight.
      const double now = MPI_Wtime();
      const double left = std::max(0.0, start + o.budget_s - now);
      p.set_deadline(now + left * size_weight(m) / weight_left);
      params.table.push_back(measure_point(p, m, rtt0).point);
      weight_left -= size_weight(m);
      if (rank == 0 && o.progress) {
        const double elapsed = MPI_Wtime() - start;
        // What is left costs what the done part cost per unit of weight.
        const double eta = elapsed * weight_left / std::max(1e-9, total_weight - weight_left);
        o.progress(i, o.sizes.size(), elapsed, eta);
      }
    }
    find_steps(p, pair, rank, rtt0, o, o.budget_s / total_weight, params.table);
    params.posted_gaps = true;
    params.pipeline_gaps = true;
    params.one_way_times = true;
    // RTT(0) = 2 (L + g(0)) (Kielmann et al.): L is what a round trip has beyond two gaps.
    // L_p, the posted gap's latency, follows from the same round trip (plogp::Params).
    params.latency_s = std::max(0.0, rtt0.median / 2.0 - params.table.front().gap_s);
    params.latency_spread = params.latency_s > 0
                                ? rtt0.spread * rtt0.median / 2.0 / params.latency_s
                                : 0.0;
    if (rank == 0) result = std::move(params);
    MPI_Comm_free(&pair);
  }
  if (trio != MPI_COMM_NULL) {
    // Rank 2 sleeps until the pair is done: polling, it would take a core from the pair's
    // measurement (g came out 0 with 4 ranks on 2 cores: calibrate.quick_4).
    wait_without_polling(trio);
    // The table's sizes, the step search's included, which only rank 0 (the trio's rank 0)
    // knows.
    std::vector<std::uint64_t> sizes;
    if (result) {
      for (const auto& point : result->table) sizes.push_back(point.bytes);
    }
    int n = static_cast<int>(sizes.size());
    MPI_Bcast(&n, 1, MPI_INT, 0, trio);
    sizes.resize(static_cast<std::size_t>(n));
    MPI_Bcast(sizes.data(), n, MPI_UINT64_T, 0, trio);
    if (rank == 0 && o.progress) {
      fmt::print(stderr,
                 "collsel-calibrate: fan-out and pair shares, {} sizes, a second message each\n",
                 sizes.size());
    }
    // Few samples: the share only scales a term of the binomial trees, and the largest sizes
    // cost three transfers each.
    const auto delays = second_message_delays(trio, sizes, std::min(o.min_samples, 5));
    int trio_rank = 0;
    MPI_Comm_rank(trio, &trio_rank);
    if (trio_rank == 1) {
      MPI_Send(delays.other_receiver.data(), n, MPI_DOUBLE, 0, kTag, trio);
      MPI_Send(delays.same_receiver.data(), n, MPI_DOUBLE, 0, kTag, trio);
    } else if (trio_rank == 0) {
      std::vector<double> other(sizes.size()), same(sizes.size());
      MPI_Recv(other.data(), n, MPI_DOUBLE, 1, kTag, trio, MPI_STATUS_IGNORE);
      MPI_Recv(same.data(), n, MPI_DOUBLE, 1, kTag, trio, MPI_STATUS_IGNORE);
      for (std::size_t i = 0; i < other.size(); ++i) {
        auto& point = result->table[i];
        const double gp = point.posted_gap_s;
        const auto share = [gp](double delay) {
          return gp > 0.0 ? std::clamp(delay / gp, 0.0, 1.0) : 0.0;
        };
        point.fanout_share = share(other[i]);
        point.pair_share = share(same[i]);
      }
      result->fanout_shares = true;
      result->pair_shares = true;
    }
    MPI_Comm_free(&trio);
  }
  wait_without_polling(comm);
  return result;
}

std::optional<std::uint64_t> detect_eager_limit(const models::plogp::Params& params) {
  // A protocol switch is a discontinuity of g(m): between neighbouring sizes the gap grows far
  // more than the size does (8 KiB -> 12 KiB: g x7 on MPICH/UCX shared memory). The largest such
  // excess wins; bandwidth alone never makes g grow faster than m, and scheduler noise on small
  // sizes stays well below a factor 2.
  const auto& t = params.table;
  double best_excess = 2.0;
  std::optional<std::uint64_t> limit;
  for (std::size_t i = 1; i < t.size(); ++i) {
    if (t[i - 1].bytes == 0 || t[i - 1].gap_s <= 0.0) continue;
    const double growth = t[i].gap_s / t[i - 1].gap_s;
    const double size_growth =
        static_cast<double>(t[i].bytes) / static_cast<double>(t[i - 1].bytes);
    const double excess = growth / size_growth;
    if (excess > best_excess) {
      best_excess = excess;
      limit = t[i - 1].bytes;
    }
  }
  return limit;
}

}  // namespace collsel::calibrate
