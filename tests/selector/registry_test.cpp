// The registry is the single source of truth (STYLE.md 8.3 #12): names unique and well formed,
// every algorithm has a model, an applicability predicate and a run function, and every name is
// documented in docs/MODELS.md.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "selector/registry.hpp"

namespace collsel {
namespace {

template <class Call>
void check_registry(Collective c, std::span<const Algorithm<Call>> registry) {
  const std::regex well_formed(std::string(collective_name(c)) + "\\.[a-z][a-z0-9_]*");
  std::set<std::string_view> names;
  ASSERT_FALSE(registry.empty());
  ASSERT_EQ(catalog(c).size(), registry.size());
  for (std::size_t i = 0; i < registry.size(); ++i) {
    const auto& a = registry[i];
    EXPECT_TRUE(std::regex_match(std::string(a.view.name), well_formed)) << a.view.name;
    EXPECT_TRUE(names.insert(a.view.name).second) << "duplicate " << a.view.name;
    EXPECT_NE(a.view.model, nullptr) << a.view.name;
    EXPECT_NE(a.view.applicable, nullptr) << a.view.name;
    EXPECT_NE(a.run, nullptr) << a.view.name;
    EXPECT_FALSE(a.view.summary.empty()) << a.view.name;
    // Open MPI's split binary tree and the preposted chain are always cut; the first keeps Open
    // MPI's name, the second says what sets it apart from bcast.chain_segmented.
    EXPECT_EQ(a.view.segmented, a.view.name.ends_with("_segmented") ||
                                    a.view.name == "bcast.split_binary" ||
                                    a.view.name == "bcast.chain_preposted")
        << a.view.name;
    EXPECT_EQ(catalog(c)[i].name, a.view.name);
    EXPECT_EQ(find_algorithm(c, a.view.name), &catalog(c)[i]);
  }
  EXPECT_EQ(find_algorithm(c, "native"), nullptr);
}

TEST(Registry, BcastIsConsistent) { check_registry(Collective::bcast, bcast_registry()); }
TEST(Registry, ScatterIsConsistent) { check_registry(Collective::scatter, scatter_registry()); }

// Seed 001: ten Broadcast techniques (Table 1) and three Scatter techniques (Table 2), and
// issue 14's scatter + allgather and split binary Broadcasts (what SMPI's MPICH and Open MPI
// selectors had that collsel lacked), preposted chain (SMPI's NTSL) and scatter + recursive
// doubling (SMPI's scatter_rdb_allgather, MPICH's medium-message Bcast).
TEST(Registry, CoversTheTablesOfSeed001) {
  EXPECT_EQ(bcast_registry().size(), 14u);
  EXPECT_EQ(bcast_registry()[10].view.name, "bcast.scatter_allgather");
  EXPECT_EQ(bcast_registry()[11].view.name, "bcast.split_binary");
  EXPECT_EQ(bcast_registry()[12].view.name, "bcast.chain_preposted");
  EXPECT_EQ(bcast_registry().back().view.name, "bcast.scatter_doubling_allgather");
  EXPECT_EQ(scatter_registry().size(), 3u);
}

// Issue 5: direct exchange (seed 000 Algorithm 1), every message at once, pairwise, windowed,
// Bruck; issue 14: the 2-D mesh, which SMPI's own showed collsel lacked for small blocks.
TEST(Registry, CoversTheAlltoallSchedules) {
  for (const char* name : {"alltoall.direct_exchange", "alltoall.all_at_once", "alltoall.pairwise",
                           "alltoall.windowed", "alltoall.bruck", "alltoall.mesh2d"}) {
    EXPECT_NE(find_algorithm(Collective::alltoall, name), nullptr) << name;
  }
}

TEST(Registry, EveryNameIsDocumentedInModelsMd) {
  std::ifstream in(COLLSEL_SOURCE_DIR "/docs/MODELS.md");
  ASSERT_TRUE(in) << "docs/MODELS.md is missing";
  std::stringstream text;
  text << in.rdbuf();
  for (Collective c : kCollectives) {
    for (const auto& a : catalog(c)) {
      EXPECT_NE(text.str().find("`" + std::string(a.name) + "`"), std::string::npos)
          << a.name << " is not documented in docs/MODELS.md";
    }
  }
}

TEST(Registry, EveryModelGivesAFinitePositivePredictionOnTheDefaultShape) {
  models::ModelFile p;
  p.plogp.latency_s = 5e-6;
  p.plogp.table = {{0, 1e-6, 1e-7, 1e-7}, {1 << 20, 1e-2, 1e-3, 1e-3}};
  for (Collective c : kCollectives) {
    for (const auto& a : catalog(c)) {
      const Prediction pr = a.model(p, {c, 6, 100000, 1}, Policy{});
      EXPECT_GT(pr.seconds, 0.0) << a.name;
      EXPECT_LT(pr.seconds, 1.0) << a.name;
      if (a.segmented) {
        EXPECT_GT(pr.params.segment_bytes, 0u) << a.name;
      }
    }
  }
}

TEST(Registry, ApplicabilityRejectsMessagesBeyondIntCounts) {
  const CallShape huge{Collective::bcast, 4, (1ull << 31), 0};
  for (const auto& a : catalog(Collective::bcast)) {
    EXPECT_TRUE(a.applicable(huge).has_value()) << a.name;
  }
  const CallShape big_scatter{Collective::scatter, 9, (1ull << 28), 0};  // 8 blocks > 2^31
  EXPECT_FALSE(find_algorithm(Collective::scatter, "scatter.flat")->applicable(big_scatter));
  EXPECT_TRUE(find_algorithm(Collective::scatter, "scatter.chain")->applicable(big_scatter));
  EXPECT_TRUE(find_algorithm(Collective::scatter, "scatter.binomial")->applicable(big_scatter));
}

}  // namespace
}  // namespace collsel
