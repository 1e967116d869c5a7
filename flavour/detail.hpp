// What each flavour file implements for the common parts of flavour/ (not for other folders).
#pragma once

#include <cstddef>

namespace collsel::flavour::detail {

// `bytes` (> 0) of zero-filled payload memory, or shared memory (contents meaningless) where the
// flavour shares it; throws std::bad_alloc like new.
std::byte* allocate_payload(std::size_t bytes, bool& shared);
void free_payload(std::byte* data, bool shared);

}  // namespace collsel::flavour::detail
