// All-to-All under network contention (seed 000, Steffenel 2006): the 1-port lower bound
// (Proposition 1), the contention-ratio model (eq. 4), the contention signature (eq. 5), the
// throughput-under-contention model (eq. 3), and the models collsel derives from them for each
// All-to-All schedule it runs. Readings chosen where the paper is silent or garbled: docs/MODELS.md,
// "All-to-All". Pure C++: this target must never see <mpi.h>.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>

#include "models/plogp/params.hpp"

namespace collsel::models::alltoall {

// Hockney's linear cost of one message between two processes (seed 000 section 4): alpha + m beta.
struct Hockney {
  double alpha_s = 0.0;          // start-up
  double beta_s_per_byte = 0.0;  // 1 / bandwidth
};

inline constexpr std::uint64_t kNoThreshold = std::numeric_limits<std::uint64_t>::max();

// The contention signature (eq. 4, 5): gamma scales the lower bound; delta is added per
// communication round for messages of M bytes or more.
struct Signature {
  double gamma = 1.0;
  double delta_s = 0.0;
  std::uint64_t threshold_bytes = kNoThreshold;  // M; kNoThreshold: no delta term
};

// How well a fit matched its samples (relative residuals, (predicted - measured) / measured).
struct FitQuality {
  int points = 0;
  double rms_rel = 0.0;
  double max_abs_rel = 0.0;
};

// The [alltoall] section of a model file: everything the All-to-All schedules' models need.
struct Contention {
  int sample_ranks = 0;  // n', the process count the signature was fitted at; 0: not measured
  Hockney hockney;       // the alpha and beta the signature is relative to
  Signature signature;
  FitQuality signature_fit;
  // eq. 3: the contention-free and the saturated gap per byte.
  double beta_free_s_per_byte = 0.0;        // beta_F
  double beta_contention_s_per_byte = 0.0;  // beta_C
  // rho at one exchange in flight per process (direct exchange) and at n' - 1 in flight (every
  // message posted at once), fitted at n'. rho(k) interpolates linearly between them.
  double rho_single = 0.0;
  double rho_flood = 0.0;
  double copy_s_per_byte = 0.0;  // local memory copy (Bruck's rotations and packing)

  // Empty when usable; otherwise the first problem, as a sentence.
  [[nodiscard]] std::optional<std::string> invalid_reason() const;
};

// Local copies cost this much when a model file does not say (4 GB/s): used by the contention-
// free stand-in only.
inline constexpr double kDefaultCopySecondsPerByte = 2.5e-10;

// Hockney parameters read off a pLogP table: alpha = L + g(smallest size), beta = least-squares
// slope of g(m) over the sizes >= 1/64 of the largest (at least the last two points).
Hockney hockney_from_plogp(const plogp::Params& p);

// The stand-in when a model file has no [alltoall] section: contention-free (gamma 1, no delta,
// rho 0, beta_C = beta_F = beta), Hockney from the pLogP table.
Contention contention_free(const plogp::Params& p);

// --- The paper's formulas (n processes, m bytes per message) ---

// Proposition 1: (n - 1) alpha + (n - 1) beta m.
double lower_bound(const Hockney& h, int n, std::uint64_t m);
// eq. 4: ((n - 1)(alpha + m beta)) gamma.
double contention_ratio_model(const Hockney& h, double gamma, int n, std::uint64_t m);
// eq. 5, read as (n - 1)((alpha + m beta) gamma + delta) for m >= M (docs/MODELS.md).
double signature_model(const Hockney& h, const Signature& s, int n, std::uint64_t m);
// eq. 3: beta = (1 - rho) beta_F + rho beta_C.
double synthetic_beta(double beta_free, double beta_contention, double rho);

// --- collsel's schedules ---

// rho with k exchanges in flight per process (see Contention), clamped to [0, 1].
double rho_at(const Contention& c, int k);
// alltoall.direct_exchange and alltoall.pairwise: n - 1 rounds of one exchange; eq. 5.
double direct_exchange(const Contention& c, int n, std::uint64_t m);
// alltoall.windowed with k exchanges in flight: ceil((n-1)/k) alpha + (n-1) m beta(rho(k)).
double windowed(const Contention& c, int n, std::uint64_t m, int k);
// alltoall.all_at_once: windowed with k = n - 1.
double all_at_once(const Contention& c, int n, std::uint64_t m);
// alltoall.bruck: ceil(log2 n) rounds; round j sends the b_j blocks whose index has bit j set, as
// one message charged like one signature round: (alpha + b_j m beta) gamma + delta [b_j m >= M];
// plus copies of 2 n m + 2 sum_j b_j m bytes at copy_s_per_byte.
double bruck(const Contention& c, int n, std::uint64_t m);
// Blocks Bruck's round j carries: how many of 0 .. n-1 have bit j set.
std::uint64_t bruck_round_blocks(int n, int j);

// alltoall.mesh2d's grid: rows x cols = n ranks, rows the largest divisor of n not above
// sqrt(n) (1 when n is prime: one row, a single phase). Rank r sits in row r / cols, column
// r % cols.
struct MeshGrid {
  int rows = 1;
  int cols = 1;
};
MeshGrid mesh_grid(int n);
// alltoall.mesh2d (Faraj and Yuan's 2-D mesh, packed): two phases, each with all its messages in
// flight, charged like all_at_once on the phase: along the row, cols - 1 messages of rows m bytes
// (the blocks bound for each column); along the column, rows - 1 messages of cols m bytes. A phase
// with k messages of b bytes costs alpha + k b beta(rho(k)). Plus copies of
// (2 n + (rows - 1) cols) m bytes (packing, the second phase's gathering, unpacking).
double mesh2d(const Contention& c, int n, std::uint64_t m);

// What one rank's CPU pays for the messages of any All-to-All schedule that exchanges one block
// with every other rank: n - 1 sends and n - 1 receives, one after another, (n-1)(o_s(m) +
// o_r(m)) from pLogP. Every schedule's prediction is floored by what its own messages cost
// (registry.cpp), so that where the calibration's overheads are high the schedules are ranked
// alike, not only the windowed ones pushed down the ranking. With k exchanges in flight the
// start-ups overlap on the network (the one alpha per batch of windowed()), the software
// overheads do not: windowed() alone predicted
// 1.6 us for 47 exchanges of 16 B on ib-fattree, where SMPI measured 70 us and this floor is
// 62 us (docs/MODELS.md, "All-to-All").
double message_overheads(const plogp::Params& p, int n, std::uint64_t m);
// The same for Bruck's ceil(log2 n) packed messages: round j sends and receives one message of
// bruck_round_blocks(n, j) m bytes.
double bruck_message_overheads(const plogp::Params& p, int n, std::uint64_t m);

// The same for the mesh's cols - 1 messages of rows m bytes and rows - 1 of cols m bytes.
double mesh2d_message_overheads(const plogp::Params& p, int n, std::uint64_t m);

// What one rank's messages cost it at least, whatever the network does: its CPU (the
// *_message_overheads above) or its link, whichever is longer. Its link carries its sends one
// after another, each plogp::Params::burst_gap_s(b, link_s_per_byte) after the previous (pLogP's
// posted gap where the sends are posted, the link's own time where each waits for its transfer:
// the flat Scatter's burst, docs/MODELS.md). The Hockney beta of the closed forms is fitted on
// large messages; the posted gap also holds what a network charges mid-sized ones: SMPI's
// bandwidth factors make 257-732-byte messages 3x slower per byte, and the mesh's packed
// messages of 384 and 512 bytes (fast-ethernet, P = 48, 64 B blocks) took 2.10 ms where the
// mesh was predicted 0.71 ms and all_at_once, chosen now, took 1.43 (docs/BENCHMARKS.md).
double message_floor(const plogp::Params& p, double link_s_per_byte, int n, std::uint64_t m);
double bruck_message_floor(const plogp::Params& p, double link_s_per_byte, int n,
                           std::uint64_t m);
double mesh2d_message_floor(const plogp::Params& p, double link_s_per_byte, int n,
                            std::uint64_t m);

struct WindowChoice {
  int window = 1;
  double predicted_s = 0.0;
};
// The k in [1, n - 1] with the least max(windowed(), floor_s) time; ties to the smaller k (fewer
// in flight). floor_s: message_overheads(), or 0 for section 6's model alone.
WindowChoice best_window(const Contention& c, int n, std::uint64_t m, double floor_s = 0.0);

}  // namespace collsel::models::alltoall
