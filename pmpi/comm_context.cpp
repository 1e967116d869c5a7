#include "pmpi/comm_context.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include "selector/calls.hpp"

namespace collsel::pmpi {
namespace {

AgreeValues to_values(const AdaptSample& s) { return {s.mean_s, s.rel_se, s.gap_s}; }
AdaptSample from_values(const AgreeValues& v) {
  return {.mean_s = v[0], .rel_se = v[1], .gap_s = v[2]};
}

}  // namespace

// Up to kAllExchangeRanks ranks, every rank sends its sample to every other (P - 1 messages of 24
// bytes each way, one round): on the emulated cluster each hop of the tree below waits for a 4-16
// ms scheduler slot, and its 2 log2(8) = 6 sequential hops cost about 0.1 s per agreement
// (docs/BENCHMARKS.md, "Self-correction"). Past it, the tree's 2 log2(P) hops cost less than a
// root's P - 1 messages would.
//
// Immediate and deferred agreements, of any number of shapes at once, share one tag. That is safe
// because all are this one round up to kAllExchangeRanks (the only size deferred): every rank
// posts its receives and sends in the order of the calls, which is the same on every rank, and
// MPI matches the messages of one sender and tag, in the order they were sent, to the receives
// in the order they were posted, whatever order they are waited for in.

void CommContext::post_exchange(DeferredAgreement& d, const AdaptSample& local) const {
  const MPI_Comm comm = this->comm();
  const int tag = tag_base() + kTagAgree;
  d.mine = to_values(local);
  d.n_requests = 0;
  for (int peer = 0; peer < size_; ++peer) {
    if (peer == rank_) continue;
    PMPI_Irecv(d.others[static_cast<std::size_t>(peer)].data(), kAgreeFields, MPI_DOUBLE, peer,
               tag, comm,
               &d.requests[static_cast<std::size_t>(d.n_requests++)]);
  }
  for (int peer = 0; peer < size_; ++peer) {
    if (peer == rank_) continue;
    PMPI_Isend(d.mine.data(), kAgreeFields, MPI_DOUBLE, peer, tag, comm,
               &d.requests[static_cast<std::size_t>(d.n_requests++)]);
  }
}

AdaptSample CommContext::finish_exchange(DeferredAgreement& d) const {
  PMPI_Waitall(d.n_requests, d.requests.data(), MPI_STATUSES_IGNORE);
  // merge_agreed() is exact and commutative: every rank merges the same P samples.
  AdaptSample result = from_values(d.mine);
  for (int peer = 0; peer < size_; ++peer) {
    if (peer == rank_) continue;
    result = merge_agreed(result, from_values(d.others[static_cast<std::size_t>(peer)]));
  }
  return result;
}

bool CommContext::start_deferred(ShapeState& state, const AdaptSample& local) const {
  if (size_ > kAllExchangeRanks || !served() || !state.deferred) return false;
  settle(state);  // not expected: the monitor asks for one at a time
  post_exchange(*state.deferred, local);
  state.deferred->active = true;
  return true;
}

void CommContext::settle(ShapeState& state, bool apply) const {
  if (!state.deferred || !state.deferred->active) return;
  state.deferred->active = false;
  const AdaptSample agreed = finish_exchange(*state.deferred);
  if (apply && state.monitor) state.monitor->agree(agreed);
}

void CommContext::settle_all(bool apply) {
  for (auto& [shape, state] : cache_) settle(state, apply);
}

AdaptSample CommContext::agree_slowest(const AdaptSample& local) const {
  if (size_ <= kAllExchangeRanks) {
    DeferredAgreement round;
    post_exchange(round, local);
    return finish_exchange(round);
  }
  const MPI_Comm comm = this->comm();
  const int tag = tag_base() + kTagAgree;
  AgreeValues value = to_values(local);
  // Binomial reduce to rank 0, then binomial broadcast back: 2 log2(P) messages of 24 bytes on
  // the critical path, reached only at the monitor's few agreement points.
  int mask = 1;
  for (; mask < size_; mask <<= 1) {
    if ((rank_ & mask) != 0) {
      PMPI_Send(value.data(), kAgreeFields, MPI_DOUBLE, rank_ - mask, tag, comm);
      break;
    }
    if (rank_ + mask < size_) {
      AgreeValues other{};
      PMPI_Recv(other.data(), kAgreeFields, MPI_DOUBLE, rank_ + mask, tag, comm,
                MPI_STATUS_IGNORE);
      value = to_values(merge_agreed(from_values(value), from_values(other)));
    }
  }
  // Rank r received from r - mask (its lowest set bit) and now forwards to r + mask/2, ....
  if (rank_ != 0) {
    PMPI_Recv(value.data(), kAgreeFields, MPI_DOUBLE, rank_ - mask, tag, comm,
              MPI_STATUS_IGNORE);
  }
  for (mask >>= 1; mask > 0; mask >>= 1) {
    if (rank_ + mask < size_) {
      PMPI_Send(value.data(), kAgreeFields, MPI_DOUBLE, rank_ + mask, tag, comm);
    }
  }
  return from_values(value);
}

ShapeState* CommContext::cached(const CallShape& shape) noexcept {
  const auto it = cache_.find(shape);
  return it == cache_.end() ? nullptr : &it->second;
}

ShapeState& CommContext::remember(const CallShape& shape, ShapeState state) {
  if (cache_.size() >= kCacheCapacity) {
    // Every rank resets at the same call, and every rank started the agreements in flight.
    settle_all(false);
    // Every rank starts over at the same call, whatever else fails here: a monitor kept on one
    // rank and restarted on another would reach its agreement points at different calls.
    try {
      for (const auto& [s, st] : cache_) {
        if (auto l = st.learned(s)) evicted_.push_back(std::move(*l));
      }
    } catch (...) {
      // What these monitors learned is lost on this rank (no memory); the decisions are not.
    }
    cache_.clear();
  }
  return cache_.insert_or_assign(shape, std::move(state)).first->second;
}

std::vector<LearnedShape> CommContext::learned() const {
  std::vector<LearnedShape> out = evicted_;
  for (const auto& [s, st] : cache_) {
    if (auto l = st.learned(s)) out.push_back(std::move(*l));
  }
  return out;
}

std::optional<LearnedShape> ShapeState::learned(const CallShape& shape) const {
  if (!decided || !monitor || monitor->outcome().calls == 0) return std::nullopt;
  const std::vector<Choice>& ranking = decided->ranking;
  const AdaptOutcome& o = monitor->outcome();
  // A table entry needs the chosen algorithm's time: a shape never agreed on (most of those of a
  // communicator used a few times) is not learned, and costs no strings.
  const auto chosen = static_cast<std::size_t>(o.chosen);
  if (chosen >= ranking.size() || chosen >= o.measured_s.size() ||
      std::isnan(o.measured_s[chosen])) {
    return std::nullopt;
  }
  LearnedShape l;
  l.shape = shape;
  const auto label = [](const Choice& c) {
    return learned_label(c.name, c.moved_segment, c.params.segment_bytes);
  };
  l.model_choice = std::string(ranking.front().name);
  l.chosen = label(ranking[chosen]);
  l.calls = o.calls;
  l.explore_calls = o.explore_calls;
  for (std::size_t i = 0; i < ranking.size() && i < o.measured_s.size(); ++i) {
    if (o.measured_s[i] == o.measured_s[i]) {  // not NaN: measured in this run
      l.measured_s.emplace_back(label(ranking[i]), o.measured_s[i]);
    }
  }
  return l;
}

}  // namespace collsel::pmpi
