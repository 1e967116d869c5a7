#include "pmpi/stack_ids.hpp"

#include <algorithm>
#include <bit>

namespace collsel::pmpi {
namespace {

// The site's FNV hash is weak in its high bits; the splitmix64 finaliser spreads them before the
// slot is taken from the low bits.
std::uint64_t slot_hash(const CallSite& site) {
  std::uint64_t h = CallSiteHash{}(site);
  h ^= h >> 30;
  h *= 0xbf58476d1ce4e5b9ull;
  h ^= h >> 27;
  h *= 0x94d049bb133111ebull;
  return h ^ (h >> 31);
}

}  // namespace

StackIds::StackIds(std::uint32_t capacity) : capacity_(std::max<std::uint32_t>(capacity, 1)) {
  sites_.reserve(capacity_);
  slots_.assign(std::bit_ceil(std::size_t{capacity_} * 2), 0);
  // Ids past the table's follow its own, so that no two sites ever share one.
  next_unremembered_ = std::uint64_t{capacity_} + 1;
}

StackIds::Id StackIds::find_or_add(const CallSite& site) {
  if (site.depth == 0) return {};
  const std::size_t mask = slots_.size() - 1;
  for (std::size_t i = slot_hash(site) & mask;; i = (i + 1) & mask) {
    const std::uint32_t slot = slots_[i];
    if (slot == 0) {
      if (sites_.size() == capacity_) break;
      sites_.push_back(site);  // within the reserved capacity: no allocation
      slots_[i] = static_cast<std::uint32_t>(sites_.size());
      return {sites_.size(), true};
    }
    if (sites_[slot - 1] == site) return {slot, false};
  }
  overflowed_ = true;
  return {next_unremembered_++, true};
}

std::size_t StackIds::memory_bytes() const {
  return sites_.capacity() * sizeof(CallSite) + slots_.capacity() * sizeof(std::uint32_t) +
         sizeof(*this);
}

}  // namespace collsel::pmpi
