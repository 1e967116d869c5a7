// What the user asked for (config file + environment), in the form decide() consumes.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "selector/collective.hpp"

namespace collsel {

// The override value that means "always the MPI library's own routine".
inline constexpr std::string_view kNativeName = "native";

struct CollectivePolicy {
  bool enabled = true;
  std::optional<std::string> force;  // a registered algorithm name or "native"

  // An algorithm of collsel's is forced (not "native"): served on every call of this collective.
  [[nodiscard]] bool forces_algorithm() const { return force && *force != kNativeName; }
};

struct Policy {
  std::array<CollectivePolicy, kCollectives.size()> per_coll{};
  std::optional<std::uint64_t> segment_bytes;  // fixed segment size for segmented algorithms
  std::uint64_t segment_unit_bytes = 8;         // segment sizes searched are multiples of this
  std::optional<int> window;                    // fixed window of alltoall.windowed

  CollectivePolicy& of(Collective c) { return per_coll[static_cast<std::size_t>(c)]; }
  const CollectivePolicy& of(Collective c) const { return per_coll[static_cast<std::size_t>(c)]; }
};

}  // namespace collsel
