// Fitting the contention signature (seed 000 section 8: "gamma and delta are obtained through a
// linear regression with the Generalized Least Squares method, comparing at least four measurement
// points") and the rho of eq. 3 from measured All-to-All completion times. Readings (the GLS
// weights, how M is chosen): docs/MODELS.md, "All-to-All (seed 000)". Pure C++, no MPI.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "models/alltoall/contention.hpp"

namespace collsel::models::alltoall {

// One measured All-to-All completion time: n processes, m bytes per message.
struct Sample {
  int n = 0;
  std::uint64_t bytes = 0;
  double seconds = 0.0;
};

// The fewest samples fit_signature accepts (the paper: "at least four measurement points").
inline constexpr int kMinSignatureSamples = 4;

// One threshold the fit tried: no delta (threshold_bytes == kNoThreshold) or delta from M bytes.
struct SignatureCandidate {
  std::uint64_t threshold_bytes = kNoThreshold;
  double gamma = 0.0;
  double delta_s = 0.0;
  double ssr = 0.0;   // sum of squared relative residuals
  double delta_t = 0.0;  // delta over its standard error (0 without delta)
  double aic = 0.0;   // N ln(SSR / N) + 2 k; meaningful only when `rejected` is empty
  bool solved = false;   // false: rejected before solving; gamma, delta, ssr, aic are 0
  std::string rejected;  // why the candidate was not eligible ("" when it was)
};

struct SignatureFit {
  Signature signature;
  FitQuality quality;
  std::vector<double> predicted;  // signature_model() at each sample, same order
  std::vector<SignatureCandidate> candidates;  // no delta first, then each M ascending
  // Set (and nothing else meaningful) when the fit is impossible: fewer than
  // kMinSignatureSamples samples, n < 2, non-positive or non-finite times, fewer than two
  // distinct sizes, unusable Hockney parameters.
  std::optional<std::string> error;
};

// Generalised least squares fit of eq. 5 as contention.hpp reads it,
//   T = gamma (n-1)(alpha + m beta) + (n-1) delta [m >= M],
// with a diagonal covariance proportional to T^2 (weights 1/T_i^2: relative residuals). Linear in
// (gamma, delta) for a given M. Candidates for M: no delta at all, and every distinct measured
// size; a candidate is rejected when fewer than 2 samples lie at or above M, delta cannot be told
// apart from gamma, delta < 0, delta is less than 3 standard errors above 0 (noise, not a start-up
// cost), or gamma <= 0. The least AIC, N ln(SSR/N) + 2k with k = 1 without
// delta and k = 3 with (gamma, delta, M), wins; ties go to the earlier candidate (no delta, then
// the smaller M). Samples may come from several n.
SignatureFit fit_signature(std::span<const Sample> samples, const Hockney& h);

// rho of eq. 3 with k exchanges in flight (window 0: k = n - 1 for each sample), by least squares
// (the same 1/T^2 weights) of T = ceil((n-1)/k) alpha + (n-1) m beta(rho) as in windowed(), with
// beta(rho) = (1 - rho) beta_F + rho beta_C and alpha, beta_F, beta_C from `c`; clamped to [0, 1].
// Samples with n < 2 or a non-positive or non-finite time are ignored. 0 when rho is not
// determined (beta_C == beta_F, or no sample with m > 0).
double fit_rho(std::span<const Sample> samples, const Contention& c, int window);

}  // namespace collsel::models::alltoall
