// Runs the built `collsel` binary (path from the build: COLLSEL_EXE) and captures its exit code,
// standard output and standard error, so CLI tests can parse what a user would see.
#pragma once

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "temp_dir.hpp"

namespace collsel::testing {

struct CommandResult {
  int exit_code = -1;  // -1: did not exit normally (signal)
  std::string out;
  std::string err;
};

// Single-quoted for /bin/sh, so any argument (spaces, quotes) reaches the program unchanged.
inline std::string shell_quote(const std::string& arg) {
  std::string out = "'";
  for (char c : arg) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

inline CommandResult run_collsel(const std::vector<std::string>& args) {
  const TempDir tmp("cli");
  const std::string err_file = (tmp.path() / "stderr").string();
  std::string command = shell_quote(COLLSEL_EXE);
  for (const auto& a : args) command += " " + shell_quote(a);
  command += " 2>" + shell_quote(err_file);

  CommandResult result;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return result;
  std::array<char, 4096> buffer{};
  std::size_t n = 0;
  while ((n = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0) {
    result.out.append(buffer.data(), n);
  }
  const int status = ::pclose(pipe);
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  std::ostringstream err;
  err << std::ifstream(err_file).rdbuf();
  result.err = err.str();
  return result;
}

}  // namespace collsel::testing
