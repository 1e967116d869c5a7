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

const Choice* CommContext::cached(const CallShape& shape) const {
  const auto it = cache_.find(shape);
  return it == cache_.end() ? nullptr : &it->second;
}

const Choice& CommContext::remember(const CallShape& shape, const Choice& choice) {
  if (cache_.size() >= kCacheCapacity) cache_.clear();
  return cache_.insert_or_assign(shape, choice).first->second;
}

}  // namespace collsel::pmpi
