#include "pmpi/call_summary.hpp"

#include <algorithm>
#include <bit>
#include <cmath>

namespace collsel::pmpi {
namespace {

// The overflow entries' algorithm (docs/LOGS.md): any algorithm of the collective.
constexpr std::string_view kAnyAlgorithm = "*";

std::uint64_t mix(std::uint64_t h, std::uint64_t v) {
  // One multiply-xorshift round (the splitmix64 finaliser's constants) per field: the site's FNV
  // hash is weak in the high bits, and the slot is taken from the low bits after this.
  h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  h ^= h >> 31;
  h *= 0xbf58476d1ce4e5b9ull;
  return h ^ (h >> 29);
}

std::uint64_t hash_of(const SummaryKey& k) {
  std::uint64_t h = CallSiteHash{}(k.site);
  h = mix(h, reinterpret_cast<std::uintptr_t>(k.algorithm.data()));
  h = mix(h, (static_cast<std::uint64_t>(k.coll) << 40) |
                 (static_cast<std::uint64_t>(k.bucket) << 32) |
                 static_cast<std::uint32_t>(k.comm_size));
  return h;
}

}  // namespace

void SummaryEntry::add(Rung call_rung, std::uint64_t bytes, double actual_s, double predicted_s) {
  const std::uint8_t bucket = size_bucket(bytes);
  if (calls == 0) {
    rung = call_rung;
    actual_min_s = actual_s;
    actual_max_s = actual_s;
  }
  bucket_lo = std::min(bucket_lo, bucket);
  bucket_hi = std::max(bucket_hi, bucket);
  ++calls;
  bytes_sum += bytes;
  actual_sum_s += actual_s;
  actual_min_s = std::min(actual_min_s, actual_s);
  actual_max_s = std::max(actual_max_s, actual_s);
  if (!std::isfinite(predicted_s)) return;
  if (predicted_calls == 0) {
    predicted_min_s = predicted_s;
    predicted_max_s = predicted_s;
  }
  ++predicted_calls;
  predicted_sum_s += predicted_s;
  predicted_min_s = std::min(predicted_min_s, predicted_s);
  predicted_max_s = std::max(predicted_max_s, predicted_s);
}

CallSummary::CallSummary(std::uint32_t capacity) : capacity_(std::max<std::uint32_t>(capacity, 1)) {
  entries_.reserve(capacity_);
  // At most half the slots are ever used, so a probe run stays short and always ends at a free
  // slot; a power of two turns the modulo into a mask.
  slots_.assign(std::bit_ceil(std::size_t{capacity_} * 2), 0);
  for (std::size_t i = 0; i < overflow_.size(); ++i) {
    overflow_[i].overflow = true;
    overflow_[i].key.coll = kCollectives[i];
    overflow_[i].key.algorithm = kAnyAlgorithm;
  }
}

SummaryEntry* CallSummary::entry(const SummaryKey& key) {
  const std::size_t mask = slots_.size() - 1;
  for (std::size_t i = hash_of(key) & mask;; i = (i + 1) & mask) {
    const std::uint32_t slot = slots_[i];
    if (slot == 0) {
      if (entries_.size() == capacity_) return nullptr;  // a new key and no room
      entries_.push_back({.key = key});  // within the reserved capacity: no allocation
      slots_[i] = static_cast<std::uint32_t>(entries_.size());
      return &entries_.back();
    }
    SummaryEntry& e = entries_[slot - 1];
    if (e.key == key) return &e;
  }
}

void CallSummary::count(SummaryEntry* e, Collective coll, Rung rung, std::uint64_t bytes,
                        double actual_s, double predicted_s) {
  ++calls_;
  if (e == nullptr) {
    ++overflow_calls_;
    e = &overflow_[static_cast<std::size_t>(coll)];
  }
  e->add(rung, bytes, actual_s, predicted_s);
}

bool CallSummary::add(const SummaryKey& key, Rung rung, std::uint64_t bytes, double actual_s,
                      double predicted_s) {
  SummaryEntry* e = entry(key);
  count(e, key.coll, rung, bytes, actual_s, predicted_s);
  return e != nullptr;
}

std::size_t CallSummary::memory_bytes() const {
  return entries_.capacity() * sizeof(SummaryEntry) + slots_.capacity() * sizeof(std::uint32_t) +
         sizeof(*this);
}

}  // namespace collsel::pmpi
