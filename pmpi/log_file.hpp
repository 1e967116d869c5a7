// A rank's log file, written through a shared memory mapping so that every record is in the
// kernel's page cache the moment it is appended: the pages of a MAP_SHARED file mapping belong to
// the file, not to the process, so a SIGKILL (MPICH's launcher sends it to every other rank after
// one rank's MPI_Abort; no handler runs) loses nothing that was appended.
//
// The file grows in chunks of kChunkBytes, reserved with posix_fallocate before they are mapped:
// writing to a mapped page the file system cannot back raises SIGBUS, while fallocate fails
// cleanly with ENOSPC, so a full disk stops the log with a message instead of killing the job.
// Only the chunk being written is mapped. A clean close() truncates the file to the bytes
// appended; a file whose process died keeps the rest of its last chunk as NUL bytes, which readers
// skip (docs/LOGS.md).
//
// Not thread-safe: the owner (CallLog) serialises append() and close(). append_final() is the
// exception: it uses only async-signal-safe calls (pwrite) and atomics, for the signal handler.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace collsel::pmpi {

class LogFile {
 public:
  static constexpr std::size_t kChunkBytes = std::size_t{1} << 20;

  // Creates (truncates) `path`; `error` receives a sentence when that fails and ok() is false.
  LogFile(const std::string& path, std::string& error);
  ~LogFile();
  LogFile(const LogFile&) = delete;
  LogFile& operator=(const LogFile&) = delete;

  [[nodiscard]] bool ok() const { return fd_ >= 0 && failure_.empty(); }
  // Why the file stopped taking bytes (errno text); empty while ok().
  [[nodiscard]] const std::string& failure() const { return failure_; }
  // Bytes appended so far (the file's length after close()).
  [[nodiscard]] std::uint64_t size() const { return committed_.load(std::memory_order_relaxed); }

  // Appends whole records' bytes. False (and ok() false from then on) when the file cannot grow.
  bool append(std::string_view bytes);
  // From a signal handler: writes `bytes` after the last complete record with pwrite(2) and
  // blanks a record that append() had begun copying, so the file ends on whole lines. Nothing
  // else may write the file afterwards (CallLog's state sees to that).
  void append_final(std::string_view bytes) noexcept;
  // Unmaps, truncates to size() and closes. Returns the errno text of a failure, empty if none.
  std::string close();

 private:
  bool map_chunk(std::uint64_t chunk);
  void unmap();

  int fd_ = -1;
  char* map_ = nullptr;          // the mapped chunk
  std::uint64_t map_offset_ = 0;  // its offset in the file
  // Appended and complete; and how far the record being copied reaches (> committed_ only during
  // an append). Atomics: a signal handler reads them.
  std::atomic<std::uint64_t> committed_{0};
  std::atomic<std::uint64_t> claimed_{0};
  std::string failure_;
};

}  // namespace collsel::pmpi
