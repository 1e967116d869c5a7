// The MPI libraries' default choices the report prices as the native baseline
// (tools/decisions/native_choice*.hpp): each rule checked at its bounds, on both sides, against
// the cited sources (MPICH 4.0's coll_selection.json; Open MPI 4.1.4's
// ompi/mca/coll/tuned/coll_tuned_decision_fixed.c), and the stand-ins they map to.
#include "tools/decisions/native_choice.hpp"

#include <algorithm>
#include <vector>

#include <gtest/gtest.h>

#include "selector/decide.hpp"
#include "tools/decisions/native_choice_openmpi.hpp"

namespace collsel::native {
namespace {

constexpr auto kMpich = NativeLibrary::mpich;
constexpr auto kOmpi = NativeLibrary::openmpi;

// ---- MPICH 4.0 ----------------------------------------------------------------------------

TEST(NativeChoiceMpich, FollowsMpichsDefaultSelection) {
  EXPECT_EQ(native_choice(kMpich, Collective::bcast, 7, 1 << 20).algorithm, "bcast.binomial");
  EXPECT_EQ(native_choice(kMpich, Collective::bcast, 8, 12288).algorithm, "bcast.binomial");
  const auto medium = native_choice(kMpich, Collective::bcast, 8, 12289);
  EXPECT_EQ(medium.library_algorithm, "MPIR_Bcast_intra_scatter_recursive_doubling_allgather");
  EXPECT_EQ(medium.algorithm, "bcast.scatter_doubling_allgather");
  for (const auto& ring : {native_choice(kMpich, Collective::bcast, 12, 12289),
                           native_choice(kMpich, Collective::bcast, 16, 524289)}) {
    EXPECT_EQ(ring.library_algorithm, "MPIR_Bcast_intra_scatter_ring_allgather");
    EXPECT_EQ(ring.algorithm, "bcast.scatter_allgather");
  }
  EXPECT_EQ(native_choice(kMpich, Collective::scatter, 64, 1 << 20).algorithm,
            "scatter.binomial");
  EXPECT_EQ(native_choice(kMpich, Collective::alltoall, 8, 256).algorithm, "alltoall.bruck");
  // Below 8 ranks MPICH never uses Bruck.
  EXPECT_EQ(native_choice(kMpich, Collective::alltoall, 7, 16).algorithm, "alltoall.windowed");
  const auto scattered = native_choice(kMpich, Collective::alltoall, 64, 257);
  EXPECT_EQ(scattered.algorithm, "alltoall.windowed");
  EXPECT_EQ(scattered.window, 32);
  EXPECT_EQ(native_choice(kMpich, Collective::alltoall, 64, 32769).algorithm,
            "alltoall.pairwise");
}

// ---- Open MPI 4.1.4: the fixed rules' algorithm numbers --------------------------------------

struct Rule {
  int comm_size;
  std::uint64_t bytes;
  int alg;
};

void expect_rules(Collective coll, const std::vector<Rule>& rules) {
  for (const Rule& r : rules) {
    EXPECT_EQ(openmpi::fixed_rule(coll, r.comm_size, r.bytes), r.alg)
        << collective_name(coll) << " P=" << r.comm_size << " bytes=" << r.bytes;
  }
}

// ompi_coll_tuned_bcast_intra_dec_fixed: 1 basic_linear, 2 chain, 3 pipeline, 4 split_binary_tree,
// 5 binary_tree, 6 binomial, 7 knomial, 8 scatter_allgather.
TEST(NativeChoiceOpenMpi, BcastFollowsTheFixedRulesAtTheirBounds) {
  expect_rules(Collective::bcast, {
      // communicator_size < 4
      {2, 0, 3}, {3, 31, 3}, {3, 32, 5}, {3, 255, 5}, {3, 256, 3}, {3, 1023, 7}, {3, 1024, 1},
      {3, 131071, 5}, {3, 131072, 2}, {3, 1048575, 6}, {3, 1048576, 5},
      // < 8: P = 3 and 4 on either side of the row bound at 1 KiB
      {4, 1024, 5}, {7, 63, 5}, {7, 64, 6}, {7, 8191, 6}, {7, 8192, 1}, {7, 1048575, 1},
      {7, 1048576, 2},
      // < 16
      {8, 7, 7}, {8, 8, 5}, {15, 4095, 7}, {15, 4096, 5}, {15, 32767, 6}, {15, 32768, 1},
      // < 32, < 64, < 128
      {16, 4095, 7}, {16, 4096, 6}, {31, 1048575, 6}, {31, 1048576, 8}, {32, 2047, 6},
      {63, 2048, 7}, {64, 1, 7}, {127, 1 << 30, 7},
      // < 256
      {128, 1, 6}, {128, 2, 5}, {255, 16383, 5}, {255, 16384, 1}, {255, 32768, 5},
      {255, 65535, 5}, {255, 65536, 7},
      // < 1024: the one split binary tree
      {256, 16383, 7}, {256, 16384, 4}, {1023, 32767, 4}, {1023, 32768, 7},
      // < 2048, < 4096, larger
      {1023, 524288, 7}, {1024, 524287, 7}, {1024, 524288, 8}, {2047, 262144, 7},
      {2048, 262143, 7}, {2048, 262144, 8}, {4095, 8192, 7}, {4096, 8191, 7}, {4096, 8192, 5},
      {4096, 16384, 7}, {100000, 262144, 8},
  });
}

// ompi_coll_tuned_scatter_intra_dec_fixed: 1 basic_linear, 2 binomial, 3 linear_nb.
TEST(NativeChoiceOpenMpi, ScatterFollowsTheFixedRulesAtTheirBounds) {
  expect_rules(Collective::scatter, {
      {2, 1, 3}, {2, 2, 1}, {3, 131071, 1}, {3, 131072, 3}, {3, 262143, 3}, {3, 262144, 1},
      {4, 1, 2}, {4, 2047, 2}, {4, 2048, 1}, {7, 4096, 2}, {7, 8192, 1}, {7, 32767, 1},
      {7, 32768, 3}, {7, 1048576, 1},
      {8, 16383, 2}, {15, 16384, 3}, {15, 1048575, 3}, {15, 1048576, 1},
      {16, 16384, 1}, {31, 32767, 1}, {31, 32768, 3},
      {32, 511, 2}, {32, 512, 3}, {63, 8191, 3}, {63, 8192, 2}, {63, 16383, 2}, {63, 16384, 3},
      {64, 511, 2}, {64, 512, 3}, {1 << 20, 1 << 30, 3},
  });
}

// ompi_coll_tuned_alltoall_intra_dec_fixed: 1 linear, 2 pairwise, 3 modified_bruck,
// 4 linear_sync, 5 two_proc.
TEST(NativeChoiceOpenMpi, AlltoallFollowsTheFixedRulesAtTheirBounds) {
  expect_rules(Collective::alltoall, {
      // communicator_size == 2
      {2, 1, 2}, {2, 2, 5}, {2, 3, 5}, {2, 4, 2}, {2, 4095, 5}, {2, 4096, 2},
      {2, 262143, 4}, {2, 262144, 5}, {2, 1048576, 2},
      // < 8 (3 ranks already, unlike the row above)
      {3, 2, 4}, {3, 8191, 4}, {3, 8192, 1}, {7, 65536, 1}, {7, 524287, 1}, {7, 524288, 2},
      {7, 1048576, 1},
      // < 16, < 32
      {8, 262143, 4}, {15, 262144, 1}, {16, 3, 4}, {16, 4, 3}, {31, 511, 3}, {31, 512, 4},
      {31, 524288, 4},
      // < 64, < 128, < 256, < 512
      {32, 511, 3}, {63, 512, 1}, {63, 524288, 4}, {64, 1023, 3}, {64, 1024, 1},
      {127, 4096, 1}, {127, 262144, 2}, {128, 1024, 4}, {255, 262144, 2}, {256, 1023, 3},
      {511, 8192, 1},
      // < 1024 .. larger
      {512, 511, 3}, {1023, 131071, 4}, {1023, 131072, 1}, {1024, 1023, 4}, {2047, 262144, 4},
      {2048, 1023, 3}, {4095, 131072, 1}, {4096, 2047, 3}, {4096, 2048, 4}, {4096, 65535, 1},
      {4096, 65536, 4},
  });
}

TEST(NativeChoiceOpenMpi, EveryRowEndsWithEverySizeAndRowsAscend) {
  for (Collective coll : {Collective::bcast, Collective::scatter, Collective::alltoall}) {
    const auto rows = openmpi::rows(coll);
    ASSERT_FALSE(rows.empty());
    EXPECT_EQ(rows.back().below_procs, openmpi::kEveryComm);
    for (std::size_t i = 0; i < rows.size(); ++i) {
      if (i > 0) {
        EXPECT_LT(rows[i - 1].below_procs, rows[i].below_procs);
      }
      ASSERT_FALSE(rows[i].sizes.empty());
      EXPECT_EQ(rows[i].sizes.back().below_bytes, openmpi::kEverything);
      for (std::size_t j = 1; j < rows[i].sizes.size(); ++j) {
        EXPECT_LT(rows[i].sizes[j - 1].below_bytes, rows[i].sizes[j].below_bytes);
      }
      // Only numbers the collective's do_this knows (bcast 1-9, scatter 1-3, alltoall 1-5).
      const int max_alg = coll == Collective::bcast ? 9 : coll == Collective::scatter ? 3 : 5;
      for (const auto& rule : rows[i].sizes) {
        EXPECT_GE(rule.alg, 1);
        EXPECT_LE(rule.alg, max_alg);
      }
    }
  }
}

// ---- Open MPI 4.1.4: the stand-ins ---------------------------------------------------------

TEST(NativeChoiceOpenMpi, MapsEachAlgorithmToTheSameMessagesOrNone) {
  const auto bcast = [](int p, std::uint64_t b) {
    return native_choice(kOmpi, Collective::bcast, p, b);
  };
  EXPECT_EQ(bcast(3, 1024).algorithm, "bcast.flat");      // 1 basic_linear
  EXPECT_EQ(bcast(3, 131072).algorithm, "bcast.chain");   // 2 chain, fanout 0 -> 1
  EXPECT_EQ(bcast(3, 31).algorithm, "bcast.chain");       // 3 pipeline, one segment
  EXPECT_EQ(bcast(3, 32).algorithm, "bcast.binary");      // 5 binary_tree
  EXPECT_EQ(bcast(7, 64).algorithm, "bcast.binomial");    // 6 binomial
  for (const auto& none : {bcast(256, 16384), bcast(8, 0)}) {  // 4, 7
    EXPECT_FALSE(none.algorithm) << none.library_algorithm;
    EXPECT_NE(none.note.find("no estimate"), std::string::npos) << none.note;
  }
  EXPECT_EQ(bcast(16, 1 << 20).algorithm, "bcast.scatter_doubling_allgather");  // 8
  EXPECT_NE(bcast(8, 0).library_algorithm.find("ompi_coll_base_bcast_intra_knomial"),
            std::string::npos);
  EXPECT_NE(bcast(8, 0).library_algorithm.find("algorithm 7"), std::string::npos);
  EXPECT_NE(bcast(256, 16384).library_algorithm.find("split_bintree"), std::string::npos);
  EXPECT_NE(bcast(16, 1 << 20).library_algorithm.find("scatter_allgather"), std::string::npos);

  const auto scatter = [](int p, std::uint64_t b) {
    return native_choice(kOmpi, Collective::scatter, p, b).algorithm;
  };
  EXPECT_EQ(scatter(2, 2), "scatter.flat");       // 1 basic_linear
  EXPECT_EQ(scatter(4, 1), "scatter.binomial");   // 2 binomial
  EXPECT_EQ(scatter(2, 1), "scatter.flat");       // 3 linear_nb

  const auto alltoall = [](int p, std::uint64_t b) {
    return native_choice(kOmpi, Collective::alltoall, p, b).algorithm;
  };
  EXPECT_EQ(alltoall(7, 8192), "alltoall.all_at_once");       // 1 linear
  EXPECT_EQ(alltoall(7, 524288), "alltoall.direct_exchange");  // 2 pairwise
  EXPECT_EQ(alltoall(16, 4), "alltoall.bruck");                // 3 modified_bruck
  EXPECT_EQ(alltoall(7, 8191), "alltoall.all_at_once");        // 4 linear_sync, no limit
  EXPECT_EQ(alltoall(2, 2), "alltoall.direct_exchange");       // 5 two_proc
  // No segment sizes and no windows: every rule runs with faninout 0, segsize 0.
  EXPECT_FALSE(native_choice(kOmpi, Collective::alltoall, 7, 8191).window);

  const auto self = native_choice(kOmpi, Collective::bcast, 1, 8);
  EXPECT_FALSE(self.algorithm);
  EXPECT_NE(self.note.find("coll/self"), std::string::npos);
}

// ---- which library's rules, and the estimate ------------------------------------------------

TEST(NativeRules, FromTheRunRecordsMpiField) {
  EXPECT_EQ(rules_for_run({"openmpi", "openmpi"}).library, kOmpi);
  EXPECT_EQ(rules_for_run({"mpich"}).library, kMpich);
  const NativeRules old = rules_for_run({"", ""});
  EXPECT_EQ(old.library, kMpich);
  EXPECT_NE(old.why.find("does not say"), std::string::npos) << old.why;
  const NativeRules mixed = rules_for_run({"mpich", "openmpi"});
  EXPECT_EQ(mixed.library, kMpich);
  EXPECT_NE(mixed.why.find("different"), std::string::npos) << mixed.why;
  const NativeRules smpi = rules_for_run({"smpi"});
  EXPECT_EQ(smpi.library, kMpich);
  EXPECT_NE(smpi.why.find("smpi"), std::string::npos) << smpi.why;
  EXPECT_NE(rules_title(kOmpi).find("coll_tuned_decision_fixed.c"), std::string::npos);
}

TEST(NativeRules, OpenMpiEstimateIsTheCostTableEntryOfItsStandIn) {
  Diagnostics diagnostics;
  std::vector<std::string> notes;
  const auto estimator = load_estimator(std::nullopt, {"<embedded default model>"},
                                        rules_for_run({"openmpi"}), diagnostics, notes);
  ASSERT_TRUE(estimator);
  EXPECT_EQ(estimator->rules().library, kOmpi);
  const auto embedded = tools::load_embedded(diagnostics);
  ASSERT_TRUE(embedded);
  // P = 8, 4 KiB blocks: linear_sync with every exchange posted, priced as all_at_once.
  const Decision d =
      decide({Collective::alltoall, 8, 4096, 0}, ModelSet{nullptr, &*embedded}, Policy{});
  const auto entry = std::find_if(d.table.begin(), d.table.end(), [](const CostEntry& e) {
    return e.name == "alltoall.all_at_once";
  });
  ASSERT_NE(entry, d.table.end());
  const auto estimate = estimator->estimate(Collective::alltoall, 8, 4096);
  ASSERT_TRUE(estimate.predicted_s);
  EXPECT_DOUBLE_EQ(*estimate.predicted_s, entry->predicted_s);
  EXPECT_EQ(estimate.algorithm, "alltoall.all_at_once");
  EXPECT_NE(estimate.note.find("Open MPI runs ompi_coll_base_alltoall_intra_linear_sync"),
            std::string::npos)
      << estimate.note;

  // P = 64: every Bcast size goes down the k-nomial tree, which has no stand-in.
  const auto none = estimator->estimate(Collective::bcast, 64, 1 << 20);
  EXPECT_FALSE(none.predicted_s);
  EXPECT_NE(none.note.find("k-nomial"), std::string::npos) << none.note;
}

}  // namespace
}  // namespace collsel::native
