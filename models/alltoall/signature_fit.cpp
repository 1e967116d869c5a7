// The regression behind the contention signature. Everything is a weighted least squares problem
// in at most two unknowns; with weights 1/T_i^2 it becomes an ordinary one on the scaled rows
// x_i = L_i / T_i (L_i the Proposition 1 lower bound), z_i = (n_i - 1) [m_i >= M] / T_i and the
// target 1, which is solved by modified Gram-Schmidt rather than by the normal equations, so a
// noise-free data set gives its parameters back to rounding.
#include "models/alltoall/signature_fit.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>

namespace collsel::models::alltoall {
namespace {

// Relative residuals below this are rounding, not signal: AIC compares SSRs floored at
// N * kResidualFloor^2, so two exact fits tie and the one with fewer parameters wins (without
// the floor, ln of two rounding-level SSRs would decide at random).
constexpr double kResidualFloor = 1e-12;

// A delta must stand this many standard errors above 0 to be eligible. AIC alone, with M chosen
// among every measured size, invents a delta in 20 to 28 % of noise-only data sets (8 to 32
// samples, +-3 % uniform noise, 1000 sets each); with this gate, in 2 to 7 %. The price: a delta
// whose effect is near the noise (5 % of the time against +-3 % noise) is missed in about one set
// of six, and gamma absorbs it.
constexpr double kMinDeltaT = 3.0;

// delta's column is considered the same as gamma's when what is left of it after removing its
// projection on gamma's column is this small, relative to its length.
constexpr double kSeparable = 1e-9;

double hockney_lower_bound(const Hockney& h, const Sample& s) {
  const double m = static_cast<double>(s.bytes);
  return static_cast<double>(s.n - 1) * (h.alpha_s + m * h.beta_s_per_byte);
}

std::optional<std::string> check_inputs(std::span<const Sample> samples, const Hockney& h) {
  if (samples.size() < static_cast<std::size_t>(kMinSignatureSamples)) {
    return fmt::format(
        "{} sample{}; the fit needs at least {} (gamma, delta and M from four points at least, as "
        "in the paper)",
        samples.size(), samples.size() == 1 ? "" : "s", kMinSignatureSamples);
  }
  if (!std::isfinite(h.alpha_s) || h.alpha_s < 0.0 || !std::isfinite(h.beta_s_per_byte) ||
      h.beta_s_per_byte < 0.0) {
    return fmt::format("alpha = {} s and beta = {} s/byte must be finite numbers >= 0", h.alpha_s,
                       h.beta_s_per_byte);
  }
  std::set<std::uint64_t> sizes;
  for (std::size_t i = 0; i < samples.size(); ++i) {
    const Sample& s = samples[i];
    if (s.n < 2) {
      return fmt::format("sample {} has n = {}; an All-to-All to fit needs n >= 2", i + 1, s.n);
    }
    if (!std::isfinite(s.seconds) || s.seconds <= 0.0) {
      return fmt::format("sample {} (n = {}, m = {} bytes) has time {} s; times must be finite "
                         "and > 0",
                         i + 1, s.n, s.bytes, s.seconds);
    }
    if (!(hockney_lower_bound(h, s) > 0.0)) {
      return fmt::format("sample {} (n = {}, m = {} bytes) has a lower bound of 0 with alpha = {} "
                         "s and beta = {} s/byte; gamma cannot scale it",
                         i + 1, s.n, s.bytes, h.alpha_s, h.beta_s_per_byte);
    }
    sizes.insert(s.bytes);
  }
  if (sizes.size() < 2) {
    return fmt::format("every sample has m = {} bytes; measure at least two sizes, or gamma and "
                       "delta cannot be told apart",
                       *sizes.begin());
  }
  return std::nullopt;
}

double dot(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}

double ssr_of(const std::vector<double>& x, const std::vector<double>* z, double gamma,
              double delta) {
  double s = 0.0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double r = gamma * x[i] + (z ? delta * (*z)[i] : 0.0) - 1.0;
    s += r * r;
  }
  return s;
}

double aic(double ssr, std::size_t n, int parameters) {
  const double N = static_cast<double>(n);
  const double floor = N * kResidualFloor * kResidualFloor;
  return N * std::log(std::max(ssr, floor) / N) + 2.0 * parameters;
}

}  // namespace

SignatureFit fit_signature(std::span<const Sample> samples, const Hockney& h) {
  SignatureFit fit;
  if (auto problem = check_inputs(samples, h)) {
    fit.error = std::move(problem);
    return fit;
  }
  const std::size_t N = samples.size();
  const std::vector<double> ones(N, 1.0);
  std::vector<double> x(N);
  std::set<std::uint64_t> sizes;
  for (std::size_t i = 0; i < N; ++i) {
    x[i] = hockney_lower_bound(h, samples[i]) / samples[i].seconds;
    sizes.insert(samples[i].bytes);
  }
  const double xx = dot(x, x);
  const double r11 = std::sqrt(xx);

  // No delta: one parameter, gamma = sum x / sum x^2.
  {
    SignatureCandidate c;
    c.solved = true;
    c.gamma = dot(x, ones) / xx;
    c.ssr = ssr_of(x, nullptr, c.gamma, 0.0);
    c.aic = aic(c.ssr, N, 1);
    fit.candidates.push_back(c);
  }
  for (const std::uint64_t M : sizes) {
    SignatureCandidate c;
    c.threshold_bytes = M;
    std::vector<double> z(N);
    int above = 0;
    for (std::size_t i = 0; i < N; ++i) {
      const bool on = samples[i].bytes >= M;
      above += on ? 1 : 0;
      z[i] = on ? static_cast<double>(samples[i].n - 1) / samples[i].seconds : 0.0;
    }
    if (above < 2) {
      c.rejected = fmt::format("only {} sample at or above M", above);
      fit.candidates.push_back(c);
      continue;
    }
    // Modified Gram-Schmidt on the columns [x, z]: q = x / r11, w = z - (q.z) q.
    std::vector<double> q(N), w(N);
    for (std::size_t i = 0; i < N; ++i) q[i] = x[i] / r11;
    const double r12 = dot(q, z);
    for (std::size_t i = 0; i < N; ++i) w[i] = z[i] - r12 * q[i];
    const double r22 = std::sqrt(dot(w, w));
    if (!(r22 > kSeparable * std::sqrt(dot(z, z)))) {
      c.rejected = "delta cannot be told apart from gamma with these sizes";
      fit.candidates.push_back(c);
      continue;
    }
    c.solved = true;
    const double c1 = dot(q, ones);
    const double c2 = dot(w, ones) / r22;
    c.delta_s = c2 / r22;
    c.gamma = (c1 - r12 * c.delta_s) / r11;
    c.ssr = ssr_of(x, &z, c.gamma, c.delta_s);
    c.aic = aic(c.ssr, N, 3);
    const double floor = static_cast<double>(N) * kResidualFloor * kResidualFloor;
    const double sigma2 = std::max(c.ssr, floor) / static_cast<double>(N - 2);
    c.delta_t = c.delta_s * r22 / std::sqrt(sigma2);
    if (c.delta_s < 0.0) {
      c.rejected = "delta < 0";
    } else if (c.delta_t < kMinDeltaT) {
      c.rejected = fmt::format("delta is only {:.2g} standard errors above 0", c.delta_t);
    } else if (!(c.gamma > 0.0)) {
      c.rejected = "gamma <= 0";
    }
    fit.candidates.push_back(c);
  }

  const SignatureCandidate* best = nullptr;
  for (const SignatureCandidate& c : fit.candidates) {
    if (!c.rejected.empty()) continue;
    if (best == nullptr || c.aic < best->aic) best = &c;
  }
  // The no-delta candidate is always eligible: gamma = sum x / sum x^2 > 0.
  fit.signature.gamma = best->gamma;
  if (best->threshold_bytes != kNoThreshold) {
    fit.signature.delta_s = best->delta_s;
    fit.signature.threshold_bytes = best->threshold_bytes;
  }

  fit.quality.points = static_cast<int>(N);
  double sum_sq = 0.0;
  for (const Sample& s : samples) {
    const double predicted = signature_model(h, fit.signature, s.n, s.bytes);
    fit.predicted.push_back(predicted);
    const double rel = (predicted - s.seconds) / s.seconds;
    sum_sq += rel * rel;
    fit.quality.max_abs_rel = std::max(fit.quality.max_abs_rel, std::abs(rel));
  }
  fit.quality.rms_rel = std::sqrt(sum_sq / static_cast<double>(N));
  return fit;
}

double fit_rho(std::span<const Sample> samples, const Contention& c, int window) {
  const double beta_free = c.beta_free_s_per_byte;
  const double spread = c.beta_contention_s_per_byte - beta_free;
  double num = 0.0;
  double den = 0.0;
  for (const Sample& s : samples) {
    if (s.n < 2 || !std::isfinite(s.seconds) || s.seconds <= 0.0) continue;
    const int rounds = s.n - 1;
    const int k = window <= 0 ? rounds : std::clamp(window, 1, rounds);
    const double batches = static_cast<double>((rounds + k - 1) / k);
    const double volume = static_cast<double>(rounds) * static_cast<double>(s.bytes);
    // T - ceil((n-1)/k) alpha - (n-1) m beta_F = rho (n-1) m (beta_C - beta_F), weight 1/T^2.
    const double rest = s.seconds - batches * c.hockney.alpha_s - volume * beta_free;
    const double d = volume * spread;
    const double w = 1.0 / (s.seconds * s.seconds);
    num += w * d * rest;
    den += w * d * d;
  }
  if (!(den > 0.0) || !std::isfinite(num / den)) return 0.0;
  return std::clamp(num / den, 0.0, 1.0);
}

}  // namespace collsel::models::alltoall
