// [alltoall]: seed 000's All-to-All contention signature and throughput parameters.
#include "models/model_file/sections.hpp"

#include <cmath>

namespace collsel::models::model_file {
namespace {

// [alltoall]: seed 000's contention signature and throughput parameters (models/alltoall/
// contention.hpp, Contention). Optional keys default as docs/MODELS.md, "Model file" says.
constexpr KeySpec kAlltoallKeys[] = {
    {"sample_ranks", Kind::integer, false, "16"},
    {"alpha_s", Kind::number, true, "6e-5"},
    {"beta_s_per_byte", Kind::number, true, "8.5e-9"},
    {"gamma", Kind::number, true, "1.0195"},
    {"delta_s", Kind::number, false, "8.23e-3"},
    {"delta_from_bytes", Kind::integer, false, "2048"},
    {"fit_points", Kind::integer, false, "12"},
    {"fit_rms_rel", Kind::number, false, "0.03"},
    {"fit_max_abs_rel", Kind::number, false, "0.08"},
    {"beta_free_s_per_byte", Kind::number, false, "8.502e-9"},
    {"beta_contention_s_per_byte", Kind::number, false, "8.498189e-8"},
    {"rho_single", Kind::number, false, "0.1"},
    {"rho_flood", Kind::number, false, "0.5"},
    {"copy_s_per_byte", Kind::number, false, "2.5e-10"},
};

}  // namespace

std::optional<alltoall::Contention> read_alltoall(Reader& r, const toml::table& t) {
  const Section s{t, "in [alltoall]", kAlltoallKeys, line_of(t)};
  const auto errors_before = std::count_if(r.out.begin(), r.out.end(), [](const Diagnostic& d) {
    return d.severity == Diagnostic::Severity::error;
  });
  warn_unknown_keys(r, s);
  alltoall::Contention c;
  const std::string nonneg = "a finite number >= 0";
  if (auto v = read_integer(r, s, "sample_ranks", 0, INT_MAX,
                            fmt::format("0 (not measured) or between 2 and {}", INT_MAX))) {
    if (*v == 1) {
      r.error(line_of(*t.get("sample_ranks")),
              fmt::format("sample_ranks in [alltoall] is 1; it must be 0 (not measured) or "
                          "between 2 and {}",
                          INT_MAX),
              or_regenerate("correct it"));
    }
    c.sample_ranks = static_cast<int>(*v);
  }
  if (auto v = read_checked_number(r, s, "alpha_s", finite_nonneg, nonneg)) c.hockney.alpha_s = *v;
  if (auto v = read_checked_number(r, s, "beta_s_per_byte", finite_nonneg, nonneg)) {
    c.hockney.beta_s_per_byte = *v;
  }
  if (auto v = read_checked_number(r, s, "gamma", finite_positive, "a finite number > 0")) {
    c.signature.gamma = *v;
  }
  if (auto v = read_checked_number(r, s, "delta_s", finite_nonneg, nonneg)) {
    c.signature.delta_s = *v;
  }
  if (auto v = read_integer(r, s, "delta_from_bytes", 0, INT64_MAX, ">= 0")) {
    c.signature.threshold_bytes = static_cast<std::uint64_t>(*v);
  } else if (t.get("delta_from_bytes") == nullptr && c.signature.delta_s > 0.0) {
    r.warn(line_of(*t.get("delta_s")),
           fmt::format("delta_s in [alltoall] is {} but there is no delta_from_bytes, so delta "
                       "never applies",
                       c.signature.delta_s),
           "add delta_from_bytes = M (the smallest message size it applies to), or remove "
           "delta_s");
  }
  if (auto v = read_integer(r, s, "fit_points", 0, INT_MAX,
                            fmt::format("between 0 and {}", INT_MAX))) {
    c.signature_fit.points = static_cast<int>(*v);
  }
  if (auto v = read_checked_number(r, s, "fit_rms_rel", finite_nonneg, nonneg)) {
    c.signature_fit.rms_rel = *v;
  }
  if (auto v = read_checked_number(r, s, "fit_max_abs_rel", finite_nonneg, nonneg)) {
    c.signature_fit.max_abs_rel = *v;
  }
  // Absent throughput keys leave the contention-free reading: beta_C = beta_F = beta, rho 0.
  c.beta_free_s_per_byte = c.hockney.beta_s_per_byte;
  if (auto v = read_checked_number(r, s, "beta_free_s_per_byte", finite_nonneg, nonneg)) {
    c.beta_free_s_per_byte = *v;
  }
  c.beta_contention_s_per_byte = c.beta_free_s_per_byte;
  if (auto v = read_checked_number(r, s, "beta_contention_s_per_byte", finite_nonneg, nonneg)) {
    c.beta_contention_s_per_byte = *v;
  }
  const std::string_view between = "between 0 and 1";
  if (auto v = read_checked_number(r, s, "rho_single", fraction, between)) c.rho_single = *v;
  c.rho_flood = c.rho_single;
  if (auto v = read_checked_number(r, s, "rho_flood", fraction, between)) c.rho_flood = *v;
  c.copy_s_per_byte = alltoall::kDefaultCopySecondsPerByte;
  if (auto v = read_checked_number(r, s, "copy_s_per_byte", finite_nonneg, nonneg)) {
    c.copy_s_per_byte = *v;
  }
  const auto errors_after = std::count_if(r.out.begin(), r.out.end(), [](const Diagnostic& d) {
    return d.severity == Diagnostic::Severity::error;
  });
  if (errors_after != errors_before) return std::nullopt;
  // Every condition is checked above with its line; this catches a gap between the two lists.
  if (auto reason = c.invalid_reason()) {
    r.error(s.line, fmt::format("[alltoall]: {}", *reason), or_regenerate("correct it"));
    return std::nullopt;
  }
  return c;
}

std::string alltoall_body(const alltoall::Contention& c) {
  std::string out;
  out += fmt::format("sample_ranks = {}  # n', the ranks the signature was fitted at (0: not "
                     "measured)\n",
                     c.sample_ranks);
  out += fmt::format("alpha_s = {}  # Hockney start-up, seconds\n", toml_float(c.hockney.alpha_s));
  out += fmt::format("beta_s_per_byte = {}  # Hockney 1 / bandwidth\n",
                     toml_float(c.hockney.beta_s_per_byte));
  out += fmt::format("gamma = {}  # contention ratio (eq. 4, 5)\n", toml_float(c.signature.gamma));
  out += fmt::format("delta_s = {}  # added per round for m >= delta_from_bytes (eq. 5)\n",
                     toml_float(c.signature.delta_s));
  if (c.signature.threshold_bytes != alltoall::kNoThreshold) {
    out += fmt::format("delta_from_bytes = {}  # M\n", c.signature.threshold_bytes);
  }
  out += fmt::format("fit_points = {}\n", c.signature_fit.points);
  out += fmt::format("fit_rms_rel = {}\n", toml_float(c.signature_fit.rms_rel));
  out += fmt::format("fit_max_abs_rel = {}\n", toml_float(c.signature_fit.max_abs_rel));
  out += fmt::format("beta_free_s_per_byte = {}  # beta_F (eq. 3)\n",
                     toml_float(c.beta_free_s_per_byte));
  out += fmt::format("beta_contention_s_per_byte = {}  # beta_C (eq. 3)\n",
                     toml_float(c.beta_contention_s_per_byte));
  out += fmt::format("rho_single = {}  # rho with 1 exchange in flight\n",
                     toml_float(c.rho_single));
  out += fmt::format("rho_flood = {}  # rho with sample_ranks - 1 in flight\n",
                     toml_float(c.rho_flood));
  out += fmt::format("copy_s_per_byte = {}  # local memory copy\n",
                     toml_float(c.copy_s_per_byte));
  return out;
}

}  // namespace collsel::models::model_file
