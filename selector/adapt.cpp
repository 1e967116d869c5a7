#include "selector/adapt.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

namespace collsel {

std::string_view adapt_mode_name(AdaptMode m) {
  switch (m) {
    case AdaptMode::off:
      return "off";
    case AdaptMode::explore:
      return "explore";
    case AdaptMode::exhaustive:
      return "exhaustive";
    case AdaptMode::monitor:
      break;
  }
  return "monitor";
}

std::optional<AdaptMode> adapt_mode_from(std::string_view s) {
  for (AdaptMode m :
       {AdaptMode::off, AdaptMode::monitor, AdaptMode::explore, AdaptMode::exhaustive}) {
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
  const bool exhaustive = settings.mode == AdaptMode::exhaustive;
  if (!(settings.mode == AdaptMode::explore || exhaustive) || !(best > 0.0)) return ranking;
  std::vector<int> others;
  for (int i = 0; i < static_cast<int>(d.table.size()); ++i) {
    const CostEntry& e = d.table[static_cast<std::size_t>(i)];
    if (i == d.winner || e.not_applicable || !std::isfinite(e.predicted_s)) continue;
    if (exhaustive || e.predicted_s <= settings.candidate_factor * best) others.push_back(i);
  }
  // Ties keep registry order, like decide()'s.
  std::stable_sort(others.begin(), others.end(), [&](int a, int b) {
    return d.table[static_cast<std::size_t>(a)].predicted_s <
           d.table[static_cast<std::size_t>(b)].predicted_s;
  });
  const auto keep =
      exhaustive ? others.size()
                 : std::min<std::size_t>(others.size(),
                                         static_cast<std::size_t>(settings.max_candidates));
  ranking.insert(ranking.end(), others.begin(), others.begin() + static_cast<long>(keep));
  return ranking;
}

std::array<std::uint64_t, 3> adapt_checkpoints(const AdaptSettings& settings) {
  // Clamped as the config bounds it, for settings made in code (tests, tools).
  const auto first = static_cast<std::uint64_t>(
      std::clamp(settings.first_checkpoint, kMinFirstCheckpoint, kMaxFirstCheckpoint));
  return {first, kLaterAdaptCheckpoints[0], kLaterAdaptCheckpoints[1]};
}

std::vector<std::uint64_t> segment_variants(std::uint64_t bytes, std::uint64_t segment,
                                            std::uint64_t unit_bytes) {
  const std::uint64_t unit = unit_bytes == 0 ? 1 : unit_bytes;
  const std::uint64_t now = segment == 0 || segment > bytes ? bytes : segment;
  std::vector<std::uint64_t> out;
  const auto keep = [&](std::uint64_t s) {
    s = (s + unit - 1) / unit * unit;
    if (s == 0 || s == now || s >= bytes) return;  // one segment is not a segment variant
    if ((bytes + s - 1) / s > kMaxSimulatedMessages) return;
    if (std::find(out.begin(), out.end(), s) == out.end()) out.push_back(s);
  };
  if (now <= bytes / 4) keep(now * 4);  // bytes / 4 first: now * 4 cannot wrap around
  keep(now / 4);
  return out;
}

std::string RankedEntry::label() const {
  return learned_label(cost.name, moved_segment, cost.params.segment_bytes);
}

std::vector<MonitorEntry> AdaptPlan::monitor_entries() const {
  std::vector<MonitorEntry> out;
  for (const RankedEntry& e : ranking) {
    out.push_back({e.cost.predicted_s, e.variant_of, e.interval_s, e.loop_only});
  }
  return out;
}

std::optional<int> loop_runner_up(const Decision& d, const std::vector<int>& ranking,
                                  const std::vector<double>& intervals,
                                  const AdaptSettings& settings,
                                  const std::vector<int>& taken) {
  // max_candidates = 0 asks for no runner-up at all.
  if (ranking.empty() || settings.mode != AdaptMode::explore || settings.max_candidates <= 0) {
    return std::nullopt;
  }
  const auto at = [](const auto& v, int i) { return v[static_cast<std::size_t>(i)]; };
  const auto loop_s = [&](int i) {
    return at(d.table, i).predicted_s + (kLoopHorizonCalls - 1) * at(intervals, i);
  };
  const int winner = ranking.front();
  const double winner_s = at(d.table, winner).predicted_s;
  const double winner_interval = at(intervals, winner);
  if (!(winner_s > 0.0) || !(winner_interval > 0.0)) return std::nullopt;
  double to_beat = std::numeric_limits<double>::infinity();
  for (int i : ranking) {
    if (std::isfinite(at(intervals, i))) to_beat = std::min(to_beat, loop_s(i));
  }
  std::optional<int> best;
  for (int i = 0; i < static_cast<int>(d.table.size()); ++i) {
    const CostEntry& e = at(d.table, i);
    const double interval = at(intervals, i);
    if (e.not_applicable || !std::isfinite(e.predicted_s) || !(interval > 0.0) ||
        std::find(ranking.begin(), ranking.end(), i) != ranking.end() ||
        std::find(taken.begin(), taken.end(), i) != taken.end() ||
        e.predicted_s > kLoopCandidateFactor * winner_s ||
        !(interval * (1.0 + settings.hysteresis) < winner_interval) || !(loop_s(i) < to_beat)) {
      continue;
    }
    if (!best || loop_s(i) < loop_s(*best)) best = i;  // ties keep registry order
  }
  return best;
}

bool repeats_slower_than(double mine, double incumbent, const AdaptSettings& settings) {
  return mine > 0.0 && incumbent > 0.0 && mine > (1.0 + settings.tie_margin) * incumbent;
}

std::vector<int> loop_runners_up(const Decision& d, const std::vector<int>& ranking,
                                 const std::vector<double>& intervals,
                                 const AdaptSettings& settings) {
  std::vector<int> taken;
  if (ranking.empty()) return taken;
  const double winner = intervals[static_cast<std::size_t>(ranking.front())];
  std::size_t slots = 1;
  for (std::size_t k = 1; k < ranking.size(); ++k) {
    if (repeats_slower_than(intervals[static_cast<std::size_t>(ranking[k])], winner, settings)) {
      ++slots;
    }
  }
  while (taken.size() < slots) {
    const std::optional<int> next = loop_runner_up(d, ranking, intervals, settings, taken);
    if (!next) break;
    taken.push_back(*next);
  }
  return taken;
}

AdaptPlan plan_adapt(const CallShape& shape, const Decision& d, const AdaptSettings& settings,
                     const ModelSet& models, const Policy& policy,
                     const models::contention::Placement* placement,
                     const LearnedShape* learned) {
  AdaptPlan plan;
  const std::vector<int> ranking = adapt_ranking(d, settings);
  if (ranking.empty()) return plan;
  const bool explore = settings.mode == AdaptMode::explore;
  // Every applicable entry's repetition interval, for the ranking and its loop runner-up.
  if (explore) plan.table_interval_s = table_intervals(shape, d, models, placement);
  const std::vector<double> intervals =
      explore ? plan.table_interval_s
              : std::vector<double>(d.table.size(), std::numeric_limits<double>::quiet_NaN());
  for (int i : ranking) {
    plan.ranking.push_back({.table_index = i, .cost = d.table[static_cast<std::size_t>(i)]});
  }
  for (int loop : loop_runners_up(d, ranking, intervals, settings)) {
    plan.ranking.push_back({.table_index = loop,
                            .cost = d.table[static_cast<std::size_t>(loop)],
                            .loop_only = true});
  }
  for (RankedEntry& e : plan.ranking) {
    e.interval_s = intervals[static_cast<std::size_t>(e.table_index)];
  }
  const std::span<const AlgorithmView> algorithms = catalog(shape.coll);
  // A segmented algorithm whose segment the user did not fix: a trial may move its segment.
  const auto segment_free = [&](int i) {
    return static_cast<std::size_t>(i) < algorithms.size() &&
           algorithms[static_cast<std::size_t>(i)].segmented && !policy.segment_bytes;
  };
  const auto variant = [&](int i, std::uint64_t segment) -> std::optional<CostEntry> {
    CostEntry e = predict_at_segment(shape, i, models, policy, segment, placement);
    if (e.not_applicable || !std::isfinite(e.predicted_s)) return std::nullopt;
    return e;
  };
  if (explore && settings.try_segments) {
    const auto entries = static_cast<int>(plan.ranking.size());
    for (int r = 0; r < entries; ++r) {
      const RankedEntry base = plan.ranking[static_cast<std::size_t>(r)];
      if (!segment_free(base.table_index)) continue;
      for (std::uint64_t s : segment_variants(shape.bytes, base.cost.params.segment_bytes,
                                              policy.segment_unit_bytes)) {
        if (auto e = variant(base.table_index, s)) {
          const double interval =
              predict_interval(shape, base.table_index, e->params, models, placement)
                  .value_or(std::numeric_limits<double>::quiet_NaN());
          plan.ranking.push_back({.table_index = base.table_index,
                                  .cost = std::move(*e),
                                  .variant_of = r,
                                  .interval_s = interval,
                                  .moved_segment = true});
        }
      }
    }
  }
  if (learned == nullptr) return plan;
  // The learned choice: an entry already ranked, or added (a variant's at its learned segment).
  const std::optional<LearnedLabel> chosen = parse_learned_label(shape.coll, learned->chosen);
  const std::optional<double> measured = learned->measured(learned->chosen);
  if (!chosen || !measured) return plan;
  for (std::size_t r = 0; r < plan.ranking.size(); ++r) {
    if (plan.ranking[r].label() == learned->chosen) {
      plan.start = {static_cast<int>(r), *measured};
      return plan;
    }
  }
  for (int i = 0; i < static_cast<int>(d.table.size()); ++i) {
    const CostEntry& e = d.table[static_cast<std::size_t>(i)];
    if (e.name != chosen->algorithm || e.not_applicable) continue;
    if (!chosen->segment_bytes) {
      plan.ranking.push_back({.table_index = i, .cost = e});
    } else if (!segment_free(i)) {
      return plan;  // the user fixed the segment since: the model decides
    } else if (auto v = variant(i, *chosen->segment_bytes)) {
      plan.ranking.push_back({.table_index = i, .cost = std::move(*v), .moved_segment = true});
    } else {
      return plan;
    }
    plan.start = {static_cast<int>(plan.ranking.size()) - 1, *measured};
    return plan;
  }
  return plan;
}

namespace {

std::vector<MonitorEntry> entries_of(const std::vector<double>& predicted_s,
                                     const std::vector<int>& variant_of,
                                     const std::vector<double>& interval_s) {
  std::vector<MonitorEntry> out;
  for (std::size_t i = 0; i < predicted_s.size(); ++i) {
    MonitorEntry e{.predicted_s = predicted_s[i]};
    if (i < variant_of.size()) e.variant_of = variant_of[i];
    if (i < interval_s.size()) e.interval_s = interval_s[i];
    out.push_back(e);
  }
  return out;
}

}  // namespace

AdaptSample merge_agreed(const AdaptSample& a, const AdaptSample& b) {
  const bool b_slower = b.mean_s > a.mean_s || (b.mean_s == a.mean_s && b.rel_se > a.rel_se);
  AdaptSample out = b_slower ? b : a;
  out.gap_s = std::max(a.gap_s, b.gap_s);
  return out;
}

ShapeMonitor::ShapeMonitor(const AdaptSettings& settings, const std::vector<double>& predicted_s,
                           std::optional<std::pair<int, double>> start,
                           const std::vector<int>& variant_of,
                           const std::vector<double>& interval_s)
    : ShapeMonitor(settings, entries_of(predicted_s, variant_of, interval_s), start) {}

ShapeMonitor::ShapeMonitor(const AdaptSettings& settings, std::vector<MonitorEntry> entries,
                           std::optional<std::pair<int, double>> start)
    : settings_(settings), entries_(std::move(entries)), checkpoints_(adapt_checkpoints(settings)) {
  outcome_.measured_s.assign(entries_.size(), std::numeric_limits<double>::quiet_NaN());
  outcome_.measured_rel_se.assign(entries_.size(), 0.0);
  accepted_.assign(entries_.size(), false);
  if (start && start->first >= 0 && start->first < ranking_size()) {
    incumbent_ = start->first;
    reference_s_ = start->second;
    from_learned_ = true;
  } else if (!entries_.empty()) {
    reference_s_ = predicted(0);
  }
  current_ = incumbent_;
  outcome_.chosen = incumbent_;
}

void ShapeMonitor::reset_window() {
  window_sum_ = 0.0;
  window_sum_sq_ = 0.0;
  window_calls_ = 0;
  window_gap_sum_ = 0.0;
  window_gaps_ = 0;
}

void ShapeMonitor::add_to_window(double local_s, double gap_s) {
  window_sum_ += local_s;
  window_sum_sq_ += local_s * local_s;
  ++window_calls_;
  if (gap_s >= 0.0) {
    window_gap_sum_ += gap_s;
    ++window_gaps_;
  }
}

bool ShapeMonitor::record(double local_s, double gap_s) {
  ++outcome_.calls;
  if (phase_ == Phase::exploring) {
    ++outcome_.explore_calls;
    ++trial_call_;
    // The first trial call alone decides whether the runner-up is worth its other calls; the
    // mean then covers the others (the first carries the switch's one-off costs).
    // A pipeline in a loop (a segment variant, or a runner-up tried for its interval) has no
    // first-call agreement: an agreement drains the loop's overlap, and the call after it
    // refills it, so that call is left out instead, here and after a doubled trial's agreement.
    // On simulated gige, Bcast 64 KiB, chain_segmented's first call took 2.9 ms where its loop
    // runs at 0.87, and the call after a first-call agreement took 2.9 ms again: judging the
    // first call cost every such trial two slow calls, for an early exit that then had to be
    // held against the incumbent's time and not the loop's (a wrong model's Bcast 64 KiB over
    // 200 calls: +19.0 -> +16.0 % of the best fixed algorithm, 19 -> 16 trial calls).
    const bool refills = no_first_call_agreement();
    if (trial_call_ == 1) reset_window();
    const bool left_out = refills && (trial_call_ == 1 || trial_call_ == refill_call_);
    if (!left_out) add_to_window(local_s, gap_s);
    agree_pending_ = (trial_call_ == 1 && !refills) || trial_call_ == trial_limit_;
    return agree_pending_;
  }
  if (skip_next_) {
    skip_next_ = false;
  } else {
    add_to_window(local_s, gap_s);
  }
  while (next_checkpoint_ < checkpoints_.size() &&
         checkpoints_[next_checkpoint_] < outcome_.calls) {
    ++next_checkpoint_;
  }
  // A deferred agreement is applied before the next checkpoint (agree_lag() sees to it).
  if (!agree_pending_ && next_checkpoint_ < checkpoints_.size() &&
      checkpoints_[next_checkpoint_] == outcome_.calls && window_calls_ > 0) {
    ++next_checkpoint_;
    agree_pending_ = true;
    return true;
  }
  return agree_pending_ && !deferred_;
}

int ShapeMonitor::agree_lag() const {
  // The first checkpoint's agreement is where the model's choice is first judged and exploring
  // starts: applied at once, so that a wrong model costs 8 calls, not 8 plus the lag (on the
  // simulated gige cluster a 55-call lag there doubled what a 4x wrong Bcast cost over 200 calls).
  // A learned choice was measured, not predicted, so nothing is urgent there: its first agreement
  // waits like the later ones (on the emulated cluster the immediate one cost a learned run of
  // Bcast 64 KiB about 85 ms of 1.43 s: the root gave up its lead over the slowest rank).
  // The later ones rarely change anything and wait for nobody.
  const bool first_checkpoint =
      phase_ == Phase::monitoring && next_checkpoint_ <= 1 && !from_learned_;
  if (phase_ == Phase::exploring || first_checkpoint || !(settings_.agree_lag_s > 0.0) ||
      !(reference_s_ > 0.0)) {
    return 0;
  }
  const double calls = std::ceil(settings_.agree_lag_s / reference_s_);
  auto lag = static_cast<std::uint64_t>(
      std::clamp(calls, 1.0, static_cast<double>(kMaxAgreeLagCalls)));
  if (next_checkpoint_ < checkpoints_.size()) {
    const std::uint64_t before_next = checkpoints_[next_checkpoint_] - outcome_.calls - 1;
    lag = std::min(lag, before_next);
  }
  return static_cast<int>(lag);
}

void ShapeMonitor::defer(int lag) {
  if (!agree_pending_ || deferred_ || lag <= 0) return;
  deferred_ = true;
  apply_at_ = outcome_.calls + static_cast<std::uint64_t>(lag);
  reset_window();
}

AdaptSample ShapeMonitor::local_value() const {
  AdaptSample v;
  if (window_calls_ == 0) return v;
  const auto n = static_cast<double>(window_calls_);
  v.mean_s = window_sum_ / n;
  if (window_calls_ >= 2 && v.mean_s > 0.0) {
    const double variance = std::max(0.0, (window_sum_sq_ - n * v.mean_s * v.mean_s) / (n - 1.0));
    v.rel_se = std::sqrt(variance / n) / v.mean_s;
  }
  if (window_gaps_ > 0) v.gap_s = window_gap_sum_ / static_cast<double>(window_gaps_);
  return v;
}

double ShapeMonitor::gain_of(int i) const {
  const double incumbent_s = outcome_.measured_s[static_cast<std::size_t>(incumbent_)];
  return (incumbent_s - outcome_.measured_s[static_cast<std::size_t>(i)]) / incumbent_s;
}

double ShapeMonitor::noise_of(int i) const {
  const auto& se = outcome_.measured_rel_se;
  return std::hypot(se[static_cast<std::size_t>(incumbent_)], se[static_cast<std::size_t>(i)]);
}

bool ShapeMonitor::clearly_better(int i) const {
  const double gain = gain_of(i);
  return i != incumbent_ && gain > settings_.hysteresis &&
         gain > settings_.significance * noise_of(i);
}

void ShapeMonitor::agree(const AdaptSample& agreed) {
  if (!agree_pending_) return;
  agree_pending_ = false;
  // A deferred agreement's window was closed when it started; the calls since are the next one's.
  const bool deferred = std::exchange(deferred_, false);
  auto& measured = outcome_.measured_s;
  auto& rel_se = outcome_.measured_rel_se;
  if (phase_ == Phase::exploring) {
    const auto c = static_cast<std::size_t>(current_);
    // After the first trial call a runner-up goes on unless it was slower than abandon_factor
    // times the best time known, the incumbent's or an accepted runner-up's: once one runner-up
    // is found 4x faster than a wrong model's choice, another at 3x is hopeless (simulated gige
    // with g / 3, Bcast 64 KiB, where the model's binomial took 4x chain_segmented's time: 16 ->
    // 13 trial calls). An abandoned one is judged below like any other (its gain is negative
    // against the incumbent, or it is slower than an accepted one: neither longer trial nor
    // final choice).
    const bool first_call = trial_call_ == 1 && trial_call_ < trial_limit_;
    // A pipeline in a loop has no first-call agreement (record()), so every first call judged
    // here is one call alone, held against the best time per call known.
    const double hopeless_s = settings_.abandon_factor * best_known_s();
    if (first_call && !(agreed.mean_s > hopeless_s)) {
      reset_window();
      return;
    }
    const bool abandoned = first_call;  // a first call that got here was too slow
    measured[c] = agreed.mean_s;
    rel_se[c] = agreed.rel_se;
    // Measured faster, but not clearly, while its own noise could hide a gain above the
    // hysteresis: more calls of the same window (the first trial call stays out of it). Only its
    // own: more calls narrow the runner-up's mean, not the incumbent's (simulated gige, gaps / 3,
    // Bcast 64 KiB: chain_segmented at 1.9 ms a call, steady, against split_binary's 1.94 with
    // the noise of its checkpoint, ran 16 calls to be found 3 % faster). Not when a runner-up
    // already accepted measured faster still: the fastest accepted is kept, so more calls could
    // only confirm a loser (on the emulated cluster windowed, 296 ms a call against the
    // incumbent's 340, ran 8 calls after all_at_once had been accepted at 285).
    const double gain = gain_of(current_);
    const double could_gain = gain + settings_.significance * rel_se[c];
    // The exhaustive mode's trials are all trial_calls long and judged by their means alone, as
    // the tuners it stands for judge them.
    const bool exhaustive = settings_.mode == AdaptMode::exhaustive;
    const bool unclear = !exhaustive && !abandoned && gain > 0.0 && !clearly_better(current_) &&
                         could_gain > settings_.hysteresis && !(agreed.mean_s > best_known_s());
    const int max_calls = std::max(settings_.trial_calls, settings_.max_trial_calls);
    if (unclear && trial_limit_ < max_calls) {
      refill_call_ = trial_limit_ + 1;
      trial_limit_ = std::min(2 * trial_limit_, max_calls);
      return;
    }
    // Significance only stops a trial early. At its longest the trial's mean is the best estimate
    // there will be, and a gain above the hysteresis is worth more than the doubt: demanding
    // significance there too would keep a slower incumbent wherever the test bed is noisy.
    accepted_[c] = clearly_better(current_) ||
                   ((exhaustive || trial_limit_ >= max_calls) && gain > settings_.hysteresis);
    reset_window();
    next_candidate();
    return;
  }
  if (!deferred) reset_window();
  measured[static_cast<std::size_t>(incumbent_)] = agreed.mean_s;
  rel_se[static_cast<std::size_t>(incumbent_)] = agreed.rel_se;
  back_to_back_ =
      agreed.gap_s >= 0.0 && agreed.gap_s <= kBackToBackGapFraction * agreed.mean_s;
  const bool departs = departs_from(agreed.mean_s, agreed.rel_se, reference_s_);
  if (phase_ != Phase::monitoring || ranking_size() < 2) return;
  if (settings_.mode == AdaptMode::exhaustive) {
    // Every algorithm once per shape and run, whatever was measured; a learned choice was.
    if (!from_learned_) begin_exploring(false);
    return;
  }
  if (settings_.mode != AdaptMode::explore) return;
  if (departs) {
    begin_exploring(false);
  } else if (!from_learned_ && has_ties()) {
    // The measurement agrees with the prediction, but the model could not rank its ties.
    begin_exploring(true);
  }
}

bool ShapeMonitor::departs_from(double mean_s, double rel_se, double reference_s) const {
  // Departs only when even the low end of the measurement's noise band, `significance` standard
  // errors below its mean, is past the threshold: on the emulated cluster 7 Bcast calls of 0.1 to
  // 20 ms each (scheduler ticks) averaged 1.43x the prediction, and the exploration that
  // followed cost more than it could find.
  const double low_ratio =
      mean_s * std::max(0.0, 1.0 - settings_.significance * rel_se) / reference_s;
  // A threshold of 0 explores every shape once, whatever the noise (experiments, tests).
  return settings_.threshold == 0.0 ||
         (std::isfinite(low_ratio) && reference_s > 0.0 && low_ratio > settings_.threshold);
}

double ShapeMonitor::best_known_s() const {
  const auto& measured = outcome_.measured_s;
  double best = measured[static_cast<std::size_t>(incumbent_)];
  for (int i = 0; i < ranking_size(); ++i) {
    const auto k = static_cast<std::size_t>(i);
    if (accepted_[k] && measured[k] < best) best = measured[k];
  }
  return best;
}

bool ShapeMonitor::is_variant(int i, int of) const {
  const int parent = entries_[static_cast<std::size_t>(i)].variant_of;
  return parent >= 0 && (of < 0 || parent == of);
}

bool ShapeMonitor::is_tie(int i) const { return is_predicted_tie(i) || is_loop_tie(i); }

bool ShapeMonitor::is_predicted_tie(int i) const {
  // A loop-only entry is never one: it was ranked for its interval, not its time alone.
  return i != incumbent_ && !is_variant(i) && !entries_[static_cast<std::size_t>(i)].loop_only &&
         settings_.tie_margin > 0.0 &&
         predicted(i) <= (1.0 + settings_.tie_margin) * predicted(incumbent_);
}

bool ShapeMonitor::is_loop_tie(int i) const {
  // The model predicts one call alone; a loop of back-to-back calls is paid at the busiest rank's
  // interval, where a pipeline beats a tree it loses to alone (simulated gige, P = 16, Bcast 64
  // KiB: chain_segmented 2.91 ms alone, 0.87 ms a call in a loop; split_binary 1.80 and 1.41).
  // The intervals are a bound that ignores the MPI library's flow control, so they only pick what
  // to try; the trial measures.
  if (!back_to_back_ || i == incumbent_ || is_variant(i)) return false;
  const double mine = interval(i);
  const double incumbent = interval(incumbent_);
  return mine > 0.0 && incumbent > 0.0 && mine * (1.0 + settings_.hysteresis) < incumbent;
}

bool ShapeMonitor::repeats_slower(int i) const {
  // In a loop the incumbent's measured time is its interval, and the model's intervals rank the
  // others there (7-18 % short on simulated gige, hence the tie margin). On the emulated cluster
  // the gaps / 3 model departed on Bcast 256 KiB in a loop of chain_segmented (I = 7.1 ms, 30 ms
  // a call measured) and tried split_binary (I = 10.8 ms) and scatter_allgather (12.8 ms): one
  // call each before they were abandoned, 96 and 384-424 ms, +0.5-0.8 s over 200 calls.
  return back_to_back_ && repeats_slower_than(interval(i), interval(incumbent_), settings_);
}

bool ShapeMonitor::tried_for_interval() const {
  return phase_ == Phase::exploring && is_loop_tie(current_) && !is_predicted_tie(current_);
}

bool ShapeMonitor::refills_after_agreement() const {
  // Not every runner-up: the model's intervals say an All-to-All's calls overlap too (38 of 69 ms
  // on the emulated cluster), and there the call after an agreement measured like the others
  // (pairwise, 284-313 ms), so leaving it out would only lengthen its trials.
  return phase_ == Phase::exploring && back_to_back_ &&
         (tried_for_interval() || is_variant(current_));
}

bool ShapeMonitor::no_first_call_agreement() const {
  // The exhaustive mode never abandons a trial: its first call is left out of the mean like a
  // pipeline's, since it carries the switch's one-off costs.
  return refills_after_agreement() ||
         (phase_ == Phase::exploring && settings_.mode == AdaptMode::exhaustive);
}

bool ShapeMonitor::has_ties() const {
  // A tie that a loop would not try (repeats_slower) is none: exploring for nothing would also
  // end the shape's chance to be judged again at a later checkpoint.
  for (int i = 0; i < ranking_size(); ++i) {
    if (is_tie(i) && !repeats_slower(i)) return true;
  }
  return false;
}

int ShapeMonitor::closest_segmented_runner_up() const {
  const auto& measured = outcome_.measured_s;
  const double within =
      (1.0 + settings_.tie_margin) * measured[static_cast<std::size_t>(incumbent_)];
  int best = -1;
  for (int i = 0; i < ranking_size(); ++i) {
    const double t = measured[static_cast<std::size_t>(i)];
    if (i == incumbent_ || is_variant(i) || !(t <= within)) continue;  // NaN: never measured
    const bool segmented = std::any_of(entries_.begin(), entries_.end(),
                                       [i](const MonitorEntry& e) { return e.variant_of == i; });
    if (segmented && (best < 0 || t < measured[static_cast<std::size_t>(best)])) best = i;
  }
  return best;
}

void ShapeMonitor::begin_exploring(bool ties_only) {
  // Once per shape and run: the bound on exploratory calls is (max_candidates + 5) x
  // max_trial_calls (the runners-up and the loop runner-up, then the two segment variants of the
  // kept one and of its closest segmented runner-up), and a runner-up past trial_calls measured
  // faster than the incumbent. In exhaustive mode: every other algorithm, trial_calls each (no
  // variants, intervals or loop runner-up are ranked there, plan_adapt()).
  outcome_.explored = true;
  model_departed_ = !ties_only;
  to_try_.clear();
  for (int i = 0; i < ranking_size(); ++i) {
    if (i == incumbent_ || is_variant(i) || repeats_slower(i)) continue;
    // A loop-only entry is worth its whole latency on its first call only in a loop.
    const bool loop_only = entries_[static_cast<std::size_t>(i)].loop_only;
    if (!(ties_only || loop_only) || is_tie(i)) to_try_.push_back(i);
  }
  next_try_ = 0;
  phase_ = Phase::exploring;
  next_candidate();
}

void ShapeMonitor::next_candidate() {
  trial_call_ = 0;
  trial_limit_ = settings_.trial_calls;
  if (next_try_ >= to_try_.size()) {
    finish_exploring();
    return;
  }
  current_ = to_try_[next_try_++];
  refill_call_ = 0;  // no agreement yet: a pipeline's first call is its only refill
  // A pipeline in a loop leaves its first call out (record()): two calls at least, so one is timed.
  if (no_first_call_agreement()) trial_limit_ = std::max(trial_limit_, 2);
}

void ShapeMonitor::finish_exploring() {
  const auto& measured = outcome_.measured_s;
  // The fastest of the runners-up accepted at the end of their trials, or the incumbent.
  int best = incumbent_;
  for (int i = 0; i < ranking_size(); ++i) {
    if (!accepted_[static_cast<std::size_t>(i)]) continue;
    if (best == incumbent_ ||
        measured[static_cast<std::size_t>(i)] < measured[static_cast<std::size_t>(best)]) {
      best = i;
    }
  }
  incumbent_ = best;
  outcome_.chosen = incumbent_;
  // Then the kept entry's segment variants, judged against it by the same rules (once: the
  // variants of a variant are not ranked), when the model was found wrong on this shape: its
  // choice departed from its prediction (the segment is the same model's output), or the kept
  // entry does. After a tie's trial, a kept entry that runs as predicted says the model,
  // segment included, holds there. On the simulated gige cluster the calibrated model's tie
  // chain_segmented ran 3x faster than predicted, and trying its segments anyway cost two
  // abandoned calls (13 ms, 6 % of the 200 calls); with the gaps / 3 the model's choice ran 2.9x
  // slower than predicted, and chain_segmented, kept, ran as the wrong model predicted it (1.74
  // ms, 1.64 predicted) at a segment 4x too small: x 4 halved its time.
  // Also the variants of the segmented runner-up measured closest to the kept entry (within the
  // tie margin): the wrong model's segment handicaps it as much. With the gaps / 3 the model
  // chose binomial_segmented (2.08 ms a call measured); chain_segmented, tried at the same
  // model's 1536-byte segments, took 2.25 ms and was not kept, and at 6144 bytes takes 0.88 ms.
  const auto k = static_cast<std::size_t>(incumbent_);
  if (!segments_tried_ &&
      (model_departed_ ||
       departs_from(measured[k], outcome_.measured_rel_se[k], predicted(incumbent_)))) {
    segments_tried_ = true;
    to_try_.clear();
    const int close = closest_segmented_runner_up();
    for (int of : {incumbent_, close}) {
      if (of < 0) continue;
      for (int i = 0; i < ranking_size(); ++i) {
        if (is_variant(i, of) && !repeats_slower(i)) to_try_.push_back(i);
      }
    }
    if (!to_try_.empty()) {
      std::fill(accepted_.begin(), accepted_.end(), false);
      next_try_ = 0;
      next_candidate();
      return;
    }
  }
  current_ = incumbent_;
  phase_ = Phase::settled;
  skip_next_ = true;
  reset_window();
}

}  // namespace collsel
