#include "common/size_parse.hpp"

#include <array>
#include <cctype>
#include <charconv>
#include <limits>

#include <fmt/format.h>

#include "common/text.hpp"

namespace collsel::common {
namespace {

struct Suffix {
  std::string_view spelling;  // lowercase
  int shift = 0;              // bytes = value << shift
};

// Every spelling we accept, lowercase; comparison is case-insensitive.
constexpr std::array kSuffixes{
    Suffix{"", 0},     Suffix{"b", 0},
    Suffix{"k", 10},   Suffix{"kb", 10}, Suffix{"kib", 10},
    Suffix{"m", 20},   Suffix{"mb", 20}, Suffix{"mib", 20},
    Suffix{"g", 30},   Suffix{"gb", 30}, Suffix{"gib", 30},
    Suffix{"t", 40},   Suffix{"tb", 40}, Suffix{"tib", 40},
};

constexpr std::string_view kAccepted =
    "a whole number of bytes with an optional binary suffix, e.g. 0, 4096, 4k, 4KiB, 1M (= 1 MiB "
    "= 1048576), 1GiB";

std::optional<int> suffix_shift(std::string_view suffix) {
  const std::string lower = text::lowercase(suffix);
  for (const Suffix& s : kSuffixes) {
    if (s.spelling == lower) return s.shift;
  }
  return std::nullopt;
}

SizeParse failure(std::string_view text, std::string_view why) {
  return {std::nullopt, fmt::format("bad size '{}': {}; expected {}", text, why, kAccepted)};
}

}  // namespace

SizeParse parse_size(std::string_view text) {
  if (text.empty()) return failure(text, "empty");
  std::uint64_t value = 0;
  const char* const first = text.data();
  const char* const last = first + text.size();
  // from_chars rejects a leading '+' or '-' and spaces, which is what we want: a size has no sign.
  const auto [end, ec] = std::from_chars(first, last, value);
  if (end == first) return failure(text, "it does not start with a digit");
  if (ec == std::errc::result_out_of_range) return failure(text, "too large");
  const std::string_view suffix(end, static_cast<std::size_t>(last - end));
  if (!suffix.empty() && suffix.front() == '.') return failure(text, "fractions are not accepted");
  const std::optional<int> shift = suffix_shift(suffix);
  if (!shift) return failure(text, fmt::format("unknown suffix '{}'", suffix));
  if (value > (std::numeric_limits<std::uint64_t>::max() >> *shift)) {
    return failure(text, "too large");
  }
  return {value << *shift, {}};
}

std::string format_size(std::uint64_t bytes) {
  constexpr std::array<std::string_view, 4> kUnits{"TiB", "GiB", "MiB", "KiB"};
  constexpr std::array<int, 4> kShifts{40, 30, 20, 10};
  if (bytes != 0) {
    for (std::size_t i = 0; i < kUnits.size(); ++i) {
      const std::uint64_t unit = std::uint64_t{1} << kShifts[i];
      if (bytes % unit == 0) return fmt::format("{} {}", bytes / unit, kUnits[i]);
    }
  }
  return fmt::format("{} B", bytes);
}

}  // namespace collsel::common
