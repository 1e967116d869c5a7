#include "pmpi/call_summary.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <memory>
#include <new>

#include <fmt/format.h>

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
    rung = static_cast<std::uint8_t>(call_rung);
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
  map(-1);
  init();
}

CallSummary::CallSummary(std::uint32_t capacity, const std::string& path, std::string& error)
    : capacity_(std::max<std::uint32_t>(capacity, 1)) {
  const std::uint64_t bytes =
      summary_table::file_bytes(capacity_, kCollectives.size(), uncovered::kFunctions);
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    error = fmt::format("cannot create {} ({})", path, std::strerror(errno));
  } else if (const int rc = ::posix_fallocate(fd, 0, static_cast<off_t>(bytes)); rc != 0) {
    // The whole file at once: a full disk fails here, at start-up, not at a later call (a page of
    // a shared mapping the file system cannot back raises SIGBUS when written).
    error = fmt::format("cannot reserve {} bytes for {} ({})", bytes, path, std::strerror(rc));
  }
  if (!error.empty()) {
    if (fd >= 0) {
      ::close(fd);
      ::unlink(path.c_str());
    }
    map(-1);
  } else {
    path_ = path;
    try {
      map(fd);
    } catch (...) {
      ::close(fd);
      ::unlink(path.c_str());
      throw;
    }
    ::close(fd);  // the mapping keeps the file
  }
  init();
}

CallSummary::~CallSummary() {
  uncovered::detach(uncovered_);  // if the counters live here, before the cells go
  if (map_ != nullptr) ::munmap(map_, map_bytes_);
}

void CallSummary::map(int fd) {
  map_bytes_ = summary_table::file_bytes(capacity_, kCollectives.size(), uncovered::kFunctions);
  void* p = fd >= 0 ? ::mmap(nullptr, map_bytes_, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
                    : ::mmap(nullptr, map_bytes_, PROT_READ | PROT_WRITE,
                             MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  map_ = p;
#ifdef MADV_POPULATE_WRITE
  // Fault the pages in writable now, in one call, rather than one page fault into the file
  // system at each new key's first call (log_file.cpp does the same for its chunks).
  if (fd >= 0) ::madvise(map_, map_bytes_, MADV_POPULATE_WRITE);
#endif
}

void CallSummary::init() {
  // The file is new (zero-filled): construct the header and entries in place.
  auto* base = static_cast<unsigned char*>(map_);
  header_ = std::construct_at(static_cast<summary_table::Header*>(map_));
  header_->capacity = capacity_;
  header_->overflow_entries = static_cast<std::uint32_t>(kCollectives.size());
  const auto copy_name = [](summary_table::Name& to, std::string_view name) {
    name = name.substr(0, to.size() - 1);
    std::copy(name.begin(), name.end(), to.begin());
  };
  static_assert(kCollectives.size() <= summary_table::kMaxCollectives);
  for (Collective c : kCollectives) {
    copy_name(header_->collectives[static_cast<std::size_t>(c)], collective_name(c));
  }
  header_->collective_count = static_cast<std::uint32_t>(kCollectives.size());
  // Every value a Rung can hold (its enumerators' range fits 3 bits); unused ones read "?".
  for (std::size_t i = 0; i < summary_table::kMaxRungs; ++i) {
    copy_name(header_->rungs[i], rung_name(static_cast<Rung>(i)));
  }
  header_->rung_count = static_cast<std::uint32_t>(summary_table::kMaxRungs);
  auto* entries = static_cast<void*>(base + sizeof(summary_table::Header));
  overflow_ = static_cast<SummaryEntry*>(entries);
  entries_ = overflow_ + kCollectives.size();
  for (std::size_t i = 0; i < kCollectives.size(); ++i) {
    SummaryEntry* e = std::construct_at(overflow_ + i);
    e->overflow = 1;
    e->coll = static_cast<std::uint8_t>(kCollectives[i]);
  }
  for (std::uint32_t i = 0; i < capacity_; ++i) std::construct_at(entries_ + i);
  header_->uncovered_entries = static_cast<std::uint32_t>(uncovered::kFunctions);
  uncovered_ = reinterpret_cast<summary_table::Uncovered*>(
      base + summary_table::uncovered_offset(capacity_, kCollectives.size()));
  for (std::size_t i = 0; i < uncovered::kFunctions; ++i) std::construct_at(uncovered_ + i);
  algorithm_of_.reserve(capacity_);
  // At most half the slots are ever used, so a probe run stays short and always ends at a free
  // slot; a power of two turns the modulo into a mask.
  slots_.assign(std::bit_ceil(std::size_t{capacity_} * 2), 0);
}

std::uint16_t CallSummary::algorithm_index(std::string_view name) {
  // Registered names have static storage: the address identifies the name (SummaryKey). A new
  // key's lookup only, never a call's.
  const std::uint32_t n = header_->algorithm_count;
  for (std::uint32_t i = 0; i < n; ++i) {
    if (algorithm_names_[i] == name.data()) return static_cast<std::uint16_t>(i);
  }
  if (n == summary_table::kMaxAlgorithms) return summary_table::kUnknownAlgorithm;
  algorithm_names_[n] = name.data();
  summary_table::Name& to = header_->algorithms[n];
  name = name.substr(0, to.size() - 1);
  std::copy(name.begin(), name.end(), to.begin());
  std::atomic_signal_fence(std::memory_order_seq_cst);  // the name before its count
  header_->algorithm_count = n + 1;
  return static_cast<std::uint16_t>(n);
}

SummaryEntry* CallSummary::entry(const SummaryKey& key) {
  const std::size_t mask = slots_.size() - 1;
  for (std::size_t i = hash_of(key) & mask;; i = (i + 1) & mask) {
    const std::uint32_t slot = slots_[i];
    if (slot == 0) {
      const std::uint32_t used = header_->used;
      if (used == capacity_) return nullptr;  // a new key and no room
      algorithm_of_.push_back(key.algorithm);  // within the reserved capacity: no allocation
      SummaryEntry& e = entries_[used];
      std::copy(key.site.pcs.begin(), key.site.pcs.end(), e.pcs.begin());
      e.depth = key.site.depth;
      e.comm_size = key.comm_size;
      e.algorithm = algorithm_index(key.algorithm);
      e.coll = static_cast<std::uint8_t>(key.coll);
      e.bucket = key.bucket;
      // A reader takes the first `used` entries: the key is in place before the count says so.
      std::atomic_signal_fence(std::memory_order_seq_cst);
      header_->used = used + 1;
      slots_[i] = used + 1;
      return &e;
    }
    SummaryEntry& e = entries_[slot - 1];
    if (algorithm_of_[slot - 1].data() == key.algorithm.data() && e.pcs == key.site.pcs &&
        e.depth == key.site.depth && e.comm_size == key.comm_size &&
        e.coll == static_cast<std::uint8_t>(key.coll) && e.bucket == key.bucket) {
      return &e;
    }
  }
}

SummaryKey CallSummary::key(const SummaryEntry& e) const {
  SummaryKey k;
  k.coll = static_cast<Collective>(e.coll);
  if (e.is_overflow()) {
    k.algorithm = kAnyAlgorithm;
    return k;
  }
  std::copy(e.pcs.begin(), e.pcs.end(), k.site.pcs.begin());
  k.site.depth = e.depth;
  k.algorithm = algorithm_of_[static_cast<std::size_t>(&e - entries_)];
  k.comm_size = e.comm_size;
  k.bucket = e.bucket;
  return k;
}

void CallSummary::count(SummaryEntry* e, Collective coll, Rung rung, std::uint64_t bytes,
                        double actual_s, double predicted_s) {
  ++header_->calls;
  if (e == nullptr) {
    ++header_->overflow_calls;
    e = &overflow_[static_cast<std::size_t>(coll)];
  }
  e->add(rung, bytes, actual_s, predicted_s);
}

void CallSummary::remove_file() {
  if (path_.empty()) return;
  ::unlink(path_.c_str());
  path_.clear();
}

bool CallSummary::add(const SummaryKey& key, Rung rung, std::uint64_t bytes, double actual_s,
                      double predicted_s) {
  SummaryEntry* e = entry(key);
  count(e, key.coll, rung, bytes, actual_s, predicted_s);
  return e != nullptr;
}

std::size_t CallSummary::memory_bytes() const {
  return map_bytes_ + algorithm_of_.capacity() * sizeof(std::string_view) +
         slots_.capacity() * sizeof(std::uint32_t) + sizeof(*this);
}

}  // namespace collsel::pmpi
