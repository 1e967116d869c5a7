#include "tools/logs/record_fields.hpp"

namespace collsel::logs::detail {

std::string summary_inconsistency(const SummaryRecord& s) {
  if (s.calls <= 0) return fmt::format("'calls' is {}; a summary entry counts at least one call",
                                       s.calls);
  if (s.predicted_calls < 0 || s.predicted_calls > s.calls) {
    return fmt::format("'predicted_calls' {} is not between 0 and 'calls' {}", s.predicted_calls,
                       s.calls);
  }
  if (s.bytes_lo > s.bytes_hi) {
    return fmt::format("'bytes_lo' {} is above 'bytes_hi' {}", s.bytes_lo, s.bytes_hi);
  }
  if (!s.overflow && s.comm_size < 1) {
    return fmt::format("'comm_size' is {} outside an overflow entry", s.comm_size);
  }
  return {};
}

}  // namespace collsel::logs::detail
