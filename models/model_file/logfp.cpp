// [logfp]: seed 004's LogfP parameters from the 1:P-P:1 benchmark.
#include "models/model_file/sections.hpp"

namespace collsel::models::model_file {
namespace {

// [logfp]: seed 004's parameters from the 1:P-P:1 benchmark (models/logfp/logfp.hpp).
constexpr KeySpec kLogfpKeys[] = {
    {"latency_s", Kind::number, true, "4.6e-6"},
    {"o_min_s", Kind::number, true, "1.8e-7"},
    {"o_max_s", Kind::number, true, "1.6e-6"},
    {"gap_s", Kind::number, true, "2e-6"},
    {"f", Kind::integer, true, "8"},
    {"max_bytes", Kind::integer, true, "1"},
};

}  // namespace

std::optional<logfp::Params> read_logfp(Reader& r, const toml::table& t) {
  const Section s{t, "in [logfp]", kLogfpKeys, line_of(t)};
  const int errors_before = error_count(r);
  warn_unknown_keys(r, s);
  logfp::Params p;
  const std::string_view nonneg = "a finite number >= 0";
  using Field = double logfp::Params::*;
  const std::pair<std::string_view, Field> times[] = {{"latency_s", &logfp::Params::latency_s},
                                                      {"o_min_s", &logfp::Params::o_min_s},
                                                      {"o_max_s", &logfp::Params::o_max_s},
                                                      {"gap_s", &logfp::Params::gap_s}};
  for (const auto& [key, field] : times) {
    if (auto v = read_checked_number(r, s, key, finite_nonneg, nonneg)) p.*field = *v;
  }
  if (auto v = read_integer(r, s, "f", 1, INT_MAX, fmt::format("between 1 and {}", INT_MAX))) {
    p.f = static_cast<int>(*v);
  }
  if (auto v = read_integer(r, s, "max_bytes", 0, INT64_MAX, ">= 0")) {
    p.max_bytes = static_cast<std::uint64_t>(*v);
  }
  if (error_count(r) != errors_before) return std::nullopt;
  if (auto reason = p.invalid_reason()) {
    r.error(s.line, fmt::format("[logfp]: {}", *reason), or_regenerate("correct it"));
    return std::nullopt;
  }
  return p;
}

std::string logfp_body(const logfp::Params& p) {
  std::string out;
  out += fmt::format("latency_s = {}  # L, seconds\n", toml_float(p.latency_s));
  out += fmt::format("o_min_s = {}  # o(P) = o_min + o_max / P\n", toml_float(p.o_min_s));
  out += fmt::format("o_max_s = {}\n", toml_float(p.o_max_s));
  out += fmt::format("gap_s = {}  # g, paid by every message after the first f\n",
                     toml_float(p.gap_s));
  out += fmt::format("f = {}  # messages sent without paying g\n", p.f);
  out += fmt::format("max_bytes = {}  # the model serves messages up to this size\n",
                     p.max_bytes);
  return out;
}

}  // namespace collsel::models::model_file
