// Times as the tools print them: adaptive units so a table of predictions spanning microseconds
// to seconds stays readable. ASCII "us", not "µs", so columns stay aligned on any terminal and in
// files that are later cut or grepped.
#pragma once

#include <string>

namespace collsel::common {

// "12.3 us", "1.85 ms", "2.40 s"; three significant digits; "-" for NaN (no model).
std::string format_duration(double seconds);

// "18.0%" for 0.18; "-" for NaN.
std::string format_percent(double fraction);
// "+18.0%" / "-18.0%": the sign matters for E_rel (negative: the model is optimistic).
std::string format_signed_percent(double fraction);

}  // namespace collsel::common
