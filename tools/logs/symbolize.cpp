#include "tools/logs/symbolize.hpp"

#include <elf.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <string_view>

#include <fmt/format.h>

#include "pmpi/loaded_objects.hpp"

extern char** environ;

namespace collsel::tools {
namespace {

namespace fs = std::filesystem;

// binutils' addr2line reads DWARF (line tables, inlined subroutines, split debug info through
// .gnu_debuglink and build-id directories) and falls back to the symbol table. Running it is far
// less code than a DWARF reader, and report time is not a hot path.
constexpr const char* kAddr2line = "addr2line";
// Addresses per addr2line process: about 19 bytes each on the command line, far below ARG_MAX.
constexpr std::size_t kAddressesPerProcess = 2000;

std::string base_name(std::string_view path) {
  const auto slash = path.rfind('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

// The GNU build id of an ELF file on disk, from its PT_NOTE segments; nullopt when the file cannot
// be read as a 64-bit little-endian ELF file (the only kind the shim runs on), "" when it has none.
std::optional<std::string> file_build_id(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  Elf64_Ehdr eh{};
  if (!in.read(reinterpret_cast<char*>(&eh), sizeof eh)) return std::nullopt;
  if (std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
      eh.e_ident[EI_DATA] != ELFDATA2LSB || eh.e_phentsize != sizeof(Elf64_Phdr)) {
    return std::nullopt;
  }
  std::vector<Elf64_Phdr> phdrs(eh.e_phnum);
  in.seekg(static_cast<std::streamoff>(eh.e_phoff));
  if (!in.read(reinterpret_cast<char*>(phdrs.data()),
               static_cast<std::streamsize>(phdrs.size() * sizeof(Elf64_Phdr)))) {
    return std::nullopt;
  }
  constexpr std::uint64_t kMaxNotes = 1 << 20;  // a build id note is tens of bytes
  for (const Elf64_Phdr& ph : phdrs) {
    if (ph.p_type != PT_NOTE || ph.p_filesz > kMaxNotes) continue;
    std::vector<unsigned char> notes(ph.p_filesz);
    in.seekg(static_cast<std::streamoff>(ph.p_offset));
    if (!in.read(reinterpret_cast<char*>(notes.data()), static_cast<std::streamsize>(notes.size()))) {
      return std::nullopt;
    }
    auto id = pmpi::gnu_build_id(notes.data(), notes.size(), ph.p_align);
    if (!id.empty()) return id;
  }
  return std::string();
}

// Runs `argv` without a shell (paths may hold any character) and returns its standard output;
// nullopt when the program cannot be started. Its standard error is discarded: addr2line's
// complaints about odd DWARF are not the report's business, and unresolved addresses say "??".
std::optional<std::string> run_capturing_stdout(std::vector<std::string> argv, int& spawn_error) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    spawn_error = errno;
    return std::nullopt;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  std::vector<char*> args;
  for (auto& a : argv) args.push_back(a.data());
  args.push_back(nullptr);
  pid_t pid = 0;
  spawn_error = ::posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(fds[1]);
  if (spawn_error != 0) {
    ::close(fds[0]);
    return std::nullopt;
  }
  std::string out;
  char buf[65536];
  for (;;) {
    const ssize_t n = ::read(fds[0], buf, sizeof buf);
    if (n > 0) {
      out.append(buf, static_cast<std::size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      break;
    }
  }
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  // glibc's posix_spawnp reports a program it cannot exec as exit status 127 of the child.
  if (WIFEXITED(status) && WEXITSTATUS(status) == 127 && out.empty()) {
    spawn_error = ENOENT;
    return std::nullopt;
  }
  return out;
}

// "file.c:42", "file.c:42 (discriminator 3)", "??:0", "file.c:?" -> file (empty when unknown), line.
std::pair<std::string, int> parse_file_line(std::string_view s) {
  if (const auto d = s.find(" (discriminator"); d != std::string_view::npos) s = s.substr(0, d);
  const auto colon = s.rfind(':');
  if (colon == std::string_view::npos) return {std::string(s == "??" ? "" : s), 0};
  const auto file = s.substr(0, colon);
  int line = 0;
  for (char c : s.substr(colon + 1)) {
    if (c < '0' || c > '9') {
      line = 0;
      break;
    }
    line = line * 10 + (c - '0');
  }
  if (file == "??") return {"", 0};
  return {std::string(file), line};
}

}  // namespace

struct Symbolizer::Impl {
  // `addr2line -a -f -C -i` output: per address, a "0x..." line then (function, file:line) pairs,
  // innermost inlined function first and the function whose frame it is last.
  static void parse_addr2line(std::string_view out, const std::string& object,
                              std::map<std::pair<std::string, std::uint64_t>, Location>& into) {
    std::optional<std::uint64_t> address;
    std::vector<std::pair<std::string, std::string>> entries;
    const auto flush = [&] {
      if (!address || entries.empty()) return;
      Location loc;
      const auto& outer = entries.back().first;
      loc.function = outer == "??" ? "" : outer;
      // The line table's line for the call instruction is the innermost entry's: the source line
      // where the MPI call is written, even when that code was inlined into `function`.
      auto [file, line] = parse_file_line(entries.front().second);
      loc.file = std::move(file);
      loc.line = line;
      if (entries.size() > 1 && entries.front().first != "??") loc.inlined = entries.front().first;
      into[{object, *address}] = std::move(loc);
    };
    std::string pending_function;
    bool have_function = false;
    std::size_t pos = 0;
    while (pos < out.size()) {
      auto eol = out.find('\n', pos);
      if (eol == std::string_view::npos) eol = out.size();
      const std::string_view line = out.substr(pos, eol - pos);
      pos = eol + 1;
      // Function names never start with "0x" (C, C++ and Fortran identifiers), so this line opens
      // the next address's group.
      if (line.starts_with("0x")) {
        flush();
        entries.clear();
        have_function = false;
        std::uint64_t a = 0;
        const auto digits = line.substr(2);
        const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), a, 16);
        address = ec == std::errc() ? std::optional(a) : std::nullopt;
      } else if (!have_function) {
        pending_function = std::string(line);
        have_function = true;
      } else {
        entries.emplace_back(std::move(pending_function), std::string(line));
        have_function = false;
      }
    }
    flush();
  }

  // Whether `m`'s file on disk may be read for the addresses of `m` (checked once per path and
  // logged build id); records a problem when it may not.
  static bool usable(Symbolizer& s, const logs::Module& m) {
    const auto key = std::make_pair(m.path, m.build_id);
    if (const auto it = s.usable_.find(key); it != s.usable_.end()) return it->second;
    bool ok = true;
    std::error_code ec;
    if (!fs::is_regular_file(m.path, ec)) {
      ok = false;
      s.problems_.push_back(fmt::format(
          "{} is not on this machine: its call sites are shown as object+offset", m.path));
    } else if (!m.build_id.empty()) {
      const auto on_disk = file_build_id(m.path);
      if (on_disk && !on_disk->empty() && *on_disk != m.build_id) {
        ok = false;
        s.problems_.push_back(fmt::format(
            "{} has build id {}, the run's had {}: the file changed since the run, so its call "
            "sites are shown as object+offset",
            m.path, *on_disk, m.build_id));
      }
    }
    s.usable_.emplace(key, ok);
    return ok;
  }

  // The module of `world_rank` holding the call instruction before return address `pc`.
  static const logs::Module* module_of(const Symbolizer& s, int world_rank, std::uint64_t pc) {
    const auto it = s.modules_.find(world_rank);
    if (it == s.modules_.end() || pc == 0) return nullptr;
    const auto& mods = it->second;
    const std::uint64_t call = pc - 1;
    auto m = std::upper_bound(mods.begin(), mods.end(), call,
                              [](std::uint64_t a, const logs::Module& mod) { return a < mod.start; });
    if (m == mods.begin()) return nullptr;
    --m;
    return call < m->end ? &*m : nullptr;
  }

  // Fills `locations_` for every address of `wanted` (object path -> file addresses) it lacks.
  static void run_addr2line(Symbolizer& s,
                            const std::map<std::string, std::set<std::uint64_t>>& wanted) {
    for (const auto& [object, offsets] : wanted) {
      std::vector<std::uint64_t> missing;
      for (auto off : offsets) {
        if (!s.locations_.contains({object, off})) missing.push_back(off);
      }
      for (std::size_t first = 0; first < missing.size() && !s.addr2line_missing_;
           first += kAddressesPerProcess) {
        std::vector<std::string> argv = {kAddr2line, "-a", "-f", "-C", "-i", "-e", object};
        const std::size_t last = std::min(missing.size(), first + kAddressesPerProcess);
        for (std::size_t i = first; i < last; ++i) argv.push_back(fmt::format("{:#x}", missing[i]));
        int error = 0;
        const auto out = run_capturing_stdout(std::move(argv), error);
        if (!out) {
          s.addr2line_missing_ = true;
          s.problems_.push_back(
              error == ENOENT || error == EACCES
                  ? std::string("addr2line was not found (install binutils): call sites are "
                                "shown as object+offset")
                  : fmt::format("cannot run addr2line ({}): call sites are shown as object+offset",
                                std::strerror(error)));
          break;
        }
        parse_addr2line(*out, object, s.locations_);
      }
      // Addresses addr2line said nothing about are not asked again.
      for (auto off : missing) s.locations_.try_emplace({object, off});
    }
  }

  // Resolves every (rank, pc) of `keys` not yet in `cache_`: one addr2line pass per object.
  static void fill(Symbolizer& s, const std::set<std::pair<int, std::uint64_t>>& keys) {
    std::map<std::string, std::set<std::uint64_t>> wanted;
    std::vector<std::pair<std::pair<int, std::uint64_t>, Frame>> pending;  // waiting for addr2line
    for (const auto& key : keys) {
      if (s.cache_.contains(key)) continue;
      Frame f;
      f.pc = key.second;
      const logs::Module* m = module_of(s, key.first, key.second);
      bool readable = false;
      if (m != nullptr) {
        f.object = m->path;
        f.offset = key.second - 1 - m->base;
        readable = usable(s, *m);
      }
      if (readable) {
        wanted[f.object].insert(f.offset);
        pending.emplace_back(key, std::move(f));
      } else {
        s.cache_.emplace(key, std::move(f));  // object+offset, or no module: final already
      }
    }
    run_addr2line(s, wanted);
    for (auto& [key, f] : pending) {
      if (const auto it = s.locations_.find({f.object, f.offset}); it != s.locations_.end()) {
        f.function = it->second.function;
        f.inlined = it->second.inlined;
        f.file = it->second.file;
        f.line = it->second.line;
      }
      s.cache_.emplace(key, std::move(f));
    }
  }
};

std::string Frame::text() const {
  if (object.empty()) return fmt::format("{:#x} (no module)", pc);
  const std::string where = fmt::format("{}+{:#x}", base_name(object), offset);
  if (!file.empty() && line > 0) {
    const std::string file_line = fmt::format("{}:{}", base_name(file), line);
    if (function.empty()) return fmt::format("{} ({})", where, file_line);
    if (!inlined.empty()) return fmt::format("{} inlined in {} ({})", inlined, function, file_line);
    return fmt::format("{} ({})", function, file_line);
  }
  if (!function.empty()) return fmt::format("{} in {}", function, where);
  return where;
}

Symbolizer::Symbolizer(std::map<int, std::vector<logs::Module>> modules_by_rank)
    : modules_(std::move(modules_by_rank)) {
  for (auto& [rank, mods] : modules_) {
    std::sort(mods.begin(), mods.end(),
              [](const logs::Module& a, const logs::Module& b) { return a.start < b.start; });
  }
}

std::vector<Frame> Symbolizer::resolve(int world_rank, const std::vector<std::uint64_t>& stack) {
  std::set<std::pair<int, std::uint64_t>> keys;
  for (auto pc : stack) keys.emplace(world_rank, pc);
  Impl::fill(*this, keys);
  std::vector<Frame> frames;
  frames.reserve(stack.size());
  for (auto pc : stack) frames.push_back(cache_.at({world_rank, pc}));
  return frames;
}

void Symbolizer::prefetch(const std::vector<std::pair<int, std::vector<std::uint64_t>>>& stacks) {
  std::set<std::pair<int, std::uint64_t>> keys;
  for (const auto& [rank, stack] : stacks) {
    for (auto pc : stack) keys.emplace(rank, pc);
  }
  Impl::fill(*this, keys);
}

Symbolizer symbolizer_for(const logs::RunLog& log) {
  std::map<int, std::vector<logs::Module>> modules;
  for (const auto& r : log.ranks) modules[r.world_rank] = r.modules;
  return Symbolizer(std::move(modules));
}

}  // namespace collsel::tools
