// Communication trees as pure functions of integers (STYLE.md 8.2 #9). Ranks here are virtual:
// vrank = (rank - root + P) mod P, so the root is always vrank 0. No MPI.
#pragma once

#include <vector>

namespace collsel::schedule {

enum class TreeShape { flat, chain, binary, binomial, level_binary };

struct TreeNode {
  int parent = -1;            // vrank, -1 for the root
  std::vector<int> children;  // vranks, in the order the node sends to them
};

// The node `vrank` of the tree of `shape` over `size` ranks.
//   flat:     0 -> 1..P-1
//   chain:    v -> v+1
//   binary:   heap order, v -> 2v+1, 2v+2
//   binomial: v -> v + 2^j for every 2^j below v's lowest set bit (all 2^j < P for the root),
//             largest subtree first, as in MPICH's binomial broadcast
//   level_binary: Open MPI's binary tree (ompi_coll_base_topo_build_tree with fanout 2), level
//             by level: v of level l = floor(log2(v + 1)) -> v + 2^l, v + 2^(l+1). Vrank 1's
//             subtree holds the odd vranks, vrank 2's the even ones, so v and v + 1 (v odd) are
//             twins at one depth in opposite subtrees (bcast.split_binary swaps halves there)
TreeNode tree_node(TreeShape shape, int vrank, int size);

// Depth of the tree (edges from the root to its deepest leaf); used by the tests to hold the
// models to the trees actually built.
int tree_depth(TreeShape shape, int size);

// Number of vranks in the subtree rooted at `vrank` of the binomial tree (the vranks
// [vrank, vrank + size) it covers), used by the binomial scatter.
int binomial_subtree_size(int vrank, int size);

inline int to_vrank(int rank, int root, int size) { return (rank - root + size) % size; }
inline int to_rank(int vrank, int root, int size) { return (vrank + root) % size; }

}  // namespace collsel::schedule
