// The parameters of a chosen algorithm, kept apart from its name (STYLE.md 8.1 #2): the log, the
// report and the override all carry {name, params}.
#pragma once

#include <cstdint>

namespace collsel {

struct AlgoParams {
  std::uint64_t segment_bytes = 0;  // 0: not segmented (one message per edge)
  int window = 0;                   // exchanges in flight (alltoall.windowed); 0: not windowed

  friend bool operator==(const AlgoParams&, const AlgoParams&) = default;
};

}  // namespace collsel
