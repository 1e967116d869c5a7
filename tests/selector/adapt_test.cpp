// The monitor's state machine (selector/adapt.hpp): when it agrees, what it explores, what it
// keeps. Timings are fed in, so every case is exact.
#include "selector/adapt.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "conf/embedded.hpp"
#include "models/model_file.hpp"

namespace collsel {
namespace {

AdaptSettings explore_settings() {
  AdaptSettings s;
  s.mode = AdaptMode::explore;
  s.threshold = 1.5;
  s.max_candidates = 3;
  s.trial_calls = 4;
  s.hysteresis = 0.10;
  s.abandon_factor = 2.0;
  s.first_checkpoint = 8;  // the default: the cases below count their calls from the 8th
  return s;
}

// Runs one call of the shape whose algorithm `k` takes times[k]; performs the agreement as the
// shim does, with the given reduced value (max over ranks = the local value here, one rank).
struct Driver {
  ShapeMonitor& m;
  std::vector<double> times;
  std::vector<int> ran{};
  int agreements = 0;
  double gap = -1.0;  // the time between calls fed to record() (negative: unknown)
  void call() {
    const AdaptStep s = m.step();
    ran.push_back(s.candidate);
    if (m.record(times[static_cast<std::size_t>(s.candidate)], ran.size() == 1 ? -1.0 : gap)) {
      ++agreements;
      m.agree(m.local_value());
    }
  }
  void calls(int n) {
    for (int i = 0; i < n; ++i) call();
  }
};

// Runners-up predicted 1.3x here and below: outside the default 25 % tie margin, so only a
// departure from the prediction tries them.
TEST(ShapeMonitor, AgreesAtTheCheckpointsOnlyWhenTheModelHolds) {
  ShapeMonitor m(explore_settings(), {1.0, 1.3, 1.5});
  Driver d{m, std::vector<double>{1.1, 0.5, 0.5}};
  d.calls(600);
  EXPECT_EQ(d.agreements, 3);  // the 8th, 64th and 512th call
  for (int c : d.ran) EXPECT_EQ(c, 0);  // 1.1 is within 1.5x of 1.0: no exploration
  EXPECT_FALSE(m.outcome().explored);
  EXPECT_NEAR(m.outcome().measured_s[0], 1.1, 1e-12);  // a mean of 448 equal times
  EXPECT_EQ(m.outcome().calls, 600u);
}

// An earlier first checkpoint judges the model's choice sooner; the later ones stay.
TEST(ShapeMonitor, TheFirstCheckpointIsConfigured) {
  AdaptSettings s = explore_settings();
  s.first_checkpoint = 4;
  EXPECT_EQ(AdaptSettings{}.first_checkpoint, 8);
  ShapeMonitor m(s, {1.0, 1.3, 1.5});
  Driver d{m, std::vector<double>{3.0, 1.0, 3.0}};  // the model's choice departs at once
  d.calls(4);
  for (int c : d.ran) EXPECT_EQ(c, 0);
  EXPECT_EQ(d.agreements, 1);
  d.call();  // the 5th call is the first runner-up's first trial call
  EXPECT_EQ(d.ran.back(), 1);
  EXPECT_TRUE(m.outcome().explored);
  EXPECT_EQ(adapt_checkpoints(s), (std::array<std::uint64_t, 3>{4, 64, 512}));
  s.first_checkpoint = 100;  // clamped as the config clamps it: before the 64th call
  EXPECT_EQ(adapt_checkpoints(s)[0], 63u);
}

TEST(ShapeMonitor, ExploresTheRunnersUpAndKeepsTheMeasuredBest) {
  ShapeMonitor m(explore_settings(), {1.0, 1.2, 1.5});
  Driver d{m, std::vector<double>{3.0, 2.0, 1.0}};  // the model is wrong by 3x and ranks backwards
  d.calls(8);                    // checkpoint: 3.0 vs 1.0 predicted departs
  d.calls(8);                    // 4 trial calls of each runner-up
  const std::vector<int> expected_trials = {1, 1, 1, 1, 2, 2, 2, 2};
  EXPECT_EQ(std::vector<int>(d.ran.begin() + 8, d.ran.end()), expected_trials);
  EXPECT_EQ(m.outcome().explore_calls, 8u);
  d.calls(100);
  for (std::size_t i = 16; i < d.ran.size(); ++i) EXPECT_EQ(d.ran[i], 2);
  EXPECT_EQ(m.outcome().chosen, 2);
  EXPECT_TRUE(m.step().candidate == 2 && !m.step().exploring);
  EXPECT_DOUBLE_EQ(m.outcome().measured_s[1], 2.0);
}

// Exhaustive mode tries every runner-up at the first checkpoint even when the model holds, runs
// each for trial_calls calls with one agreement at its end (no first-call abandonment, no
// doubling), leaves each trial's first call out of its mean, and keeps the fastest mean that
// beats the model's choice by more than the hysteresis.
TEST(ShapeMonitor, ExhaustiveTriesEveryAlgorithmForTrialCallsAndKeepsTheFastest) {
  AdaptSettings s = explore_settings();
  s.mode = AdaptMode::exhaustive;
  s.trial_calls = 5;
  ShapeMonitor m(s, {1.0, 1.2, 1.5, 9.0});
  int agreements = 0;
  std::vector<int> ran;
  // Entry 1 takes 5.0 on its first call (a switch's one-off cost) and 0.85 after: 15 % faster
  // than the model's choice at 1.0. Entry 2 is 10x slower, which explore would abandon after one
  // call; entry 3, predicted 9x, runs at 0.95: faster, but within the hysteresis.
  const auto time = [&](int k, bool first) {
    switch (k) {
      case 1: return first ? 5.0 : 0.85;
      case 2: return 10.0;
      case 3: return 0.95;
      default: return 1.0;
    }
  };
  for (int i = 0; i < 40; ++i) {
    const int k = m.step().candidate;
    const bool first = ran.empty() || ran.back() != k;
    ran.push_back(k);
    if (m.record(time(k, first))) {
      ++agreements;
      m.agree(m.local_value());
    }
  }
  const std::vector<int> trials(ran.begin() + 8, ran.begin() + 23);
  EXPECT_EQ(trials, (std::vector<int>{1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3}));
  EXPECT_EQ(m.outcome().explore_calls, 15u);
  EXPECT_EQ(agreements, 4);  // the 8th call, then one at the end of each trial
  EXPECT_DOUBLE_EQ(m.outcome().measured_s[1], 0.85);  // its first call left out
  EXPECT_DOUBLE_EQ(m.outcome().measured_s[2], 10.0);
  EXPECT_EQ(m.outcome().chosen, 1);
  for (std::size_t i = 23; i < ran.size(); ++i) EXPECT_EQ(ran[i], 1);
  // Started from a learned choice, nothing is tried.
  ShapeMonitor learned(s, {1.0, 1.2, 1.5, 9.0}, std::pair{1, 0.85});
  for (int i = 0; i < 40; ++i) {
    EXPECT_EQ(learned.step().candidate, 1);
    if (learned.record(0.85)) learned.agree(learned.local_value());
  }
  EXPECT_FALSE(learned.outcome().explored);
}

// As Driver, with each algorithm's n-th call (counted per algorithm) taking time(k, n).
struct SeriesDriver {
  ShapeMonitor& m;
  std::function<double(int, int)> time;
  std::vector<int> ran{};
  std::vector<int> per_algorithm = std::vector<int>(8, 0);
  double gap = -1.0;  // as Driver's
  void calls(int n) {
    for (int i = 0; i < n; ++i) {
      const int k = m.step().candidate;
      ran.push_back(k);
      const double t = time(k, per_algorithm[static_cast<std::size_t>(k)]++);
      if (m.record(t, ran.size() == 1 ? -1.0 : gap)) {
        m.agree(m.local_value());
      }
    }
  }
};

// 100 calls of a shape `gap` apart (0.01: back to back), as SeriesDriver runs them: the outcome,
// and the algorithm of the last call.
std::pair<AdaptOutcome, int> run_series(const std::vector<MonitorEntry>& entries,
                                        const std::function<double(int, int)>& time, double gap) {
  ShapeMonitor m(explore_settings(), entries);
  SeriesDriver d{m, time};
  d.gap = gap;
  d.calls(100);
  return {m.outcome(), d.ran.back()};
}

// Alternating around `mean` by +-spread: a noisy algorithm whose mean is exact over an even count.
double noisy(double mean, double spread, int n) { return n % 2 == 0 ? mean + spread : mean - spread; }

TEST(ShapeMonitor, TheAgreedSampleCarriesTheMeansRelativeStandardError) {
  AdaptSettings s = explore_settings();
  s.mode = AdaptMode::monitor;
  ShapeMonitor m(s, std::vector<double>{1.0});
  const double times[] = {100.0, 1, 3, 1, 3, 1, 3, 2};  // calls 2-8: mean 2, sample sd 1
  AdaptSample agreed;
  for (double t : times) {
    if (m.record(t)) agreed = m.local_value();
  }
  EXPECT_DOUBLE_EQ(agreed.mean_s, 2.0);
  EXPECT_NEAR(agreed.rel_se, std::sqrt(1.0 / 7.0) / 2.0, 1e-12);
}

TEST(ShapeMonitor, AnUnclearGainGetsALongerTrialAndIsKeptOnceClear) {
  // The runner-up is 15 % faster on average, but its first timed calls are noisy: 2 and 4 of its
  // trial calls 2-4 look 6 % faster with a 20 % spread, unclear against the 10 % hysteresis.
  ShapeMonitor m(explore_settings(), {1.0, 1.2});
  SeriesDriver d{m, [](int k, int n) {
                   if (k == 0) return 2.0;               // the model's choice, 2x its prediction
                   if (n >= 1 && n <= 3) return noisy(1.88, 0.3, n);
                   return 1.7;
                 }};
  d.calls(8);
  d.calls(16);
  EXPECT_TRUE(m.outcome().explored);
  EXPECT_EQ(m.outcome().explore_calls, 8u);  // 4 calls, unclear; doubled to 8, then clear
  EXPECT_EQ(m.outcome().chosen, 1);
  EXPECT_EQ(d.ran.back(), 1);
}

TEST(ShapeMonitor, ALongerTrialThatStaysWithinTheNoiseKeepsTheIncumbent) {
  ShapeMonitor m(explore_settings(), {1.0, 1.2});
  // 5 % faster on average with a 30 % spread: never clear, the trial grows to max_trial_calls.
  SeriesDriver d{m, [](int k, int n) { return k == 0 ? 2.0 : noisy(1.9, 0.6, n); }};
  d.calls(200);
  EXPECT_EQ(m.outcome().explore_calls, 16u);
  EXPECT_EQ(m.outcome().chosen, 0);
}

TEST(ShapeMonitor, ASlowerOrClearlyFasterRunnerUpIsNotTriedLonger) {
  ShapeMonitor slower(explore_settings(), {1.0, 1.2});
  SeriesDriver a{slower, [](int k, int n) { return k == 0 ? 2.0 : noisy(2.3, 0.3, n); }};
  a.calls(100);
  EXPECT_EQ(slower.outcome().explore_calls, 4u);
  EXPECT_EQ(slower.outcome().chosen, 0);
  ShapeMonitor faster(explore_settings(), {1.0, 1.2});
  SeriesDriver b{faster, [](int k, int) { return k == 0 ? 2.0 : 1.0; }};
  b.calls(100);
  EXPECT_EQ(faster.outcome().explore_calls, 4u);
  EXPECT_EQ(faster.outcome().chosen, 1);
}

// The incumbent's checkpoint is noisy (1.6 and 2.4 alternating: 1.94 +- 8 %), the runner-up
// steady at 1.88, 3 % faster: within the incumbent's noise of the hysteresis, but more calls of
// the runner-up would not narrow that, and its own noise hides nothing: no longer trial.
TEST(ShapeMonitor, ASteadyRunnerUpIsNotTriedLongerForTheIncumbentsNoise) {
  ShapeMonitor m(explore_settings(), std::vector<double>{1.0, 1.2});
  SeriesDriver d{m, [](int k, int n) { return k == 0 ? noisy(2.0, 0.4, n) : 1.88; }};
  d.calls(100);
  EXPECT_TRUE(m.outcome().explored);
  EXPECT_EQ(m.outcome().explore_calls, 4u);
  EXPECT_EQ(m.outcome().chosen, 0);
}

// Runner-up 1 is accepted (1.0 a call against the incumbent's 2.0); runner-up 2 then measures
// 1.33 within the noise (1, 2, 1): unclear against the incumbent, but slower than runner-up 1,
// so its trial is not doubled. Alone, the same runner-up 2 gets the longer trial.
TEST(ShapeMonitor, NoLongerTrialForARunnerUpBehindAnAcceptedOne) {
  const auto times = [](int k, int n) {
    if (k == 0) return 2.0;
    if (k == 1) return 1.0;
    return n == 0 ? 1.5 : n % 2 == 1 ? 1.0 : 2.0;
  };
  ShapeMonitor both(explore_settings(), std::vector<double>{1.0, 1.2, 1.3});
  SeriesDriver b{both, times};
  b.calls(100);
  EXPECT_EQ(both.outcome().explore_calls, 8u);
  EXPECT_EQ(both.outcome().chosen, 1);
  ShapeMonitor alone(explore_settings(), std::vector<double>{1.0, 1.3});
  SeriesDriver a{alone, [&](int k, int n) { return times(k == 1 ? 2 : k, n); }};
  a.calls(100);
  EXPECT_GT(alone.outcome().explore_calls, 4u);
}

TEST(ShapeMonitor, SignificanceEndsATrialEarlyAndTheLongestTrialIsJudgedByItsMean) {
  // The runner-up alternates 1.8 and 1.2: its calls 2-4 (1.8, 1.2, 1.8) average 1.6, 20 % faster
  // than 2.0, with a relative standard error of 12.5 %: unclear at 2 standard errors; calls 2-8
  // average 1.54 (23 %) with 7.6 %: clear, the trial ends at 8 calls.
  const auto times = [](int k, int n) { return k == 0 ? 2.0 : (n % 2 == 0 ? 1.2 : 1.8); };
  AdaptSettings s = explore_settings();
  ShapeMonitor m(s, {1.0, 1.2});
  SeriesDriver d{m, times};
  d.calls(100);
  EXPECT_EQ(m.outcome().explore_calls, 8u);
  EXPECT_EQ(m.outcome().chosen, 1);
  // Asked for 5 standard errors it is never clear; at 16 calls its mean (1.52, 24 %) is above
  // the hysteresis and it is kept all the same.
  s.significance = 5.0;
  ShapeMonitor strict(s, {1.0, 1.2});
  SeriesDriver e{strict, times};
  e.calls(100);
  EXPECT_EQ(strict.outcome().explore_calls, 16u);
  EXPECT_EQ(strict.outcome().chosen, 1);
}

TEST(ShapeMonitor, AMeasurementPastTheThresholdOnlyWithinItsNoiseDoesNotExplore) {
  // Calls 2-8 alternate 2.5 and 0.5 (mean 1.64, past the 1.5x threshold), but with a relative
  // standard error of 25 %, 2 of which put the low end of the band at 0.83x.
  ShapeMonitor m(explore_settings(), {1.0, 1.3});
  SeriesDriver d{m, [](int k, int n) { return k == 0 ? (n % 2 == 0 ? 0.5 : 2.5) : 0.1; }};
  d.calls(8);
  EXPECT_FALSE(m.outcome().explored);
  EXPECT_NEAR(m.outcome().measured_s[0], (3 * 0.5 + 4 * 2.5) / 7.0, 1e-12);
  // A steady 1.64 explores.
  ShapeMonitor steady(explore_settings(), {1.0, 1.3});
  SeriesDriver e{steady, [](int k, int) { return k == 0 ? 11.5 / 7.0 : 0.1; }};
  e.calls(9);
  EXPECT_TRUE(steady.outcome().explored);
}

TEST(ShapeMonitor, AChoiceFasterThanPredictedIsNotSecondGuessed) {
  ShapeMonitor m(explore_settings(), {1.0, 1.3});
  Driver d{m, std::vector<double>{0.2, 0.1}};  // 5x faster than predicted: no exploration
  d.calls(100);
  EXPECT_FALSE(m.outcome().explored);
  for (int c : d.ran) EXPECT_EQ(c, 0);
}

TEST(ShapeMonitor, HysteresisKeepsTheIncumbentAgainstASmallGain) {
  ShapeMonitor m(explore_settings(), {1.0, 1.2});
  Driver d{m, std::vector<double>{2.0, 1.85}};  // 7.5 % faster: below the 10 % hysteresis
  d.calls(200);
  EXPECT_TRUE(m.outcome().explored);
  EXPECT_EQ(m.outcome().chosen, 0);
  EXPECT_EQ(m.outcome().explore_calls, 4u);
}

TEST(ShapeMonitor, AbandonsARunnerUpAfterOneSlowCall) {
  ShapeMonitor m(explore_settings(), {1.0, 1.2, 1.3});
  Driver d{m, std::vector<double>{2.0, 10.0, 1.0}};  // runner-up 1 is 5x slower: one call, then the next
  d.calls(8);
  d.calls(5);
  const std::vector<int> expected = {1, 2, 2, 2, 2};
  EXPECT_EQ(std::vector<int>(d.ran.begin() + 8, d.ran.end()), expected);
  EXPECT_EQ(m.outcome().explore_calls, 5u);
  EXPECT_EQ(m.outcome().chosen, 2);
}

TEST(ShapeMonitor, AbandonsAgainstTheFastestRunnerUpAccepted) {
  ShapeMonitor m(explore_settings(), {1.0, 1.2, 1.3, 1.4});
  // Runner-up 1 is 4x faster than the model's choice and accepted; 2 and 3, within 2x of the
  // model's choice but 3x and 3.5x runner-up 1, get one call each.
  Driver d{m, std::vector<double>{4.0, 1.0, 3.0, 3.5}};
  d.calls(8);
  d.calls(8);
  const std::vector<int> expected = {1, 1, 1, 1, 2, 3, 1, 1};
  EXPECT_EQ(std::vector<int>(d.ran.begin() + 8, d.ran.end()), expected);
  EXPECT_EQ(m.outcome().explore_calls, 6u);
  EXPECT_EQ(m.outcome().chosen, 1);
  EXPECT_DOUBLE_EQ(m.outcome().measured_s[2], 3.0);  // judged on its one call
}

TEST(ShapeMonitor, ExploresAtMostOncePerShapeWithinItsBound) {
  AdaptSettings s = explore_settings();
  ShapeMonitor m(s, {1.0, 1.1, 1.2, 1.3});
  Driver d{m, std::vector<double>{5.0, 5.0, 5.0, 5.0}};  // every algorithm departs from its prediction
  d.calls(1000);
  EXPECT_EQ(m.outcome().explore_calls,
            static_cast<std::uint64_t>(s.max_candidates * s.trial_calls));
  EXPECT_EQ(m.outcome().chosen, 0);
}

TEST(ShapeMonitor, LongerTrialsStayWithinMaxCandidatesTimesMaxTrialCalls) {
  AdaptSettings s = explore_settings();
  ShapeMonitor m(s, {1.0, 1.1, 1.2, 1.3});
  // Every runner-up looks a little faster within a large noise: each is tried the longest.
  SeriesDriver d{m, [](int k, int n) { return k == 0 ? 5.0 : noisy(4.8, 2.0, n); }};
  d.calls(1000);
  EXPECT_EQ(m.outcome().explore_calls,
            static_cast<std::uint64_t>(s.max_candidates * s.max_trial_calls));
  EXPECT_EQ(m.outcome().chosen, 0);
}

TEST(ShapeMonitor, MonitorModeMeasuresButNeverSwitches) {
  AdaptSettings s = explore_settings();
  s.mode = AdaptMode::monitor;
  ShapeMonitor m(s, {1.0, 1.2});
  Driver d{m, std::vector<double>{3.0, 0.1}};
  d.calls(100);
  for (int c : d.ran) EXPECT_EQ(c, 0);
  EXPECT_DOUBLE_EQ(m.outcome().measured_s[0], 3.0);
  EXPECT_TRUE(std::isnan(m.outcome().measured_s[1]));
}

TEST(ShapeMonitor, ALearnedStartRunsTheLearnedChoiceAgainstItsLearnedTime) {
  ShapeMonitor m(explore_settings(), {1.0, 1.2}, std::pair{1, 0.5});
  Driver d{m, std::vector<double>{3.0, 0.55}};  // the learned time holds: no exploration, no model choice
  d.calls(100);
  for (int c : d.ran) EXPECT_EQ(c, 1);
  EXPECT_FALSE(m.outcome().explored);
  EXPECT_EQ(m.outcome().chosen, 1);
}

TEST(ShapeMonitor, TheFirstCallOfTheShapeIsLeftOutOfTheMeasurement) {
  AdaptSettings s = explore_settings();
  s.mode = AdaptMode::monitor;
  ShapeMonitor m(s, std::vector<double>{1.0});
  const double times[] = {100.0, 1, 1, 1, 1, 1, 1, 4};
  double agreed = 0.0;
  for (double t : times) {
    if (m.record(t)) agreed = m.local_value().mean_s;
  }
  EXPECT_DOUBLE_EQ(agreed, 10.0 / 7.0);
}

TEST(ShapeMonitor, TheModelsTiesAreTriedEvenWhenThePredictionHolds) {
  // The model's choice runs as predicted; runner-up 1 is predicted 5 % slower (a tie within the
  // default 25 % margin) and is 2x faster; runner-up 2, predicted 1.5x, is faster still but not
  // a tie.
  ShapeMonitor m(explore_settings(), {1.0, 1.05, 1.5});
  Driver d{m, std::vector<double>{1.0, 0.5, 0.25}};
  d.calls(100);
  EXPECT_TRUE(m.outcome().explored);
  EXPECT_EQ(m.outcome().chosen, 1);
  EXPECT_EQ(m.outcome().explore_calls, 4u);  // runner-up 1 only
  EXPECT_TRUE(std::isnan(m.outcome().measured_s[2]));
  EXPECT_EQ(d.ran.back(), 1);
}

// A loop of back-to-back calls is paid at each algorithm's repetition interval: the model's
// choice runs faster than its prediction (no departure), and runner-up 1, predicted 1.6x slower
// alone (no tie), repeats in 0.5 where the choice takes 0.8. It is tried: its first call, at its
// whole latency (5.0, past abandon_factor times the choice's 0.8), is neither agreed on nor
// timed, so it is not abandoned; its 3 other calls are timed, and it is kept. Runner-up 2 repeats
// no faster than the choice and is not tried.
TEST(ShapeMonitor, BackToBackCallsTryTheRunnerUpThatRepeatsFaster) {
  const std::vector<double> predicted{1.0, 1.6, 1.7};
  const std::vector<double> intervals{0.8, 0.5, 0.9};
  ShapeMonitor m(explore_settings(), predicted, std::nullopt, {}, intervals);
  SeriesDriver d{m, [](int k, int n) {
                   if (k == 0) return 0.8;
                   if (k == 1) return n == 0 ? 5.0 : 0.5;
                   return 0.9;
                 }};
  d.gap = 0.01;
  d.calls(100);
  EXPECT_TRUE(m.outcome().explored);
  EXPECT_EQ(m.outcome().explore_calls, 4u);  // runner-up 1 only
  EXPECT_EQ(m.outcome().chosen, 1);
  EXPECT_DOUBLE_EQ(m.outcome().measured_s[1], 0.5);
  // A tie by its prediction runs the usual 4 calls, its second one timed.
  ShapeMonitor tie(explore_settings(), {1.0, 1.1}, std::nullopt, {}, {0.8, 0.5});
  Driver t{tie, std::vector<double>{0.8, 0.5}};
  t.gap = 0.01;
  t.calls(100);
  EXPECT_EQ(tie.outcome().explore_calls, 4u);
  EXPECT_TRUE(std::isnan(m.outcome().measured_s[2]));
}

// Calls with the program's own work between them (here 0.3 on the slowest rank, more than a
// quarter of a call), or without the intervals, or the gap unknown: the model's single-call
// ranking stands, and nothing is tried.
TEST(ShapeMonitor, CallsApartOrWithoutIntervalsTryNoFasterRepeater) {
  const std::vector<double> predicted{1.0, 1.6};
  const std::vector<double> times{0.8, 0.5};
  for (const double gap : {0.3, -1.0}) {
    ShapeMonitor m(explore_settings(), predicted, std::nullopt, {}, {0.8, 0.5});
    Driver d{m, times};
    d.gap = gap;
    d.calls(100);
    EXPECT_FALSE(m.outcome().explored) << gap;
  }
  ShapeMonitor no_intervals(explore_settings(), predicted);
  Driver d{no_intervals, times};
  d.gap = 0.01;
  d.calls(100);
  EXPECT_FALSE(no_intervals.outcome().explored);
  // A loop that starts after the first checkpoint is recognised at the next one.
  ShapeMonitor later(explore_settings(), predicted, std::nullopt, {}, {0.8, 0.5});
  Driver l{later, times};
  l.gap = 0.3;
  l.calls(63);
  EXPECT_FALSE(later.outcome().explored);
  l.gap = 0.01;
  l.calls(1);  // the 64th call's window holds calls 9-64: a mean gap of 0.29, still apart
  EXPECT_FALSE(later.outcome().explored);
  l.calls(448);  // the 512th's: back to back
  EXPECT_TRUE(later.outcome().explored);
  l.calls(5);  // its trial
  EXPECT_EQ(later.outcome().chosen, 1);
  // An interval shorter by no more than the hysteresis is no reason to try.
  ShapeMonitor close(explore_settings(), predicted, std::nullopt, {}, {0.8, 0.75});
  Driver c{close, times};
  c.gap = 0.01;
  c.calls(100);
  EXPECT_FALSE(close.outcome().explored);
}

// The loop runner-up (entry 2: predicted 6x the model's choice alone, ranked for its interval)
// is tried only in a loop of back-to-back calls, even when the model departs or the runner-up is
// predicted within the tie margin.
TEST(ShapeMonitor, TheLoopRunnerUpIsTriedOnlyInALoop) {
  const auto entries = [](double loop_prediction) {
    return std::vector<MonitorEntry>{{.predicted_s = 1.0, .interval_s = 0.8},
                                     {.predicted_s = 1.3, .interval_s = 0.9},
                                     {.predicted_s = loop_prediction, .interval_s = 0.3,
                                      .loop_only = true}};
  };
  // The model departs (2.0 measured where 1.0 was predicted): runner-up 1 is tried either way.
  // In the loop, the loop runner-up's first call (7.0: its latency) is not judged, so not
  // abandoned.
  const auto departing = [](int k, int n) {
    if (k == 0) return 2.0;
    if (k == 1) return 1.9;
    return n == 0 ? 7.0 : 0.3;
  };
  ShapeMonitor apart(explore_settings(), entries(3.0));
  SeriesDriver a{apart, departing};
  a.gap = 1.0;
  a.calls(100);
  EXPECT_TRUE(apart.outcome().explored);
  EXPECT_EQ(apart.outcome().explore_calls, 4u);  // runner-up 1 only
  EXPECT_TRUE(std::isnan(apart.outcome().measured_s[2]));
  EXPECT_EQ(apart.outcome().chosen, 0);

  ShapeMonitor loop(explore_settings(), entries(3.0));
  SeriesDriver l{loop, departing};
  l.gap = 0.01;
  l.calls(100);
  EXPECT_EQ(loop.outcome().explore_calls, 4u + 4u);  // and the loop runner-up
  EXPECT_NEAR(loop.outcome().measured_s[2], 0.3, 1e-12);
  EXPECT_EQ(loop.outcome().chosen, 2);
  EXPECT_EQ(l.ran.back(), 2);

  // Predicted within the tie margin, but ranked for its interval: no tie for calls apart.
  ShapeMonitor close(explore_settings(), entries(1.1));
  Driver c{close, std::vector<double>{1.0, 1.3, 0.5}};
  c.gap = 1.0;
  c.calls(100);
  EXPECT_FALSE(close.outcome().explored);
}

// In a loop, the model's choice departs (2.0 measured, 1.0 predicted), and only what is not
// predicted to repeat slower than it by more than the tie margin is tried: runner-up 1 (I = 1.2,
// 1.5x the choice's 0.8) is not, runner-up 2 (0.9, 1.125x) is; of the choice's segment variants,
// 3 (I = 0.6) is and 4 (1.1) is not. With the calls apart, all of them are.
TEST(ShapeMonitor, ALoopTriesNothingPredictedToRepeatSlower) {
  const std::vector<MonitorEntry> entries{{.predicted_s = 1.0, .interval_s = 0.8},
                                          {.predicted_s = 1.3, .interval_s = 1.2},
                                          {.predicted_s = 1.4, .interval_s = 0.9},
                                          {.predicted_s = 1.4, .variant_of = 0, .interval_s = 0.6},
                                          {.predicted_s = 1.4, .variant_of = 0, .interval_s = 1.1}};
  const std::vector<double> times{2.0, 1.9, 1.95, 1.97, 1.96};  // nothing clearly faster
  ShapeMonitor loop(explore_settings(), entries);
  Driver l{loop, times};
  l.gap = 0.01;
  l.calls(100);
  EXPECT_TRUE(loop.outcome().explored);
  EXPECT_TRUE(std::isnan(loop.outcome().measured_s[1]));
  EXPECT_FALSE(std::isnan(loop.outcome().measured_s[2]));
  EXPECT_FALSE(std::isnan(loop.outcome().measured_s[3]));
  EXPECT_TRUE(std::isnan(loop.outcome().measured_s[4]));
  EXPECT_EQ(loop.outcome().explore_calls, 4u + 4u);  // runner-up 2 and variant 3
  ShapeMonitor apart(explore_settings(), entries);
  Driver a{apart, times};
  a.gap = 1.0;
  a.calls(100);
  EXPECT_EQ(apart.outcome().explore_calls, 16u);
  // A tie by its prediction (1.1) that would repeat slower (1.2) is no reason to explore a loop
  // that holds its prediction: the shape is not marked explored, and stays open to later
  // checkpoints.
  ShapeMonitor tie(explore_settings(), {1.0, 1.1}, std::nullopt, {}, {0.8, 1.2});
  Driver t{tie, std::vector<double>{1.0, 0.5}};
  t.gap = 0.01;
  t.calls(100);
  EXPECT_FALSE(tie.outcome().explored);
}

// The gap travels with the agreed sample: the mean over the window's calls whose gap is known.
TEST(ShapeMonitor, TheAgreedSampleCarriesTheMeanGapBetweenCalls) {
  AdaptSettings s = explore_settings();
  s.mode = AdaptMode::monitor;
  ShapeMonitor m(s, std::vector<double>{1.0});
  const double gaps[] = {-1.0, 0.1, 0.3, 0.1, 0.3, 0.1, 0.3, 0.2};  // calls 2-8: mean 0.2
  AdaptSample agreed;
  for (double g : gaps) {
    if (m.record(1.0, g)) agreed = m.local_value();
  }
  EXPECT_DOUBLE_EQ(agreed.gap_s, 0.2);
  ShapeMonitor unknown(s, std::vector<double>{1.0});
  for (int i = 0; i < 8; ++i) {
    if (unknown.record(1.0)) agreed = unknown.local_value();
  }
  EXPECT_EQ(agreed.gap_s, -1.0);
}

TEST(ShapeMonitor, NoTiesTriedWithoutAMarginOrFromALearnedStart) {
  AdaptSettings s = explore_settings();
  s.tie_margin = 0.0;
  ShapeMonitor no_margin(s, {1.0, 1.05});
  Driver a{no_margin, std::vector<double>{1.0, 0.5}};
  a.calls(100);
  EXPECT_FALSE(no_margin.outcome().explored);
  // A learned start measured its ties already.
  ShapeMonitor learned(explore_settings(), {1.0, 1.05}, std::pair{0, 1.0});
  Driver b{learned, std::vector<double>{1.0, 0.5}};
  b.calls(100);
  EXPECT_FALSE(learned.outcome().explored);
}

// As Driver, with the checkpoints' agreements deferred as the shim defers them: the local value
// taken at the checkpoint, handed to agree() when apply_due() turns true.
struct DeferringDriver {
  ShapeMonitor& m;
  std::vector<double> times;
  std::vector<int> ran{};
  std::vector<int> lags{};
  std::vector<std::uint64_t> applied_after{};  // call counts at which a deferred result was applied
  std::vector<AdaptSample> reported{};         // every agreement's local value
  // One call of the algorithm the monitor wants, taking `t`.
  void call(double t) {
    ran.push_back(m.step().candidate);
    if (m.record(t)) {
      reported.push_back(m.local_value());
      lags.push_back(m.agree_lag());
      if (lags.back() > 0) {
        m.defer(lags.back());
      } else {
        m.agree(reported.back());
      }
    } else if (m.apply_due()) {
      applied_after.push_back(m.outcome().calls);
      m.agree(reported.back());
    }
  }
  void calls(int n) {
    for (int i = 0; i < n; ++i) call(times[static_cast<std::size_t>(m.step().candidate)]);
  }
};

TEST(ShapeMonitor, TheFirstCheckpointAndTheTrialsAgreeAtOnceTheLaterCheckpointsLater) {
  // Reference 1 s, lag 2.5 s: 3 calls. The model's choice measures 3x its prediction: the 8th
  // call's agreement starts exploring at once, and so do the trials' agreements; the 64th call's
  // (settled on runner-up 1, against its measured 1.0 s) is applied after the 67th.
  AdaptSettings s = explore_settings();
  s.agree_lag_s = 2.5;
  ShapeMonitor m(s, {1.0, 1.2});
  DeferringDriver d{m, std::vector<double>{3.0, 1.0}};
  d.calls(12);
  EXPECT_EQ(std::vector<int>(d.ran.begin() + 8, d.ran.end()), (std::vector<int>{1, 1, 1, 1}));
  EXPECT_EQ(d.lags, (std::vector<int>{0, 0, 0}));
  d.calls(52);  // through the 64th call
  EXPECT_EQ(d.lags, (std::vector<int>{0, 0, 0, 3}));
  EXPECT_TRUE(d.applied_after.empty());
  d.calls(3);
  EXPECT_EQ(d.applied_after, std::vector<std::uint64_t>{67});
  EXPECT_EQ(m.outcome().chosen, 1);
  EXPECT_DOUBLE_EQ(m.outcome().measured_s[1], 1.0);
  EXPECT_DOUBLE_EQ(m.outcome().measured_s[0], 3.0);
}

TEST(ShapeMonitor, ALearnedChoicesFirstCheckpointWaitsLikeTheLaterOnes) {
  // Reference 1 s, lag 2.5 s: 3 calls. Started from the model's choice the 8th call's agreement
  // is applied at once; started from a learned choice (runner-up 1, learned at 1.0 s) it is
  // deferred like the 64th's, and a departure found there still starts exploring.
  AdaptSettings s = explore_settings();
  s.agree_lag_s = 2.5;
  ShapeMonitor model(s, {1.0, 1.2});
  DeferringDriver a{model, std::vector<double>{1.0, 1.0}};
  a.calls(8);
  EXPECT_EQ(a.lags, std::vector<int>{0});
  ShapeMonitor learned(s, {1.0, 1.2}, std::pair<int, double>{1, 1.0});
  DeferringDriver b{learned, std::vector<double>{1.0, 3.0}};
  b.calls(11);
  EXPECT_EQ(b.lags, std::vector<int>{3});
  EXPECT_EQ(b.applied_after, std::vector<std::uint64_t>{11});
  EXPECT_EQ(std::vector<int>(b.ran.begin(), b.ran.begin() + 11), std::vector<int>(11, 1));
  b.calls(1);  // the learned choice measured 3x its learned time: runner-up 0 is tried
  EXPECT_EQ(b.ran.back(), 0);
  EXPECT_TRUE(learned.outcome().explored);
}

TEST(ShapeMonitor, TheLagIsBounded) {
  AdaptSettings s = explore_settings();
  s.mode = AdaptMode::monitor;
  s.agree_lag_s = 0.25;
  // 1 ms calls: 250 calls of lag, cut to 64.
  ShapeMonitor m(s, std::vector<double>{0.001});
  DeferringDriver d{m, std::vector<double>{0.001}};
  d.calls(600);
  EXPECT_EQ(d.lags, (std::vector<int>{0, kMaxAgreeLagCalls, kMaxAgreeLagCalls}));
  EXPECT_EQ(d.applied_after, (std::vector<std::uint64_t>{128, 576}));
  EXPECT_NEAR(m.outcome().measured_s[0], 0.001, 1e-15);
  // 0 s: every agreement at once.
  s.agree_lag_s = 0.0;
  ShapeMonitor now(s, std::vector<double>{0.001});
  DeferringDriver f{now, std::vector<double>{0.001}};
  f.calls(100);
  EXPECT_EQ(f.lags, (std::vector<int>{0, 0}));
}

TEST(ShapeMonitor, ADeferredWindowStartsAtItsCheckpointNotAtItsApplication) {
  // The 64th call's agreement is applied after the 66th (lag 2). Calls 65 and 66 take 10 s, the
  // later ones 2 s: the 512th call's window holds calls 65-512, so 65 and 66 count in it.
  AdaptSettings s = explore_settings();
  s.mode = AdaptMode::monitor;
  s.agree_lag_s = 2.0;
  ShapeMonitor m(s, std::vector<double>{1.0});
  DeferringDriver d{m, {}};
  for (int call = 1; call <= 512; ++call) d.call(call <= 64 ? 1.0 : (call <= 66 ? 10.0 : 2.0));
  EXPECT_EQ(d.lags, (std::vector<int>{0, 2, 2}));
  EXPECT_EQ(d.applied_after, (std::vector<std::uint64_t>{66}));
  ASSERT_EQ(d.reported.size(), 3u);
  EXPECT_DOUBLE_EQ(d.reported[1].mean_s, 1.0);
  EXPECT_DOUBLE_EQ(d.reported[2].mean_s, (2 * 10.0 + 446 * 2.0) / 448.0);
}

// The root of a Bcast waits little (0.1 ms, 90 % relative error), the slowest rank is steady (2.0
// ms, 1 %): the agreed sample is the slowest rank's mean with its own error, the largest gap, in
// every order of merging.
TEST(MergeAgreed, TakesTheSlowestRanksErrorInAnyOrder) {
  const std::vector<AdaptSample> ranks{{.mean_s = 0.1e-3, .rel_se = 0.9, .gap_s = 0.3e-3},
                                       {.mean_s = 2.0e-3, .rel_se = 0.01, .gap_s = 0.0},
                                       {.mean_s = 1.5e-3, .rel_se = 0.2, .gap_s = 0.1e-3},
                                       {.mean_s = 2.0e-3, .rel_se = 0.005, .gap_s = -1.0}};
  std::vector<int> order{0, 1, 2, 3};
  do {
    AdaptSample agreed = ranks[static_cast<std::size_t>(order[0])];
    for (std::size_t i = 1; i < order.size(); ++i) {
      agreed = merge_agreed(agreed, ranks[static_cast<std::size_t>(order[i])]);
    }
    EXPECT_EQ(agreed.mean_s, 2.0e-3);
    EXPECT_EQ(agreed.rel_se, 0.01);  // of the two slowest, the larger error
    EXPECT_EQ(agreed.gap_s, 0.3e-3);
  } while (std::next_permutation(order.begin(), order.end()));
}

Decision table_of(std::vector<double> predicted, int winner) {
  Decision d;
  d.rung = Rung::calibrated_model;
  d.winner = winner;
  for (double p : predicted) d.table.push_back({"x", std::nullopt, p, {}, false});
  return d;
}

TEST(AdaptRanking, KeepsTheRunnersUpWithinTheFactorInPredictedOrder) {
  AdaptSettings s = explore_settings();
  s.candidate_factor = 2.0;
  s.max_candidates = 2;
  Decision d = table_of({3.0, 1.0, 1.9, 1.5, 2.5, std::nan("")}, 1);
  d.table[3].not_applicable = "no";
  EXPECT_EQ(adapt_ranking(d, s), (std::vector<int>{1, 2}));
  s.max_candidates = 3;
  d.table[3].not_applicable.reset();
  EXPECT_EQ(adapt_ranking(d, s), (std::vector<int>{1, 3, 2}));
}

// Exhaustive mode ranks every applicable algorithm the model predicts, however slow, and no
// loop runner-up: the tuners it stands for try everything.
TEST(AdaptRanking, ExhaustiveRanksEveryPredictedAlgorithm) {
  AdaptSettings s = explore_settings();
  s.mode = AdaptMode::exhaustive;
  s.candidate_factor = 2.0;
  s.max_candidates = 1;
  Decision d = table_of({3.0, 1.0, 1.9, 1.5, 25.0, std::nan("")}, 1);
  d.table[3].not_applicable = "no";
  EXPECT_EQ(adapt_ranking(d, s), (std::vector<int>{1, 2, 0, 4}));
  const std::vector<int> ranking = adapt_ranking(d, s);
  EXPECT_FALSE(loop_runner_up(d, ranking, std::vector<double>(6, 0.1), s).has_value());
}

// The loop runner-up: not ranked, within kLoopCandidateFactor of the winner alone, repeating
// faster than it by more than the hysteresis, and predicted to finish kLoopHorizonCalls calls of a
// loop before every ranked entry. Entry 0 wins (1.0 alone, 0.9 a call in a loop: 63.7 over the
// horizon); entry 1 is ranked (1.5, 0.5: 33.0). Entry 2 (6.0, 0.3: 24.9) qualifies; entry 3
// repeats faster still (0.1) but takes 9x the winner alone; entry 4 (3.0, 0.45: 31.35) beats the
// ranked ones but not entry 2; entry 5 has no interval.
TEST(AdaptRanking, TheLoopRunnerUpFinishesTheHorizonFirst) {
  const AdaptSettings s = explore_settings();
  const Decision d = table_of({1.0, 1.5, 6.0, 9.0, 3.0, 2.0}, 0);
  const double nan = std::nan("");
  std::vector<double> intervals{0.9, 0.5, 0.3, 0.1, 0.45, nan};
  const std::vector<int> ranked{0, 1};
  EXPECT_EQ(loop_runner_up(d, ranked, intervals, s), 2);
  // Ranked already: the next best, if it beats the ranked entries.
  EXPECT_EQ(loop_runner_up(d, {0, 1, 2}, intervals, s), std::nullopt);
  EXPECT_EQ(loop_runner_up(d, {0, 2}, intervals, s), std::nullopt);
  // Entry 2 not applicable: entry 4 beats the ranked runner-up's loop (31.35 against 33.0), and
  // does not once that repeats in 0.4 (26.7).
  Decision without = d;
  without.table[2].not_applicable = "no";
  EXPECT_EQ(loop_runner_up(without, ranked, intervals, s), 4);
  intervals[1] = 0.4;
  EXPECT_EQ(loop_runner_up(without, ranked, intervals, s), std::nullopt);
  intervals[1] = 0.5;
  // A winner without an interval, or not exploring: none.
  std::vector<double> unknown = intervals;
  unknown[0] = nan;
  EXPECT_EQ(loop_runner_up(d, ranked, unknown, s), std::nullopt);
  AdaptSettings monitoring = s;
  monitoring.mode = AdaptMode::monitor;
  EXPECT_EQ(loop_runner_up(d, ranked, intervals, monitoring), std::nullopt);
  AdaptSettings none = s;
  none.max_candidates = 0;
  EXPECT_EQ(loop_runner_up(d, ranked, intervals, none), std::nullopt);
  // Repeating faster by no more than the hysteresis: not a loop runner-up.
  std::vector<double> close{0.9, 0.85, 0.85, 0.86, 0.84, nan};
  EXPECT_EQ(loop_runner_up(d, {0}, close, s), std::nullopt);
}

// A loop tries as many algorithms as a single call would: each ranked runner-up that repeats
// slower than the winner by more than the tie margin (25 %), which a loop skips, gives its place
// to one more loop runner-up. Entry 0 wins (1.0 alone, 0.9 a call: 57.7 over the horizon);
// entries 5 (interval 2.0) and 6 (1.5) are ranked but repeat slower; the loop candidates are 2
// (24.9), 4 (31.35) and 1 (33.0) in that order; entry 3 takes 9x the winner alone.
TEST(AdaptRanking, EachRunnerUpALoopSkipsGivesItsPlaceToALoopRunnerUp) {
  const AdaptSettings s = explore_settings();
  const Decision d = table_of({1.0, 1.5, 6.0, 9.0, 3.0, 1.2, 1.3}, 0);
  std::vector<double> intervals{0.9, 0.5, 0.3, 0.1, 0.45, 2.0, 1.5};
  EXPECT_EQ(loop_runners_up(d, {0, 5, 6}, intervals, s), (std::vector<int>{2, 4, 1}));
  EXPECT_EQ(loop_runners_up(d, {0, 5}, intervals, s), (std::vector<int>{2, 4}));
  EXPECT_EQ(loop_runners_up(d, {0}, intervals, s), (std::vector<int>{2}));
  // Entry 1 ranked and repeating faster: still one loop runner-up; entry 1 is not one.
  EXPECT_EQ(loop_runners_up(d, {0, 1}, intervals, s), (std::vector<int>{2}));
  // Entry 6 slower by less than the tie margin (1.1 against 0.9 x 1.25 = 1.125): a loop tries it.
  intervals[6] = 1.1;
  EXPECT_EQ(loop_runners_up(d, {0, 5, 6}, intervals, s), (std::vector<int>{2, 4}));
  // More places than candidates: the ones there are, each once.
  Decision two = d;
  two.table[1].not_applicable = "no";
  two.table[4].not_applicable = "no";
  intervals[6] = 1.5;
  EXPECT_EQ(loop_runners_up(two, {0, 5, 6}, intervals, s), (std::vector<int>{2}));
  // No ranking, or not exploring: none.
  EXPECT_TRUE(loop_runners_up(d, {}, intervals, s).empty());
  AdaptSettings monitoring = s;
  monitoring.mode = AdaptMode::monitor;
  EXPECT_TRUE(loop_runners_up(d, {0, 5, 6}, intervals, monitoring).empty());
}

// The monitor's "a loop skips it" and the plan's count of places are one rule.
TEST(AdaptRanking, RepeatsSlowerIsBeyondTheTieMargin) {
  const AdaptSettings s = explore_settings();  // tie_margin 0.25
  EXPECT_TRUE(repeats_slower_than(1.2, 0.9, s));
  EXPECT_FALSE(repeats_slower_than(1.1, 0.9, s));
  EXPECT_FALSE(repeats_slower_than(0.5, 0.9, s));
  EXPECT_FALSE(repeats_slower_than(std::nan(""), 0.9, s));
  EXPECT_FALSE(repeats_slower_than(1.2, std::nan(""), s));
  EXPECT_FALSE(repeats_slower_than(1.2, 0.0, s));
}

TEST(AdaptRanking, NeverSecondGuessesAnOverrideOrNative) {
  AdaptSettings s = explore_settings();
  Decision d = table_of({1.0, 1.1}, 0);
  d.rung = Rung::override_algorithm;
  EXPECT_TRUE(adapt_ranking(d, s).empty());
  d.rung = Rung::calibrated_model;
  d.winner = -1;
  EXPECT_TRUE(adapt_ranking(d, s).empty());
  d.winner = 0;
  s.mode = AdaptMode::monitor;
  EXPECT_EQ(adapt_ranking(d, s), (std::vector<int>{0}));
  s.mode = AdaptMode::off;
  EXPECT_TRUE(adapt_ranking(d, s).empty());
}

TEST(SegmentVariants, FourTimesAndAQuarterOfTheSegmentWithinTheMessage) {
  // The wrong model's 1536-byte segments of a 64 KiB Bcast (docs/BENCHMARKS.md): 6144 and 384.
  EXPECT_EQ(segment_variants(65536, 1536, 8), (std::vector<std::uint64_t>{6144, 384}));
  // One segment (0 or the whole message): only the quarter; 4x would not cut the message.
  EXPECT_EQ(segment_variants(65536, 0, 8), (std::vector<std::uint64_t>{16384}));
  EXPECT_EQ(segment_variants(65536, 65536, 8), (std::vector<std::uint64_t>{16384}));
  EXPECT_EQ(segment_variants(65536, 32768, 8), (std::vector<std::uint64_t>{8192}));
  // Multiples of the unit (24 bytes: 4000 -> 4008, 250 -> 264).
  EXPECT_EQ(segment_variants(65536, 1000, 24), (std::vector<std::uint64_t>{4008, 264}));
  // A quarter that rounds up to the segment itself is no variant; nor are segments past the cap.
  EXPECT_EQ(segment_variants(65536, 8, 8), (std::vector<std::uint64_t>{32}));
  EXPECT_TRUE(segment_variants(std::uint64_t{1} << 30, 1024, 8).empty());
  EXPECT_TRUE(segment_variants(0, 0, 8).empty());
}

// A ranking of the model's choice (0), a runner-up (1) and the choice's two segment variants
// (2, 3), as plan_adapt() builds it.
TEST(ShapeMonitor, TriesTheKeptEntrysSegmentsAfterTheRunnersUp) {
  ShapeMonitor m(explore_settings(), {1.0, 1.2, 1.3, 1.4}, std::nullopt, {-1, -1, 0, 0});
  Driver d{m, std::vector<double>{2.0, 3.0, 2.1, 0.5}};
  d.calls(8);   // 2.0 against 1.0 predicted: departs
  d.calls(1);   // runner-up 1: its first call, 3.0, is within 2x of 2.0: kept on
  d.calls(3);   // ... and slower: not accepted
  d.calls(4);   // variant 2: 2.1, slower
  d.calls(4);   // variant 3: 0.5, clearly faster
  d.calls(10);
  const std::vector<int> expected = [] {
    std::vector<int> e(8, 0);
    e.insert(e.end(), 4, 1);
    e.insert(e.end(), 4, 2);
    e.insert(e.end(), 4, 3);
    e.insert(e.end(), 10, 3);
    return e;
  }();
  EXPECT_EQ(d.ran, expected);
  EXPECT_EQ(m.outcome().chosen, 3);
  EXPECT_EQ(m.outcome().explore_calls, 12u);
}

// In a loop, a segment variant's first call fills its pipeline, and after a doubled trial's
// agreement (which drained the loop's overlap) the next call refills it (the 9.0 call here):
// both are left out of its mean. With the calls apart that call is timed like the others.
TEST(ShapeMonitor, ALoopLeavesOutTheCallThatRefillsAVariantsPipeline) {
  const std::vector<MonitorEntry> entries{{.predicted_s = 1.0, .interval_s = 0.8},
                                          {.predicted_s = 1.4, .variant_of = 0, .interval_s = 0.6}};
  // The choice departs (2.0, 1.0 predicted). The variant: its first call 3.0 (within 2x of 2.0:
  // not abandoned where it is judged), then 2.0, 1.4, 1.7 (15 % faster, within the noise:
  // doubled), a refill, 1.7 three times (clearly faster: kept after 8 calls).
  const auto times = [](int k, int n) {
    if (k == 0) return 2.0;
    constexpr std::array<double, 4> head{3.0, 2.0, 1.4, 1.7};
    if (n < 4) return head[static_cast<std::size_t>(n)];
    return n == 4 ? 9.0 : 1.7;
  };
  const auto [loop, loop_last] = run_series(entries, times, 0.01);
  EXPECT_EQ(loop.explore_calls, 8u);
  EXPECT_NEAR(loop.measured_s[1], 1.7, 1e-12);
  EXPECT_EQ(loop.chosen, 1);
  EXPECT_EQ(loop_last, 1);
  const auto [apart, apart_last] = run_series(entries, times, 1.0);
  EXPECT_EQ(apart.explore_calls, 8u);
  EXPECT_NEAR(apart.measured_s[1], (2.0 + 1.4 + 1.7 + 9.0 + 3 * 1.7) / 7.0, 1e-12);
  EXPECT_EQ(apart.chosen, 0);
  EXPECT_EQ(apart_last, 0);
}

// A variant's first call in a loop pays its pipeline's whole latency (3.5 here, its loop 0.5): it
// is not judged, so not abandoned against the 0.9 a call of the variant accepted before it, and
// the variant is kept. With the calls apart it is abandoned against 2x 0.9.
TEST(ShapeMonitor, ALoopDoesNotJudgeAVariantsFirstCall) {
  const std::vector<MonitorEntry> entries{{.predicted_s = 1.0, .interval_s = 0.8},
                                          {.predicted_s = 1.2, .variant_of = 0, .interval_s = 0.5},
                                          {.predicted_s = 1.3, .variant_of = 0, .interval_s = 0.4}};
  const auto times = [](int k, int n) {
    if (k == 0) return 2.0;
    if (k == 1) return n == 0 ? 2.5 : 0.9;
    return n == 0 ? 3.5 : 0.5;
  };
  const auto [loop, loop_last] = run_series(entries, times, 0.01);
  EXPECT_EQ(loop.chosen, 2);
  EXPECT_EQ(loop_last, 2);
  EXPECT_EQ(loop.explore_calls, 8u);
  const auto [apart, apart_last] = run_series(entries, times, 1.0);
  EXPECT_EQ(apart.chosen, 1);
  EXPECT_EQ(apart_last, 1);
  EXPECT_EQ(apart.explore_calls, 5u);
}

TEST(ShapeMonitor, TriesOnlyTheVariantsOfTheEntryItKeeps) {
  // Variants 2 of the model's choice, 3 of runner-up 1; runner-up 1 wins its trial, and departs
  // from its own prediction (1.0 against 0.5).
  ShapeMonitor m(explore_settings(), {1.0, 0.5, 1.3, 1.3}, std::nullopt, {-1, -1, 0, 1});
  Driver d{m, std::vector<double>{2.0, 1.0, 0.1, 0.9}};
  d.calls(8 + 4 + 4 + 5);
  for (std::size_t i = 0; i < d.ran.size(); ++i) EXPECT_NE(d.ran[i], 2) << "call " << i;
  // 0.9 against 1.0 is a 10 % gain: not more than the hysteresis, and exact (no noise).
  EXPECT_EQ(m.outcome().chosen, 1);
  EXPECT_EQ(m.outcome().explore_calls, 8u);
}

TEST(ShapeMonitor, AlsoTriesTheSegmentsOfTheClosestSegmentedRunnerUp) {
  // The model's choice 0 (variants 2, 3) departs (2.0 against 1.0); its segmented runner-up 1
  // (variants 4, 5) measures 2.2, within the 25 % tie margin but not kept. The same wrong model
  // chose 1's segment: after 0's variants (3.0 and 2.5, slower), 1's are tried, and variant 4
  // (0.5) wins; variant 5 (5.0) is dropped after its first call. The simulated gige case with
  // the gaps / 3: chain_segmented at the wrong model's segment 8 % behind binomial_segmented,
  // 2.4x faster at 4x that segment.
  const std::vector<int> variant_of{-1, -1, 0, 0, 1, 1};
  ShapeMonitor m(explore_settings(), {1.0, 1.3, 1.4, 1.4, 1.4, 1.4}, std::nullopt, variant_of);
  Driver d{m, std::vector<double>{2.0, 2.2, 3.0, 2.5, 0.5, 5.0}};
  d.calls(8 + 4 + 4 + 4 + 4 + 1 + 10);
  EXPECT_EQ(m.outcome().chosen, 4);
  EXPECT_EQ(m.outcome().explore_calls, 17u);
  EXPECT_EQ(d.ran.back(), 4);
  // A runner-up 30 % behind (2.6) is outside the margin: only the kept entry's variants.
  ShapeMonitor far(explore_settings(), {1.0, 1.3, 1.4, 1.4, 1.4, 1.4}, std::nullopt, variant_of);
  Driver f{far, std::vector<double>{2.0, 2.6, 3.0, 2.5, 0.5, 5.0}};
  f.calls(100);
  for (int c : f.ran) EXPECT_TRUE(c != 4 && c != 5);
  EXPECT_EQ(far.outcome().chosen, 0);
}

TEST(ShapeMonitor, AfterADepartureTheKeptEntrysSegmentIsTriedEvenWhenItRunsAsPredicted) {
  // The model's choice departs (2.0 against 1.0); runner-up 1 wins its trial at 1.2, as
  // predicted (1.3), but by the same model that chose its segment.
  ShapeMonitor m(explore_settings(), {1.0, 1.3, 1.3}, std::nullopt, {-1, -1, 1});
  Driver d{m, std::vector<double>{2.0, 1.2, 0.1}};
  d.calls(100);
  EXPECT_EQ(m.outcome().chosen, 2);
  EXPECT_EQ(m.outcome().explore_calls, 8u);
}

TEST(ShapeMonitor, AfterATiesTrialAKeptEntryThatRunsAsPredictedKeepsItsSegment) {
  // The model's choice runs as predicted; its tie 1 (1.1) measures 0.8, 20 % faster, and runs
  // faster than predicted: the model holds there, and 1's variant (faster still) is not tried.
  ShapeMonitor m(explore_settings(), {1.0, 1.1, 1.3}, std::nullopt, {-1, -1, 1});
  Driver d{m, std::vector<double>{1.0, 0.8, 0.1}};
  d.calls(100);
  for (int c : d.ran) EXPECT_NE(c, 2);
  EXPECT_EQ(m.outcome().chosen, 1);
  EXPECT_EQ(m.outcome().explore_calls, 4u);
  // The same tie running 2x slower than its prediction (2.2 against 1.1) but faster than the
  // choice (3.0 against 2.5 predicted, within the threshold): its segments are tried.
  ShapeMonitor slow(explore_settings(), {2.5, 1.1, 1.3}, std::nullopt, {-1, -1, 1});
  Driver s{slow, std::vector<double>{3.0, 2.2, 0.1}};
  s.calls(100);
  EXPECT_EQ(slow.outcome().chosen, 2);
}

TEST(ShapeMonitor, AVariantIsNeverATieAndExploresNothingByItself) {
  // The variant is predicted 1 % from the choice, which runs as predicted: no trial at all.
  ShapeMonitor m(explore_settings(), {1.0, 1.01}, std::nullopt, {-1, 0});
  Driver d{m, std::vector<double>{1.0, 0.1}};
  d.calls(100);
  for (int c : d.ran) EXPECT_EQ(c, 0);
  EXPECT_FALSE(m.outcome().explored);
}

TEST(ShapeMonitor, ADepartingChoiceWithoutRunnersUpTriesItsSegments) {
  ShapeMonitor m(explore_settings(), {1.0, 1.5}, std::nullopt, {-1, 0});
  Driver d{m, std::vector<double>{2.0, 1.0}};
  d.calls(8 + 4 + 2);
  EXPECT_EQ(m.outcome().chosen, 1);
  EXPECT_EQ(d.ran.back(), 1);
}

// The registry's segmented broadcasts under the embedded default model (closed forms).
std::optional<models::ModelFile> embedded_model() {
  models::ModelLoad load =
      models::parse_model(conf::embedded_default_model(), conf::kEmbeddedModelName);
  return load.model;
}

TEST(PlanAdapt, AddsEachSegmentedEntrysVariantsPredictedAtTheirSegment) {
  const std::optional<models::ModelFile> model = embedded_model();
  ASSERT_TRUE(model.has_value());
  const CallShape shape{Collective::bcast, 16, 1 << 20, 0};
  const ModelSet models{nullptr, &*model};
  AdaptSettings s = explore_settings();
  s.candidate_factor = 1e6;  // every applicable algorithm, so that segmented ones are ranked
  s.max_candidates = 16;
  const Decision d = decide(shape, models, Policy{}, nullptr);
  const AdaptPlan plan = plan_adapt(shape, d, s, models, Policy{}, nullptr, nullptr);
  const std::vector<int> ranking = adapt_ranking(d, s);
  ASSERT_GT(plan.ranking.size(), ranking.size());
  int variants = 0;
  for (std::size_t r = 0; r < plan.ranking.size(); ++r) {
    const RankedEntry& e = plan.ranking[r];
    if (r < ranking.size()) {
      EXPECT_EQ(e.table_index, ranking[r]);
      EXPECT_EQ(e.variant_of, -1);
      EXPECT_EQ(e.label(), e.cost.name);
      continue;
    }
    ++variants;
    ASSERT_GE(e.variant_of, 0);
    const RankedEntry& base = plan.ranking[static_cast<std::size_t>(e.variant_of)];
    EXPECT_EQ(e.table_index, base.table_index);
    EXPECT_TRUE(catalog(Collective::bcast)[static_cast<std::size_t>(e.table_index)].segmented);
    const std::vector<std::uint64_t> sizes =
        segment_variants(shape.bytes, base.cost.params.segment_bytes, 8);
    EXPECT_NE(std::find(sizes.begin(), sizes.end(), e.cost.params.segment_bytes), sizes.end());
    // As decide() predicts the algorithm with the user fixing that segment.
    Policy fixed;
    fixed.segment_bytes = e.cost.params.segment_bytes;
    const Decision at = decide(shape, models, fixed, nullptr);
    EXPECT_DOUBLE_EQ(e.cost.predicted_s,
                     at.table[static_cast<std::size_t>(e.table_index)].predicted_s);
    EXPECT_EQ(e.label(), fmt::format("{}@{}", e.cost.name, e.cost.params.segment_bytes));
  }
  EXPECT_GE(variants, 2);
  // The monitor gets every entry, with its variant mark and its repetition interval, a variant's
  // at its own segment.
  const std::vector<MonitorEntry> entries = plan.monitor_entries();
  ASSERT_EQ(entries.size(), plan.ranking.size());
  for (std::size_t r = 0; r < entries.size(); ++r) {
    EXPECT_EQ(entries[r].variant_of, plan.ranking[r].variant_of);
    EXPECT_EQ(entries[r].predicted_s, plan.ranking[r].cost.predicted_s);
    EXPECT_EQ(entries[r].loop_only, plan.ranking[r].loop_only);
    EXPECT_TRUE(std::isnan(entries[r].interval_s) ? std::isnan(plan.ranking[r].interval_s)
                                                  : entries[r].interval_s ==
                                                        plan.ranking[r].interval_s);
  }
  for (const RankedEntry& e : plan.ranking) {
    const std::optional<double> interval =
        predict_interval(shape, e.table_index, e.cost.params, models, nullptr);
    ASSERT_TRUE(interval.has_value()) << e.label();
    EXPECT_EQ(e.interval_s, *interval) << e.label();
  }
  // Only exploring uses them: none in monitor mode.
  AdaptSettings monitoring = s;
  monitoring.mode = AdaptMode::monitor;
  for (const MonitorEntry& e : plan_adapt(shape, d, monitoring, models, Policy{}, nullptr, nullptr)
                                  .monitor_entries()) {
    EXPECT_TRUE(std::isnan(e.interval_s));
  }

  // None when the user fixed the segment, or turned the trials off.
  Policy fixed;
  fixed.segment_bytes = 8192;
  const Decision dfixed = decide(shape, models, fixed, nullptr);
  EXPECT_EQ(plan_adapt(shape, dfixed, s, models, fixed, nullptr, nullptr).ranking.size(),
            ranking.size());
  s.try_segments = false;
  EXPECT_EQ(plan_adapt(shape, d, s, models, Policy{}, nullptr, nullptr).ranking.size(),
            ranking.size());
}

TEST(PlanAdapt, StartsFromALearnedSegment) {
  const std::optional<models::ModelFile> model = embedded_model();
  ASSERT_TRUE(model.has_value());
  const CallShape shape{Collective::bcast, 16, 1 << 20, 0};
  const ModelSet models{nullptr, &*model};
  AdaptSettings s;  // monitor mode: no runners-up, no variants
  const Decision d = decide(shape, models, Policy{}, nullptr);
  LearnedShape l;
  l.shape = shape;
  l.model_choice = std::string(d.algorithm());
  l.chosen = "bcast.chain_segmented@4096";
  l.measured_s = {{l.chosen, 0.25}};
  const AdaptPlan plan = plan_adapt(shape, d, s, models, Policy{}, nullptr, &l);
  ASSERT_EQ(plan.ranking.size(), 2u);
  ASSERT_TRUE(plan.start.has_value());
  EXPECT_EQ(plan.start->first, 1);
  EXPECT_DOUBLE_EQ(plan.start->second, 0.25);
  EXPECT_EQ(plan.ranking[1].cost.params.segment_bytes, 4096u);
  EXPECT_EQ(plan.ranking[1].variant_of, -1);  // a start, not a variant to try
  EXPECT_EQ(plan.ranking[1].label(), l.chosen);
  // A learned segment the user has since fixed otherwise: the model decides.
  Policy fixed;
  fixed.segment_bytes = 8192;
  EXPECT_FALSE(plan_adapt(shape, decide(shape, models, fixed, nullptr), s, models, fixed,
                          nullptr, &l)
                   .start.has_value());
}

}  // namespace
}  // namespace collsel
