// decide(): the pure choice of an algorithm for one call (STYLE.md 8.5 #15-16). It returns the
// whole cost table, the winner and the rung that decided. The shim, `collsel explain` and the
// tests all call this function; none of them needs MPI for it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "models/contention/schedule.hpp"
#include "models/model_file.hpp"
#include "selector/catalog.hpp"

namespace collsel {

// The precedence, highest first. Logged with every call. decide() yields the first four; the
// shim's monitor (selector/adapt.hpp) adds `measured` (a runner-up that measured faster than the
// model's choice, in this run or in the learned table) and `explore` (a trial call of a runner-up).
enum class Rung { override_algorithm, calibrated_model, default_model, native, measured, explore };
// "override", "model", "default_model", "native", "measured", "explore"
std::string_view rung_name(Rung r);

struct ModelSet {
  const models::ModelFile* calibrated = nullptr;  // the user's model file, if it loaded
  const models::ModelFile* fallback = nullptr;    // the embedded default model

  // The model that predicts: the calibrated one when it loaded, else the fallback (or none).
  [[nodiscard]] const models::ModelFile* in_use() const {
    return calibrated != nullptr ? calibrated : fallback;
  }
};

struct CostEntry {
  std::string_view name;
  std::optional<std::string> not_applicable;  // the reason, when the algorithm cannot run
  double predicted_s = 0.0;                   // NaN when no model is available
  AlgoParams params;
  // True when predicted_s comes from simulating the algorithm's schedule on the communicator's
  // placement (the model file's [contention] section), false for the closed-form model.
  bool simulated = false;
  // When predicted_s was extrapolated from the simulation of the message's first segments (a
  // segmented Bcast whose schedule is longer than kMaxSimulatedMessages): how many segments the
  // simulated prefix held. 0: the whole schedule was simulated, or none was.
  std::uint64_t extrapolated_from_segments = 0;
  // True when predicted_s is the busiest node's link floor (models::contention::LinkLoad), above
  // the closed form: a schedule too long to simulate, on a placement with several ranks on a node.
  bool link_shared = false;
};

// Schedules with more messages than this keep their closed-form prediction: the simulation's cost
// grows with the messages and its steps (a whole All-to-All decision at P = 63, 8 ranks per
// node: 0.06-0.09 s under fair, gige or infiniband, 0.3 s under myrinet; docs/MODELS.md), and a
// first decision must stay well under a second. 4096 admits an All-to-All of 64 ranks (4032 messages) and every
// unsegmented tree up to thousands of ranks. Depends on the shape only, so every rank makes the
// same choice.
inline constexpr std::size_t kMaxSimulatedMessages = 4096;

// The smallest segment size tried when a segmented algorithm is simulated; the others double it.
// Powers of 2, not of 4: the power-of-4 grid skipped SMPI's 8 KiB segments, where its bandwidth
// factors move bytes fastest, and with them a chain 1.12x faster than the choice (gige, P = 16,
// 8 per node, 64 KiB; docs/BENCHMARKS.md).
inline constexpr std::uint64_t kFirstSimulatedSegmentBytes = 1024;

// A segmented Bcast whose schedule is longer than kMaxSimulatedMessages is predicted from the
// simulations of its message's first k and 2 k segments, extrapolated linearly to the whole
// message. k is this or one more than the segments the algorithm keeps in flight
// (AlgorithmView::segments_in_flight), whichever is larger: both prefixes must hold the
// pipeline's fill.
inline constexpr std::uint64_t kMinExtrapolationSegments = 8;

// The longer prefix of an extrapolation may hold this many messages: twice the cap, so that the
// preposted chain's prefixes of 65 and 130 segments fit at 64 ranks (8190 messages). Past it the
// closed form stands.
inline constexpr std::size_t kMaxPrefixMessages = 2 * kMaxSimulatedMessages;

// Relative difference below which two candidate segments' simulated times tie (the larger
// segment wins): equal sums rounded differently, extrapolated against simulated, are equal.
inline constexpr double kSegmentTieTolerance = 1e-9;

// How many of a segment search's candidates past the cap are extrapolated, besides the closed
// form's own segment.
inline constexpr std::size_t kMaxExtrapolatedCandidates = 3;

// The messages an algorithm's extrapolations may simulate in one decision, their two prefixes
// each: 3 x the cap. It bounds the cost the extrapolations add to a first decision (about 4-6 us
// a message here) whatever P: at P = 256 two extrapolations of a chain (16 + 8 segments of 255
// messages), at P = 64 one of the preposted chain (130 + 65 segments of 63), at P = 16 all.
inline constexpr std::size_t kExtrapolationBudgetMessages = 3 * kMaxSimulatedMessages;

// The model a simulated segment search starts from: `model` without the link shares the
// simulation of schedules charges differently (the fan-out share sigma, which it does not charge,
// and the pair share tau, which it charges a pipeline's first segment to each receiver only;
// docs/MODELS.md), or its closed form would pick a segment for a cost the simulation never sees.
// Starting from the closed form with tau instead moved 35 of the 407 simulated Bcast choices at 8
// ranks per node (2026-11-30), none of them measured, so the start stays without it.
// Empty when `model` has neither share, and the search starts from the model's own closed form.
std::optional<models::ModelFile> without_link_shares(const models::ModelFile& model);

// The segment sizes decide() simulates for a segmented algorithm whose segment the user did not
// fix, largest first, without repeats: the closed form's choice, `bytes` itself (one segment),
// and the sizes 1 KiB x 2^i up to `bytes`, rounded up to a multiple of unit_bytes (0 is taken as
// 1), that cut the message into at most kMaxSimulatedMessages segments. At most 15 sizes.
// bytes == 0 gives the closed form's choice only.
std::vector<std::uint64_t> simulated_segment_candidates(std::uint64_t bytes,
                                                        std::uint64_t closed_form_segment,
                                                        std::uint64_t unit_bytes);

struct Decision {
  std::vector<CostEntry> table;  // one entry per algorithm, in registry order
  int winner = -1;               // index into table; -1: the native collective
  Rung rung = Rung::native;
  std::string note;              // why, when something was skipped ("override ... n/a: ...")

  [[nodiscard]] std::string_view algorithm() const;  // winner's name or "native"
  [[nodiscard]] double predicted_s() const;          // NaN for native
  [[nodiscard]] AlgoParams params() const;
  [[nodiscard]] bool simulated() const;  // the winner's prediction came from the simulator
};

// Rungs: (1) policy.of(coll).force, if it names an applicable algorithm ("native" forces the
// native collective); (2) the calibrated model; (3) the fallback model; (4) native. A disabled
// collective is always native. The table is filled from the best model available on every rung.
// Ties go to the earlier algorithm in `algorithms` (registry order).
//
// `placement` (rank -> node of the communicator, equal on all ranks; nullptr: unknown) turns on
// schedule simulation when the model used has a [contention] section whose `use` is `always`, or
// `auto` and some node hosts more than one rank of the call (or, at one rank per node, an
// All-to-All whose blocks' link time hides their receive overhead, at P <= 64: docs/MODELS.md,
// "[contention] use"), and the placement places at least
// comm_size ranks (the first comm_size are used). Then every applicable algorithm with a schedule
// is predicted by models::contention::simulate() of its schedule, built with the parameters its
// closed-form model chose. A segmented algorithm whose segment the user did not fix
// (Policy::segment_bytes) is simulated at every size of simulated_segment_candidates() whose
// schedule fits the cap, and at the next kMaxExtrapolatedCandidates sizes by extrapolation from
// their first segments (kMinExtrapolationSegments), and keeps the fastest (ties: the larger
// segment) in CostEntry::params; a fixed segment is simulated alone, or extrapolated past the
// cap. Algorithms without a schedule, schedules longer than kMaxSimulatedMessages that cannot be
// extrapolated and schedules the solver rejects keep the closed form and its parameters.
// CostEntry::simulated and CostEntry::extrapolated_from_segments say which.
Decision decide(const CallShape& shape, std::span<const AlgorithmView> algorithms,
                const ModelSet& models, const Policy& policy,
                const models::contention::Placement* placement = nullptr);
// Same, over the registry.
Decision decide(const CallShape& shape, const ModelSet& models, const Policy& policy,
                const models::contention::Placement* placement = nullptr);

// One algorithm of the registry (`table_index` into catalog(shape.coll)) predicted as decide()
// predicts it with `segment_bytes` fixed by the user: the closed form at that segment, or its
// schedule's simulation under the same conditions. What a trial of another segment of the model's
// choice (selector/adapt.hpp) is held against.
CostEntry predict_at_segment(const CallShape& shape, int table_index, const ModelSet& models,
                             const Policy& policy, std::uint64_t segment_bytes,
                             const models::contention::Placement* placement = nullptr);

// Schedules with more messages than this have no repetition interval (predict_interval()). Adding
// up a schedule's gaps costs far less than simulating it, so the cap is 16x the simulation's: a
// chain of 16 ranks cuts 1 MiB into 512-byte segments within it.
inline constexpr std::size_t kMaxIntervalMessages = 16 * kMaxSimulatedMessages;

// A closed form whose schedule has more messages than this is not charged a node's shared link
// (models::contention::link_load): it stands alone, as before that charge. Counting a schedule's
// bytes per node costs far less than simulating it; 16x the simulation's cap admits an
// All-to-All of 256 ranks (65280 messages), the largest the at-scale benchmark measures whole.
inline constexpr std::size_t kMaxLinkLoadMessages = kMaxIntervalMessages;

// The repetition interval of `table_index`'s schedule at `params` under the model in use
// (models::contention::busiest_rank_s: its busiest rank's sends or receives, one gap each): how
// far apart its calls follow one another in a loop of back-to-back calls, where a pipeline's calls
// overlap. Nothing when the algorithm has no schedule, its schedule is longer than
// kMaxIntervalMessages, or no model is in use. Equal inputs give equal results on every rank.
std::optional<double> predict_interval(const CallShape& shape, int table_index,
                                       const AlgoParams& params, const ModelSet& models,
                                       const models::contention::Placement* placement = nullptr);

// predict_interval() of every entry of `d`'s table at its own parameters, NaN where the entry is
// not applicable, has no finite prediction or no interval: what plan_adapt() ranks loops by and
// what `collsel explain` shows, computed once for both.
std::vector<double> table_intervals(const CallShape& shape, const Decision& d,
                                    const ModelSet& models,
                                    const models::contention::Placement* placement = nullptr);

}  // namespace collsel
