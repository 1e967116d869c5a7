#include "selector/adapt.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace collsel {

std::string_view adapt_mode_name(AdaptMode m) {
  switch (m) {
    case AdaptMode::off:
      return "off";
    case AdaptMode::explore:
      return "explore";
    case AdaptMode::monitor:
      break;
  }
  return "monitor";
}

std::optional<AdaptMode> adapt_mode_from(std::string_view s) {
  for (AdaptMode m : {AdaptMode::off, AdaptMode::monitor, AdaptMode::explore}) {
    if (adapt_mode_name(m) == s) return m;
  }
  return std::nullopt;
}

std::vector<int> adapt_ranking(const Decision& d, const AdaptSettings& settings) {
  if (d.winner < 0 || settings.mode == AdaptMode::off ||
      (d.rung != Rung::calibrated_model && d.rung != Rung::default_model)) {
    return {};
  }
  std::vector<int> ranking{d.winner};
  const double best = d.table[static_cast<std::size_t>(d.winner)].predicted_s;
  if (settings.mode != AdaptMode::explore || !(best > 0.0)) return ranking;
  std::vector<int> others;
  for (int i = 0; i < static_cast<int>(d.table.size()); ++i) {
    const CostEntry& e = d.table[static_cast<std::size_t>(i)];
    if (i == d.winner || e.not_applicable || !std::isfinite(e.predicted_s)) continue;
    if (e.predicted_s <= settings.candidate_factor * best) others.push_back(i);
  }
  // Ties keep registry order, like decide()'s.
  std::stable_sort(others.begin(), others.end(), [&](int a, int b) {
    return d.table[static_cast<std::size_t>(a)].predicted_s <
           d.table[static_cast<std::size_t>(b)].predicted_s;
  });
  const auto keep = std::min<std::size_t>(others.size(),
                                          static_cast<std::size_t>(settings.max_candidates));
  ranking.insert(ranking.end(), others.begin(), others.begin() + static_cast<long>(keep));
  return ranking;
}

ShapeMonitor::ShapeMonitor(const AdaptSettings& settings, std::vector<double> predicted_s,
                           std::optional<std::pair<int, double>> start)
    : settings_(settings), predicted_(std::move(predicted_s)) {
  outcome_.measured_s.assign(predicted_.size(), std::numeric_limits<double>::quiet_NaN());
  if (start && start->first >= 0 && start->first < ranking_size()) {
    incumbent_ = start->first;
    reference_s_ = start->second;
  } else if (!predicted_.empty()) {
    reference_s_ = predicted_[0];
  }
  current_ = incumbent_;
  outcome_.chosen = incumbent_;
}

bool ShapeMonitor::record(double local_s) {
  ++outcome_.calls;
  if (phase_ == Phase::exploring) {
    ++outcome_.explore_calls;
    ++trial_call_;
    // The first trial call alone decides whether the runner-up is worth its other calls; the
    // mean then covers the others (the first carries the switch's one-off costs).
    if (trial_call_ == 1) window_sum_ = 0.0, window_calls_ = 0;
    window_sum_ += local_s;
    ++window_calls_;
    agree_pending_ = trial_call_ == 1 || trial_call_ == settings_.trial_calls;
    return agree_pending_;
  }
  if (skip_next_) {
    skip_next_ = false;
  } else {
    window_sum_ += local_s;
    ++window_calls_;
  }
  while (next_checkpoint_ < kAdaptCheckpoints.size() &&
         kAdaptCheckpoints[next_checkpoint_] < outcome_.calls) {
    ++next_checkpoint_;
  }
  if (next_checkpoint_ < kAdaptCheckpoints.size() &&
      kAdaptCheckpoints[next_checkpoint_] == outcome_.calls && window_calls_ > 0) {
    ++next_checkpoint_;
    agree_pending_ = true;
  }
  return agree_pending_;
}

double ShapeMonitor::local_value() const {
  return window_calls_ > 0 ? window_sum_ / static_cast<double>(window_calls_) : 0.0;
}

void ShapeMonitor::agree(double agreed_s) {
  if (!agree_pending_) return;
  agree_pending_ = false;
  window_sum_ = 0.0;
  window_calls_ = 0;
  auto& measured = outcome_.measured_s;
  if (phase_ == Phase::exploring) {
    const double incumbent_s = measured[static_cast<std::size_t>(incumbent_)];
    const bool last = trial_call_ >= settings_.trial_calls;
    const bool abandon = trial_call_ == 1 && agreed_s > settings_.abandon_factor * incumbent_s;
    if (last || abandon) {
      measured[static_cast<std::size_t>(current_)] = agreed_s;
      next_candidate();
    }
    return;
  }
  measured[static_cast<std::size_t>(incumbent_)] = agreed_s;
  const double ratio = agreed_s / reference_s_;
  const bool departs = std::isfinite(ratio) && reference_s_ > 0.0 && ratio > settings_.threshold;
  if (phase_ == Phase::monitoring && settings_.mode == AdaptMode::explore && departs &&
      ranking_size() > 1) {
    begin_exploring();
  }
}

void ShapeMonitor::begin_exploring() {
  // Once per shape and run: the bound on exploratory calls is max_candidates x trial_calls.
  outcome_.explored = true;
  to_try_.clear();
  for (int i = 0; i < ranking_size(); ++i) {
    if (i != incumbent_) to_try_.push_back(i);
  }
  next_try_ = 0;
  phase_ = Phase::exploring;
  next_candidate();
}

void ShapeMonitor::next_candidate() {
  trial_call_ = 0;
  if (next_try_ >= to_try_.size()) {
    finish_exploring();
    return;
  }
  current_ = to_try_[next_try_++];
}

void ShapeMonitor::finish_exploring() {
  const auto& measured = outcome_.measured_s;
  int best = incumbent_;
  for (int i = 0; i < ranking_size(); ++i) {
    if (measured[static_cast<std::size_t>(i)] < measured[static_cast<std::size_t>(best)]) best = i;
  }
  // Hysteresis: a runner-up must beat the incumbent clearly, or noise would pick it.
  if (best != incumbent_ && measured[static_cast<std::size_t>(best)] <
                                (1.0 - settings_.hysteresis) *
                                    measured[static_cast<std::size_t>(incumbent_)]) {
    incumbent_ = best;
  }
  current_ = incumbent_;
  outcome_.chosen = incumbent_;
  phase_ = Phase::settled;
  skip_next_ = true;
}

}  // namespace collsel
