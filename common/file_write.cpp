#include "common/file_write.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <system_error>

#include <fmt/format.h>

namespace collsel::common {

namespace fs = std::filesystem;

bool write_file(const fs::path& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return static_cast<bool>(out.flush());
}

std::optional<std::string> write_file_atomically(const std::string& path, std::string_view bytes) {
  const std::string tmp = path + ".tmp";
  if (!write_file(tmp, bytes)) {
    std::error_code ignored;
    fs::remove(tmp, ignored);
    return fmt::format("cannot write {} ({}); check the directory exists and is writable", tmp,
                       std::strerror(errno));
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) {
    fs::remove(tmp, ec);
    return fmt::format("cannot rename {} to {}: {}", tmp, path, ec.message());
  }
  return std::nullopt;
}

}  // namespace collsel::common
