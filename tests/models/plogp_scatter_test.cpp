#include <gtest/gtest.h>

#include <cstdint>

#include "linear_params.hpp"
#include "models/plogp/scatter.hpp"

// Hand-computed values on linear_params(): L = 5e-6 and g(m) = 1e-6 + m x 1e-9, so with blocks of
// m = 1000 bytes g(j m) = (1 + j) e-6: g(1000) = 2e-6, g(2000) = 3e-6, g(4000) = 5e-6.
namespace collsel::models::plogp {
namespace {

using testing::linear_params;
using testing::same_seconds;

class PlogpScatter : public ::testing::Test {
 protected:
  const Params p = linear_params();
};

TEST_F(PlogpScatter, Flat) {
  EXPECT_TRUE(same_seconds(scatter_flat(p, 3, 1000), 9e-6));   // 2 x 2e-6 + 5e-6
  EXPECT_TRUE(same_seconds(scatter_flat(p, 4, 1000), 11e-6));  // 3 x 2e-6 + 5e-6
  EXPECT_TRUE(same_seconds(scatter_flat(p, 7, 1000), 17e-6));  // 6 x 2e-6 + 5e-6
}

TEST_F(PlogpScatter, Chain) {
  // sum_{j=1}^{P-1} g(j m) + (P - 1) L
  EXPECT_TRUE(same_seconds(scatter_chain(p, 2, 1000), 7e-6));   // 2e-6 + 5e-6
  EXPECT_TRUE(same_seconds(scatter_chain(p, 3, 1000), 15e-6));  // (2 + 3) e-6 + 2 x 5e-6
  EXPECT_TRUE(same_seconds(scatter_chain(p, 4, 1000), 24e-6));  // (2 + 3 + 4) e-6 + 15e-6
  EXPECT_TRUE(same_seconds(scatter_chain(p, 5, 1000), 34e-6));  // (2 + 3 + 4 + 5) e-6 + 20e-6
  // (2 + 3 + 4 + 5 + 6 + 7) e-6 + 6 x 5e-6
  EXPECT_TRUE(same_seconds(scatter_chain(p, 7, 1000), 57e-6));
}

TEST_F(PlogpScatter, Binomial) {
  // sum_{j=0}^{ceil(log2 P)-1} g(2^j m) + ceil(log2 P) L
  EXPECT_TRUE(same_seconds(scatter_binomial(p, 2, 1000), 7e-6));   // g(1000) + 5e-6
  EXPECT_TRUE(same_seconds(scatter_binomial(p, 3, 1000), 15e-6));  // (2 + 3) e-6 + 2 x 5e-6
  EXPECT_TRUE(same_seconds(scatter_binomial(p, 4, 1000), 15e-6));  // (2 + 3) e-6 + 2 x 5e-6
  EXPECT_TRUE(same_seconds(scatter_binomial(p, 5, 1000), 25e-6));  // (2 + 3 + 5) e-6 + 15e-6
  EXPECT_TRUE(same_seconds(scatter_binomial(p, 7, 1000), 25e-6));  // (2 + 3 + 5) e-6 + 15e-6
  EXPECT_TRUE(same_seconds(scatter_binomial(p, 8, 1000), 25e-6));  // (2 + 3 + 5) e-6 + 15e-6
  // P = 9: ceil(log2 9) = 4 rounds, g(8000) = 9e-6: (2 + 3 + 5 + 9) e-6 + 20e-6
  EXPECT_TRUE(same_seconds(scatter_binomial(p, 9, 1000), 39e-6));
}

// Every Scatter message finds its receive posted: the posted pair (docs/MODELS.md, "Two gaps");
// two_gap_params(): g_p(m) = 0.5e-6 + 0.8e-9 m, L_p = 5.5e-6.
TEST(PlogpScatterTwoGaps, EveryMessageCostsThePostedPair) {
  const Params q = testing::two_gap_params();
  EXPECT_TRUE(same_seconds(scatter_flat(q, 4, 100), 7.24e-6));  // 3 x 0.58e-6 + 5.5e-6
  // g_p(100) + g_p(200) + g_p(300) + 3 L_p = 0.58e-6 + 0.66e-6 + 0.74e-6 + 16.5e-6
  EXPECT_TRUE(same_seconds(scatter_chain(q, 4, 100), 18.48e-6));
  // P = 5: 3 rounds of 1, 2, 4 blocks: 0.58e-6 + 0.66e-6 + 0.82e-6 + 16.5e-6
  EXPECT_TRUE(same_seconds(scatter_binomial(q, 5, 100), 18.56e-6));
}

TEST_F(PlogpScatter, NothingToSendCostsNothing) {
  using Model = double (*)(const Params&, int, std::uint64_t);
  for (Model f : {scatter_flat, scatter_chain, scatter_binomial}) {
    EXPECT_EQ(f(p, 1, 1000), 0.0);
    EXPECT_EQ(f(p, 0, 1000), 0.0);
    EXPECT_EQ(f(p, -2, 1000), 0.0);
    EXPECT_EQ(f(p, 5, 0), 0.0);
  }
}

TEST_F(PlogpScatter, HugeBlocksSaturateInsteadOfWrapping) {
  // m = 2^62, P = 5: the blocks j m are 2^62, 2^63, 3 x 2^62 and 4 x 2^62 = 2^64, which saturates
  // to 2^64 - 1 (about 2^64 as a double) instead of wrapping to 0. g is extrapolated with slope
  // 1e-9: 4 x 1e-6 + (1 + 2 + 3 + 4) x 2^62 x 1e-9 + 4 x 5e-6.
  const std::uint64_t m = std::uint64_t{1} << 62;
  EXPECT_TRUE(same_seconds(scatter_chain(p, 5, m), 24e-6 + 10.0 * 0x1p62 * 1e-9));
}

}  // namespace
}  // namespace collsel::models::plogp
