// Writing the tools' output files so that a reader (a browser, an MPI job reading a tuning file,
// a report generator) never sees half of one.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace collsel::common {

// Writes `bytes` to `path`; false when the file cannot be created or written.
bool write_file(const std::filesystem::path& path, std::string_view bytes);

// Writes `bytes` to `path` through `path.tmp` renamed into place. Returns the problem, or
// nothing on success.
std::optional<std::string> write_file_atomically(const std::string& path, std::string_view bytes);

}  // namespace collsel::common
