// Report-time symbolisation of call sites: absolute return addresses of one rank, resolved against
// that rank's `module` records (ASLR gives each rank its own addresses) into function, file:line
// where the object has debug information, and object+offset otherwise.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "tools/logs/log_reader.hpp"

namespace collsel::tools {

struct Frame {
  std::uint64_t pc = 0;       // the return address as logged
  std::string object;         // path of the object holding it; empty: no module matched
  std::uint64_t offset = 0;   // file address of the call instruction in `object`
  std::string function;       // demangled; empty when unknown
  std::string file;           // source file; empty when no debug line information
  int line = 0;               // 0 when unknown
  // The innermost inlined function `file:line` lies in, when the call was inlined into
  // `function` (the function whose frame this is); empty otherwise.
  std::string inlined;

  // "main (ring.c:42)", "exchange inlined in main (ring.c:42)", "solver_step in
  // libsolver.so+0x1a2b", "libsolver.so+0x1a2b" or "0x7f... (no module)": the text people read,
  // also the key that groups a site over ranks.
  [[nodiscard]] std::string text() const;
};

class Symbolizer {
 public:
  // `modules` of every rank, indexed by world rank (RunLog::ranks[i].modules).
  explicit Symbolizer(std::map<int, std::vector<logs::Module>> modules_by_rank);

  // Resolves a stack of `world_rank`. Results are cached per (rank, pc); each object is read once
  // per batch, however many addresses it holds. Never throws on missing or changed files: the
  // frame falls back to object+offset.
  std::vector<Frame> resolve(int world_rank, const std::vector<std::uint64_t>& stack);

  // Resolves every distinct address of many stacks at once (one pass per object), so later
  // resolve() calls hit the cache. Optional: resolve() works without it, but slower.
  void prefetch(const std::vector<std::pair<int, std::vector<std::uint64_t>>>& stacks);

  // Problems met (an object file missing, a build id that differs from the log's), one sentence
  // each, for the report's warnings.
  [[nodiscard]] const std::vector<std::string>& problems() const { return problems_; }

 private:
  struct Impl;  // the helpers of symbolize.cpp that fill the caches
  // What debug information says about one file address of one object.
  struct Location {
    std::string function, inlined, file;
    int line = 0;
  };
  std::map<int, std::vector<logs::Module>> modules_;  // each rank's sorted by start
  std::map<std::pair<int, std::uint64_t>, Frame> cache_;
  // Per (object path, file address): the object file serves every rank whatever its ASLR.
  std::map<std::pair<std::string, std::uint64_t>, Location> locations_;
  // Per (object path, build id in the log): whether the file on disk may be read for it.
  std::map<std::pair<std::string, std::string>, bool> usable_;
  bool addr2line_missing_ = false;
  std::vector<std::string> problems_;
};

// A symbolizer over every rank's `module` records (RunLog::ranks): call sites are per-rank
// addresses (ASLR gives each rank its own layout).
Symbolizer symbolizer_for(const logs::RunLog& log);

}  // namespace collsel::tools
