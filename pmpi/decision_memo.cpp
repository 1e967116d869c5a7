#include "pmpi/decision_memo.hpp"

#include <functional>

namespace collsel::pmpi {

std::size_t ShapeHash::operator()(const CallShape& s) const noexcept {
  std::size_t h = std::hash<std::uint64_t>{}(s.bytes);
  h ^= std::hash<int>{}(s.root) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  h ^= std::hash<int>{}(static_cast<int>(s.coll)) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  return h;
}

std::shared_ptr<const Decided> DecisionMemo::find(const CallShape& shape) const {
  std::lock_guard lock(mutex_);
  const auto it = map_.find(shape);
  return it == map_.end() ? nullptr : it->second;
}

void DecisionMemo::keep(const CallShape& shape, std::shared_ptr<const Decided> decided) noexcept {
  try {
    std::lock_guard lock(mutex_);
    if (map_.size() >= kCapacity) map_.clear();
    map_.insert_or_assign(shape, std::move(decided));
  } catch (...) {
    // Not remembered: the next communicator over the group decides the shape itself.
  }
}

}  // namespace collsel::pmpi
