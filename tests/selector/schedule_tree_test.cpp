// Trees checked exhaustively for P = 1..64 (STYLE.md 8.2 #9): one parent per non-root, parent
// and child lists agree, every vrank reachable, and the depth the models assume.
#include <gtest/gtest.h>

#include <queue>
#include <vector>

#include "models/plogp/bcast.hpp"
#include "selector/schedule/tree.hpp"

namespace collsel::schedule {
namespace {

constexpr TreeShape kShapes[] = {TreeShape::flat, TreeShape::chain, TreeShape::binary,
                                 TreeShape::binomial, TreeShape::level_binary};

class TreeTest : public ::testing::TestWithParam<TreeShape> {};

TEST_P(TreeTest, EveryNonRootHasOneParentThatListsIt) {
  for (int size = 1; size <= 64; ++size) {
    std::vector<int> parent_count(static_cast<std::size_t>(size), 0);
    for (int v = 0; v < size; ++v) {
      const TreeNode node = tree_node(GetParam(), v, size);
      for (int c : node.children) {
        ASSERT_GT(c, 0) << "size " << size;
        ASSERT_LT(c, size) << "size " << size;
        ++parent_count[static_cast<std::size_t>(c)];
        EXPECT_EQ(tree_node(GetParam(), c, size).parent, v) << "size " << size << " child " << c;
      }
      if (v == 0) {
        EXPECT_EQ(node.parent, -1);
      } else {
        EXPECT_GE(node.parent, 0);
      }
    }
    EXPECT_EQ(parent_count[0], 0);
    for (int v = 1; v < size; ++v) {
      EXPECT_EQ(parent_count[static_cast<std::size_t>(v)], 1) << "size " << size << " v " << v;
    }
  }
}

TEST_P(TreeTest, EveryRankIsReachedFromTheRoot) {
  for (int size = 1; size <= 64; ++size) {
    std::vector<bool> seen(static_cast<std::size_t>(size), false);
    std::queue<int> todo;
    todo.push(0);
    int reached = 0;
    while (!todo.empty()) {
      const int v = todo.front();
      todo.pop();
      ASSERT_FALSE(seen[static_cast<std::size_t>(v)]) << "cycle at " << v;
      seen[static_cast<std::size_t>(v)] = true;
      ++reached;
      for (int c : tree_node(GetParam(), v, size).children) todo.push(c);
    }
    EXPECT_EQ(reached, size);
  }
}

INSTANTIATE_TEST_SUITE_P(AllShapes, TreeTest, ::testing::ValuesIn(kShapes));

// The depths the models of seed 001 Table 1 charge (with collsel's readings, docs/MODELS.md).
TEST(TreeDepth, MatchesTheModelsAssumptions) {
  for (int size = 2; size <= 64; ++size) {
    const auto p = static_cast<std::uint64_t>(size);
    EXPECT_EQ(tree_depth(TreeShape::flat, size), 1);
    EXPECT_EQ(tree_depth(TreeShape::chain, size), size - 1);
    EXPECT_EQ(tree_depth(TreeShape::binary, size), models::plogp::floor_log2(p)) << size;
    // Depth in edges; the binomial models' ceil(log2 P) L counts rounds (the root's fan-out,
    // checked below), not edges.
    EXPECT_EQ(tree_depth(TreeShape::binomial, size), models::plogp::floor_log2(p)) << size;
    EXPECT_EQ(tree_depth(TreeShape::level_binary, size), models::plogp::floor_log2(p)) << size;
  }
  EXPECT_EQ(tree_depth(TreeShape::binomial, 1), 0);
}

// The binomial root sends ceil(log2 P) messages, one per round: the rounds the binomial models
// charge L for.
TEST(TreeDepth, BinomialRootFanOutIsCeilLog2) {
  for (int size = 2; size <= 64; ++size) {
    EXPECT_EQ(static_cast<int>(tree_node(TreeShape::binomial, 0, size).children.size()),
              models::plogp::ceil_log2(static_cast<std::uint64_t>(size)))
        << size;
  }
}

TEST(BinomialSubtree, CoversExactlyItsDescendants) {
  for (int size = 1; size <= 64; ++size) {
    for (int v = 0; v < size; ++v) {
      int descendants = 1;
      for (int c : tree_node(TreeShape::binomial, v, size).children) {
        descendants += binomial_subtree_size(c, size);
        EXPECT_GE(c, v);
        EXPECT_LT(c, v + binomial_subtree_size(v, size));
      }
      EXPECT_EQ(binomial_subtree_size(v, size), descendants) << "size " << size << " v " << v;
    }
  }
}

TEST(Vranks, RoundTrip) {
  for (int size = 1; size <= 9; ++size) {
    for (int root = 0; root < size; ++root) {
      EXPECT_EQ(to_vrank(root, root, size), 0);
      for (int r = 0; r < size; ++r) EXPECT_EQ(to_rank(to_vrank(r, root, size), root, size), r);
    }
  }
}

// Open MPI's binary tree (ompi_coll_base_topo_build_tree, fanout 2) at 16 ranks, by hand:
// level 0: 0; level 1: 1, 2; level 2: 3..6; level 3: 7..14; level 4: 15.
TEST(LevelBinary, IsOpenMpisLevelOrderTree) {
  const auto children = [](int v) { return tree_node(TreeShape::level_binary, v, 16).children; };
  EXPECT_EQ(children(0), (std::vector<int>{1, 2}));
  EXPECT_EQ(children(1), (std::vector<int>{3, 5}));
  EXPECT_EQ(children(2), (std::vector<int>{4, 6}));
  EXPECT_EQ(children(3), (std::vector<int>{7, 11}));
  EXPECT_EQ(children(6), (std::vector<int>{10, 14}));
  EXPECT_EQ(children(7), (std::vector<int>{15}));
  EXPECT_TRUE(children(8).empty());
  EXPECT_EQ(tree_node(TreeShape::level_binary, 15, 16).parent, 7);
}

// What bcast.split_binary relies on: vrank 1's subtree is the odd vranks, vrank 2's the even
// ones, and the twins v, v + 1 (v odd) sit at one depth.
TEST(LevelBinary, SubtreesAreTheOddAndTheEvenVranksAndTwinsShareADepth) {
  for (int size = 2; size <= 64; ++size) {
    std::vector<int> depth(static_cast<std::size_t>(size), 0);
    for (int v = 1; v < size; ++v) {
      int top = v;
      while (tree_node(TreeShape::level_binary, top, size).parent != 0) {
        top = tree_node(TreeShape::level_binary, top, size).parent;
        ++depth[static_cast<std::size_t>(v)];
      }
      EXPECT_EQ(top, v % 2 == 1 ? 1 : 2) << "size " << size << " v " << v;
    }
    for (int v = 1; v + 1 < size; v += 2) {
      EXPECT_EQ(depth[static_cast<std::size_t>(v)], depth[static_cast<std::size_t>(v + 1)])
          << "size " << size << " v " << v;
    }
  }
}

}  // namespace
}  // namespace collsel::schedule
