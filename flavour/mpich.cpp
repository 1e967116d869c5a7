// The MPICH flavour: the library users preload by default. Its native routine is MPICH's own,
// whose default choices tools/decisions/native_choice.hpp describes; memory, clock, waiting and
// the natives are process_per_rank.cpp's.
#include "flavour/flavour.hpp"

namespace collsel::flavour {

std::string_view name() { return "mpich"; }
bool counts_uncovered() { return true; }

}  // namespace collsel::flavour
