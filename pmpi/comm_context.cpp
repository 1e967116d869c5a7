#include "pmpi/comm_context.hpp"

#include <fmt/format.h>

#include "selector/node_placement.hpp"

namespace collsel::pmpi {

CommContext::CommContext(MPI_Comm user_comm, int creator_world_rank,
                         std::uint64_t creator_serial, bool gather_placement) {
  PMPI_Comm_dup(user_comm, &private_comm_);
  PMPI_Comm_rank(private_comm_, &rank_);
  PMPI_Comm_size(private_comm_, &size_);
  if (rank_ == 0) {
    fmt::format_to_n(id_.data(), id_.size() - 1, "{}.{}", creator_world_rank, creator_serial);
  }
  // The id is agreed once, when the context is made, so every rank logs the same name.
  PMPI_Bcast(id_.data(), static_cast<int>(id_.size()), MPI_CHAR, 0, private_comm_);
  if (gather_placement) placement_ = gather_node_placement(private_comm_);
}

CommContext::~CommContext() {
  if (private_comm_ != MPI_COMM_NULL) PMPI_Comm_free(&private_comm_);
}

std::size_t CommContext::ShapeHash::operator()(const CallShape& s) const noexcept {
  std::size_t h = std::hash<std::uint64_t>{}(s.bytes);
  h ^= std::hash<int>{}(s.root) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  h ^= std::hash<int>{}(static_cast<int>(s.coll)) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  return h;
}

ShapeState* CommContext::cached(const CallShape& shape) {
  const auto it = cache_.find(shape);
  return it == cache_.end() ? nullptr : &it->second;
}

ShapeState& CommContext::remember(const CallShape& shape, ShapeState state) {
  if (cache_.size() >= kCacheCapacity) {
    for (const auto& [s, st] : cache_) {
      if (auto l = st.learned(s)) evicted_.push_back(std::move(*l));
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
  if (!monitor || monitor->outcome().calls == 0) return std::nullopt;
  const AdaptOutcome& o = monitor->outcome();
  LearnedShape l;
  l.shape = shape;
  l.model_choice = std::string(ranking.front().name);
  l.chosen = std::string(ranking[static_cast<std::size_t>(o.chosen)].name);
  l.calls = o.calls;
  l.explore_calls = o.explore_calls;
  for (std::size_t i = 0; i < ranking.size() && i < o.measured_s.size(); ++i) {
    if (o.measured_s[i] == o.measured_s[i]) {  // not NaN: measured in this run
      l.measured_s.emplace_back(std::string(ranking[i].name), o.measured_s[i]);
    }
  }
  // A table entry needs the chosen algorithm's time: a shape never agreed on is not learned.
  if (!l.measured(l.chosen)) return std::nullopt;
  return l;
}

}  // namespace collsel::pmpi
