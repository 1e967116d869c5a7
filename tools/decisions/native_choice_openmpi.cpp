#include "tools/decisions/native_choice_openmpi.hpp"

#include <string>

#include <fmt/format.h>

namespace collsel::native::openmpi {
namespace {

// The thresholds of Open MPI 4.1.4's ompi/mca/coll/tuned/coll_tuned_decision_fixed.c, as data:
// each row is one `communicator_size < N` branch, each rule one `total_dsize < B` -> `alg = A`.
// Checked rule by rule by tests/tools/decisions/native_choice_test.cpp.

// ompi_coll_tuned_bcast_intra_dec_fixed
constexpr SizeRule kBcast4[] = {{32, 3},     {256, 5},    {512, 3},     {1024, 7},
                                {32768, 1},  {131072, 5}, {262144, 2},  {524288, 1},
                                {1048576, 6}, {kEverything, 5}};
constexpr SizeRule kBcast8[] = {{64, 5},   {128, 6},     {2048, 5},
                                {8192, 6}, {1048576, 1}, {kEverything, 2}};
constexpr SizeRule kBcast16[] = {{8, 7},     {64, 5},    {4096, 7},
                                 {16384, 5}, {32768, 6}, {kEverything, 1}};
constexpr SizeRule kBcast32[] = {{4096, 7}, {1048576, 6}, {kEverything, 8}};
constexpr SizeRule kBcast64[] = {{2048, 6}, {kEverything, 7}};
constexpr SizeRule kBcast128[] = {{kEverything, 7}};
constexpr SizeRule kBcast256[] = {{2, 6}, {16384, 5}, {32768, 1}, {65536, 5}, {kEverything, 7}};
constexpr SizeRule kBcast1024[] = {{16384, 7}, {32768, 4}, {kEverything, 7}};
constexpr SizeRule kBcast2048[] = {{524288, 7}, {kEverything, 8}};
constexpr SizeRule kBcast4096[] = {{262144, 7}, {kEverything, 8}};
constexpr SizeRule kBcastMore[] = {{8192, 7}, {16384, 5}, {262144, 7}, {kEverything, 8}};
constexpr CommRow kOpenMpiBcast[] = {
    {4, kBcast4},       {8, kBcast8},       {16, kBcast16},     {32, kBcast32},
    {64, kBcast64},     {128, kBcast128},   {256, kBcast256},   {1024, kBcast1024},
    {2048, kBcast2048}, {4096, kBcast4096}, {kEveryComm, kBcastMore}};

// ompi_coll_tuned_scatter_intra_dec_fixed
constexpr SizeRule kScatter4[] = {{2, 3}, {131072, 1}, {262144, 3}, {kEverything, 1}};
constexpr SizeRule kScatter8[] = {{2048, 2},  {4096, 1},    {8192, 2},
                                  {32768, 1}, {1048576, 3}, {kEverything, 1}};
constexpr SizeRule kScatter16[] = {{16384, 2}, {1048576, 3}, {kEverything, 1}};
constexpr SizeRule kScatter32[] = {{16384, 2}, {32768, 1}, {kEverything, 3}};
constexpr SizeRule kScatter64[] = {{512, 2}, {8192, 3}, {16384, 2}, {kEverything, 3}};
constexpr SizeRule kScatterMore[] = {{512, 2}, {kEverything, 3}};
constexpr CommRow kOpenMpiScatter[] = {{4, kScatter4},   {8, kScatter8},   {16, kScatter16},
                                       {32, kScatter32}, {64, kScatter64}, {kEveryComm, kScatterMore}};

// ompi_coll_tuned_alltoall_intra_dec_fixed. Its first branch is `communicator_size == 2`: the row
// below 3 ranks, since a 1-rank communicator never reaches coll/tuned (coll/self serves it).
constexpr SizeRule kAlltoall2[] = {{2, 2},      {4, 5},      {16, 2},      {64, 5},
                                   {256, 2},    {4096, 5},   {32768, 2},   {262144, 4},
                                   {1048576, 5}, {kEverything, 2}};
constexpr SizeRule kAlltoall8[] = {{8192, 4},   {16384, 1},   {65536, 4},
                                   {524288, 1}, {1048576, 2}, {kEverything, 1}};
constexpr SizeRule kAlltoall16[] = {{262144, 4}, {kEverything, 1}};
constexpr SizeRule kAlltoall32[] = {{4, 4},      {512, 3},    {8192, 4},    {32768, 1},
                                    {262144, 4}, {524288, 1}, {kEverything, 4}};
constexpr SizeRule kAlltoall64[] = {{512, 3}, {524288, 1}, {kEverything, 4}};
constexpr SizeRule kAlltoall128[] = {{1024, 3}, {2048, 1}, {4096, 4}, {262144, 1}, {kEverything, 2}};
constexpr SizeRule kAlltoall256[] = {{1024, 3}, {2048, 4}, {262144, 1}, {kEverything, 2}};
constexpr SizeRule kAlltoall512[] = {{1024, 3}, {8192, 4}, {32768, 1}, {kEverything, 2}};
constexpr SizeRule kAlltoall1024[] = {{512, 3},    {8192, 4},   {16384, 1},
                                      {131072, 4}, {262144, 1}, {kEverything, 2}};
constexpr SizeRule kAlltoall2048[] = {{512, 3},   {1024, 4},   {2048, 1},
                                      {16384, 4}, {262144, 1}, {kEverything, 4}};
constexpr SizeRule kAlltoall4096[] = {{1024, 3}, {4096, 4}, {8192, 1}, {131072, 4}, {kEverything, 1}};
constexpr SizeRule kAlltoallMore[] = {{2048, 3},  {8192, 4},  {16384, 1},
                                      {32768, 4}, {65536, 1}, {kEverything, 4}};
constexpr CommRow kOpenMpiAlltoall[] = {
    {3, kAlltoall2},       {8, kAlltoall8},       {16, kAlltoall16},     {32, kAlltoall32},
    {64, kAlltoall64},     {128, kAlltoall128},   {256, kAlltoall256},   {512, kAlltoall512},
    {1024, kAlltoall1024}, {2048, kAlltoall2048}, {4096, kAlltoall4096}, {kEveryComm, kAlltoallMore}};

// What one of coll/tuned's algorithm numbers runs and its stand-in, indexed by the number (0 is
// "ignore": unused by the fixed rules).
struct Mapping {
  const char* function;   // the coll/base routine do_this calls
  const char* algorithm;  // the registered stand-in; nullptr: none
  const char* note;
};

// coll_tuned_bcast_decision.c (bcast_algorithms, ompi_coll_tuned_bcast_intra_do_this).
constexpr Mapping kBcastAlgorithms[] = {
    {"ompi_coll_tuned_bcast_intra_dec_fixed", nullptr, "not chosen by the fixed rules"},
    {"ompi_coll_base_bcast_intra_basic_linear", "bcast.flat",
     "the root sends the whole message to every rank, as bcast.flat"},
    {"ompi_coll_base_bcast_intra_chain", "bcast.chain",
     "fanout 0 becomes one chain and segment size 0 one segment: the whole message per hop, as "
     "bcast.chain"},
    {"ompi_coll_base_bcast_intra_pipeline", "bcast.chain",
     "segment size 0: the whole message per hop down one chain, as bcast.chain"},
    {"ompi_coll_base_bcast_intra_split_bintree", nullptr,
     "Open MPI sends each half of the message down one subtree of a binary tree, then the "
     "subtrees swap halves (bcast.split_binary), with the fixed rules' segment size 0, whose "
     "cut collsel does not reproduce: no estimate"},
    {"ompi_coll_base_bcast_intra_bintree", "bcast.binary", "the same binary tree, unsegmented"},
    {"ompi_coll_base_bcast_intra_binomial", "bcast.binomial",
     "the same binomial tree, unsegmented"},
    {"ompi_coll_base_bcast_intra_knomial", nullptr,
     "Open MPI broadcasts this shape down a k-nomial tree of radix 4, which collsel does not "
     "implement: no estimate"},
    {"ompi_coll_base_bcast_intra_scatter_allgather", "bcast.scatter_doubling_allgather",
     "the same scatter and recursive doubling, less the chunks Open MPI sends the root (collsel "
     "doubles Bruck's way where the size is not a power of two)"},
    {"ompi_coll_base_bcast_intra_scatter_allgather_ring", "bcast.scatter_allgather",
     "the same scatter and ring, less the ring's closing hop into the root"},
};

// coll_tuned_scatter_decision.c (scatter_algorithms, ompi_coll_tuned_scatter_intra_do_this).
constexpr Mapping kScatterAlgorithms[] = {
    {"ompi_coll_tuned_scatter_intra_dec_fixed", nullptr, "not chosen by the fixed rules"},
    {"ompi_coll_base_scatter_intra_basic_linear", "scatter.flat",
     "the root sends every rank its block; Open MPI one blocking send after another, "
     "scatter.flat all posted at once"},
    {"ompi_coll_base_scatter_intra_binomial", "scatter.binomial", "the same binomial tree"},
    {"ompi_coll_base_scatter_intra_linear_nb", "scatter.flat",
     "the root posts a send to every rank, as scatter.flat"},
};

// coll_tuned_alltoall_decision.c (alltoall_algorithms, ompi_coll_tuned_alltoall_intra_do_this).
constexpr Mapping kAlltoallAlgorithms[] = {
    {"ompi_coll_tuned_alltoall_intra_dec_fixed", nullptr, "not chosen by the fixed rules"},
    {"ompi_coll_base_alltoall_intra_basic_linear", "alltoall.all_at_once",
     "every exchange posted at once, then one wait, as alltoall.all_at_once"},
    {"ompi_coll_base_alltoall_intra_pairwise", "alltoall.direct_exchange",
     "round k sends to rank+k and receives from rank-k, as alltoall.direct_exchange"},
    {"ompi_coll_base_alltoall_intra_bruck", "alltoall.bruck",
     "the same Bruck exchange (Open MPI sends derived datatypes, collsel packs)"},
    {"ompi_coll_base_alltoall_intra_linear_sync", "alltoall.all_at_once",
     "with max_requests 0 (the default) every exchange is posted at once, as "
     "alltoall.all_at_once"},
    {"ompi_coll_base_alltoall_intra_two_procs", "alltoall.direct_exchange",
     "one exchange with the other rank, as alltoall.direct_exchange's one round"},
};

// One collective's fixed rules and what their numbers run.
struct Table {
  std::span<const CommRow> rows;
  std::span<const Mapping> algorithms;
};

Table table(Collective coll) {
  switch (coll) {
    case Collective::bcast: return {kOpenMpiBcast, kBcastAlgorithms};
    case Collective::scatter: return {kOpenMpiScatter, kScatterAlgorithms};
    case Collective::alltoall: break;
  }
  return {kOpenMpiAlltoall, kAlltoallAlgorithms};
}

}  // namespace

std::span<const CommRow> rows(Collective coll) { return table(coll).rows; }

int fixed_rule(Collective coll, int comm_size, std::uint64_t bytes) {
  for (const CommRow& row : rows(coll)) {
    if (comm_size >= row.below_procs) continue;
    for (const SizeRule& rule : row.sizes) {
      if (bytes < rule.below_bytes) return rule.alg;
    }
    return row.sizes.back().alg;  // bytes == kEverything
  }
  return 0;  // unreachable: the last row takes every size
}

NativeChoice choice(Collective coll, int comm_size, std::uint64_t bytes) {
  if (comm_size < 2) {
    return {"mca_coll_self", std::nullopt, std::nullopt,
            "Open MPI serves a 1-rank communicator with coll/self, a local copy: no estimate"};
  }
  const int alg = fixed_rule(coll, comm_size, bytes);
  const Mapping& m = table(coll).algorithms[static_cast<std::size_t>(alg)];
  return {fmt::format("{} (coll/tuned {} algorithm {})", m.function, collective_name(coll), alg),
          m.algorithm != nullptr ? std::optional<std::string>(m.algorithm) : std::nullopt,
          std::nullopt, m.note};
}

}  // namespace collsel::native::openmpi
