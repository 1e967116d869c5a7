#include "pmpi/log_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace collsel::pmpi {

LogFile::LogFile(const std::string& path, std::string& error) {
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) {
    error = std::string("cannot create ") + path + " (" + std::strerror(errno) + ")";
    return;
  }
  if (!map_chunk(0)) {
    error = std::string("cannot map ") + path + " (" + failure_ + ")";
    ::close(fd_);
    fd_ = -1;
  }
}

LogFile::~LogFile() { close(); }

bool LogFile::map_chunk(std::uint64_t chunk) {
  unmap();
  const std::uint64_t offset = chunk * kChunkBytes;
  // posix_fallocate returns the error number rather than setting errno.
  if (const int rc = ::posix_fallocate(fd_, static_cast<off_t>(offset), kChunkBytes); rc != 0) {
    failure_ = std::strerror(rc);
    return false;
  }
  void* p = ::mmap(nullptr, kChunkBytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd_,
                   static_cast<off_t>(offset));
  if (p == MAP_FAILED) {
    failure_ = std::strerror(errno);
    return false;
  }
  map_ = static_cast<char*>(p);
  // The first write to each page of a shared file mapping is a page fault into the file system
  // (about one every ten records, which doubled trace's wall time per call on ext4); faulting the
  // chunk's 256 pages in writable here, in one call, takes that off the call path. MAP_POPULATE
  // would not: it maps shared pages read-only. Linux >= 5.14; elsewhere the faults stay.
#ifdef MADV_POPULATE_WRITE
  ::madvise(map_, kChunkBytes, MADV_POPULATE_WRITE);
#endif
  map_offset_ = offset;
  return true;
}

void LogFile::unmap() {
  if (map_ != nullptr) ::munmap(map_, kChunkBytes);
  map_ = nullptr;
}

bool LogFile::append(std::string_view bytes) {
  if (!ok()) return false;
  std::uint64_t at = committed_.load(std::memory_order_relaxed);
  claimed_.store(at + bytes.size(), std::memory_order_relaxed);
  std::atomic_signal_fence(std::memory_order_seq_cst);
  while (!bytes.empty()) {
    if (map_ == nullptr || at >= map_offset_ + kChunkBytes) {
      if (!map_chunk(at / kChunkBytes)) {
        claimed_.store(committed_.load(std::memory_order_relaxed), std::memory_order_relaxed);
        return false;
      }
    }
    const std::size_t in_chunk = static_cast<std::size_t>(at - map_offset_);
    const std::size_t n = std::min(bytes.size(), kChunkBytes - in_chunk);
    std::memcpy(map_ + in_chunk, bytes.data(), n);
    bytes.remove_prefix(n);
    at += n;
  }
  std::atomic_signal_fence(std::memory_order_seq_cst);
  committed_.store(at, std::memory_order_relaxed);
  return true;
}

void LogFile::append_final(std::string_view bytes) noexcept {
  if (fd_ < 0) return;
  const std::uint64_t at = committed_.load(std::memory_order_relaxed);
  std::uint64_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::pwrite(fd_, bytes.data() + done, bytes.size() - done,
                               static_cast<off_t>(at + done));
    if (n <= 0) {
      if (n < 0 && errno == EINTR) continue;
      return;
    }
    done += static_cast<std::uint64_t>(n);
  }
  // A record interrupted half-copied would otherwise follow the final one as a broken line.
  static constexpr char kZeros[512] = {};
  std::uint64_t blank = at + done;
  const std::uint64_t claimed = claimed_.load(std::memory_order_relaxed);
  while (blank < claimed) {
    const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(claimed - blank,
                                                                            sizeof kZeros));
    if (::pwrite(fd_, kZeros, n, static_cast<off_t>(blank)) <= 0) break;
    blank += n;
  }
  committed_.store(at + done, std::memory_order_relaxed);
}

std::string LogFile::close() {
  if (fd_ < 0) return {};
  unmap();
  std::string error;
  if (::ftruncate(fd_, static_cast<off_t>(size())) != 0) error = std::strerror(errno);
  if (::close(fd_) != 0 && error.empty()) error = std::strerror(errno);
  fd_ = -1;
  return error;
}

}  // namespace collsel::pmpi
