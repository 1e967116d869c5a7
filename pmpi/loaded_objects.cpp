#include "loaded_objects.hpp"

#include <elf.h>
#include <link.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstring>
#include <filesystem>
#include <limits>
#include <new>
#include <string_view>
#include <system_error>

namespace collsel::pmpi {
namespace {

// The kernel's vDSO has no file to read symbols from at report time.
bool is_vdso(std::string_view name) {
  return name.starts_with("linux-vdso") || name.starts_with("linux-gate");
}

std::string main_executable_path() {
  // dl_iterate_phdr names the executable "", so the kernel's link is the only source of its path.
  std::array<char, 4096> buf{};
  const ssize_t n = ::readlink("/proc/self/exe", buf.data(), buf.size() - 1);
  return n > 0 ? std::string(buf.data(), static_cast<std::size_t>(n)) : std::string();
}

// The loader keeps names as it found them (LD_PRELOAD=./libcollsel.so stays relative); the report
// may run from another directory, so make them absolute. Symlinks are kept: "libc.so.6" reads
// better in a report than the versioned file it points to, and both hold the same bytes.
std::string absolute_path(const char* name) {
  std::error_code ec;
  auto p = std::filesystem::absolute(name, ec);
  return ec ? std::string(name) : p.lexically_normal().string();
}

std::string hex(const unsigned char* bytes, std::size_t n) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(2 * n);
  for (std::size_t i = 0; i < n; ++i) {
    out += kDigits[bytes[i] >> 4];
    out += kDigits[bytes[i] & 0xf];
  }
  return out;
}

// NT_GNU_BUILD_ID from the object's PT_NOTE segments, read in memory (they are always mapped, so
// no file access is needed, and the id is the loaded object's even if the file changed since).
std::string build_id(const dl_phdr_info& info) {
  for (int i = 0; i < info.dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info.dlpi_phdr[i];
    if (ph.p_type != PT_NOTE) continue;
    auto id = gnu_build_id(reinterpret_cast<const unsigned char*>(info.dlpi_addr + ph.p_vaddr),
                           ph.p_filesz, ph.p_align);
    if (!id.empty()) return id;
  }
  return {};
}

struct Walk {
  std::vector<LoadedObject>* out;
  bool first = true;  // glibc reports the executable first
  bool out_of_memory = false;
};

void add_object(const dl_phdr_info* info, Walk& walk) {
  const bool is_main = walk.first;
  walk.first = false;
  const char* name = info->dlpi_name ? info->dlpi_name : "";
  if (is_vdso(name) || (!is_main && name[0] == '\0')) return;

  std::uint64_t lo = std::numeric_limits<std::uint64_t>::max();
  std::uint64_t hi = 0;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD || (ph.p_flags & PF_X) == 0) continue;
    lo = std::min<std::uint64_t>(lo, ph.p_vaddr);
    hi = std::max<std::uint64_t>(hi, ph.p_vaddr + ph.p_memsz);
  }
  if (lo >= hi) return;  // no code: no call site can point into it

  LoadedObject o;
  o.path = name[0] == '\0' ? main_executable_path() : absolute_path(name);
  o.base = info->dlpi_addr;
  o.start = info->dlpi_addr + lo;
  o.end = info->dlpi_addr + hi;
  o.build_id = build_id(*info);
  walk.out->push_back(std::move(o));
}

// An exception must not unwind through dl_iterate_phdr, which holds the loader's lock.
int visit(dl_phdr_info* info, std::size_t, void* data) {
  auto& walk = *static_cast<Walk*>(data);
  try {
    add_object(info, walk);
    return 0;
  } catch (const std::bad_alloc&) {
    walk.out_of_memory = true;
    return 1;  // stops the walk
  }
}

}  // namespace

std::string gnu_build_id(const unsigned char* notes, std::size_t size, std::size_t align) {
  // Notes are 4-aligned, except in 8-aligned note segments (.note.gnu.property).
  align = align == 8 ? 8 : 4;
  const auto round = [align](std::size_t n) { return (n + align - 1) / align * align; };
  std::size_t at = 0;
  while (size - at >= sizeof(ElfW(Nhdr))) {
    ElfW(Nhdr) note;
    std::memcpy(&note, notes + at, sizeof note);
    const std::size_t name = at + sizeof note;
    const std::size_t desc = name + round(note.n_namesz);
    const std::size_t next = desc + round(note.n_descsz);
    if (desc > size || next > size || note.n_descsz > size) break;  // truncated or malformed
    if (note.n_type == NT_GNU_BUILD_ID && note.n_namesz == 4 &&
        std::memcmp(notes + name, "GNU", 4) == 0) {
      return hex(notes + desc, note.n_descsz);
    }
    at = next;
  }
  return {};
}

unsigned long long loaded_objects_added() {
  unsigned long long adds = 0;
  dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t size, void* data) {
        // dlpi_adds is present when the loader's struct reaches it (glibc >= 2.4).
        if (size >= offsetof(dl_phdr_info, dlpi_adds) + sizeof info->dlpi_adds) {
          *static_cast<unsigned long long*>(data) = info->dlpi_adds;
        }
        return 1;  // the count is the same in every entry: the first one is enough
      },
      &adds);
  return adds;
}

std::vector<LoadedObject> loaded_objects() {
  std::vector<LoadedObject> out;
  Walk walk{&out};
  dl_iterate_phdr(visit, &walk);
  if (walk.out_of_memory) throw std::bad_alloc();
  return out;
}

}  // namespace collsel::pmpi
