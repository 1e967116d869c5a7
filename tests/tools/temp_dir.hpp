// A fresh directory under the system's temporary directory, removed with everything in it when
// the test ends, so tests that write logs or models never see each other's files.
#pragma once

#include <atomic>
#include <filesystem>
#include <string>
#include <string_view>

#include <unistd.h>

namespace collsel::testing {

class TempDir {
 public:
  explicit TempDir(std::string_view label) {
    static std::atomic<int> counter{0};
    path_ = std::filesystem::temp_directory_path() /
            ("collsel-" + std::string(label) + "-" + std::to_string(::getpid()) + "-" +
             std::to_string(counter++));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ignored;  // a failed clean-up must not fail the test that used the directory
    std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  [[nodiscard]] const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace collsel::testing
