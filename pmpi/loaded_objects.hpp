// The objects loaded in this process (the executable and its shared libraries), as the log's
// `module` records carry them: enough to turn a call site's absolute return address into an object
// and a file address at report time, on any machine that has the same files.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace collsel::pmpi {

struct LoadedObject {
  std::string path;          // absolute (the executable's from /proc/self/exe)
  std::uint64_t base = 0;    // load bias (dl_phdr_info::dlpi_addr): file address = pc - base
  std::uint64_t start = 0;   // [start, end): the span of its executable PT_LOAD segments
  std::uint64_t end = 0;
  std::string build_id;      // hex NT_GNU_BUILD_ID, empty when absent
};

// Objects with executable segments, in dl_iterate_phdr order (the executable first). vdso and
// nameless objects other than the executable are left out.
std::vector<LoadedObject> loaded_objects();

// The loader's count of objects loaded so far (dl_phdr_info::dlpi_adds): when it has not changed,
// no object appeared and loaded_objects() need not be read again. One dl_iterate_phdr step.
unsigned long long loaded_objects_added();

// The hex NT_GNU_BUILD_ID among the notes of one PT_NOTE segment (`align`: its p_align), "" when
// there is none. Shared by the capture (notes in memory) and the report (notes read from the file
// on disk, to check it is the file that ran).
std::string gnu_build_id(const unsigned char* notes, std::size_t size, std::size_t align);

}  // namespace collsel::pmpi
