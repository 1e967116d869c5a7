#include "common/duration_format.hpp"

#include <cmath>

#include <fmt/format.h>

namespace collsel::common {
namespace {

// Decimals giving three significant digits for a value in [0, 1000).
int decimals_for(double value) {
  const double magnitude = std::fabs(value);
  if (magnitude < 10.0) return 2;
  if (magnitude < 100.0) return 1;
  return 0;
}

}  // namespace

std::string format_duration(double seconds) {
  if (std::isnan(seconds)) return "-";
  if (std::isinf(seconds)) return seconds > 0 ? "inf" : "-inf";
  const double magnitude = std::fabs(seconds);
  double value = seconds * 1e6;
  const char* unit = "us";
  if (magnitude >= 1.0) {
    value = seconds;
    unit = "s";
  } else if (magnitude >= 1e-3) {
    value = seconds * 1e3;
    unit = "ms";
  }
  return fmt::format("{:.{}f} {}", value, decimals_for(value), unit);
}

std::string format_percent(double fraction) {
  if (std::isnan(fraction)) return "-";
  return fmt::format("{:.1f}%", fraction * 100.0);
}

std::string format_signed_percent(double fraction) {
  if (std::isnan(fraction)) return "-";
  return fmt::format("{:+.1f}%", fraction * 100.0);
}

}  // namespace collsel::common
