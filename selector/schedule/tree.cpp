#include "selector/schedule/tree.hpp"

#include <algorithm>

namespace collsel::schedule {
namespace {

// Lowest set bit of v (v > 0); for the root, the first power of two >= size, so that every
// 2^j < size is below it.
int binomial_span(int vrank, int size) {
  if (vrank == 0) {
    int span = 1;
    while (span < size) span <<= 1;
    return span;
  }
  return vrank & -vrank;
}

TreeNode binomial_node(int vrank, int size) {
  TreeNode node;
  const int span = binomial_span(vrank, size);
  if (vrank != 0) node.parent = vrank - span;
  for (int mask = span >> 1; mask > 0; mask >>= 1) {
    if (vrank + mask < size) node.children.push_back(vrank + mask);
  }
  return node;
}

// Open MPI's level order: level l holds vranks [2^l - 1, 2^(l+1) - 2] and v's children are
// v + 2^l and v + 2^(l+1); so v's parent at level l - 1 is v - 2^(l-1) when that lies on level
// l - 1, v - 2^l otherwise.
TreeNode level_binary_node(int vrank, int size) {
  TreeNode node;
  int level = 0;
  while ((2LL << level) - 1 <= vrank) ++level;  // 2^(level+1) - 1 > vrank
  const int delta = 1 << level;
  if (vrank > 0) {
    const int half = delta >> 1;
    const int last_of_parent_level = delta - 2;
    node.parent = vrank - half <= last_of_parent_level ? vrank - half : vrank - delta;
  }
  for (long long c : {0LL + vrank + delta, 0LL + vrank + 2LL * delta}) {
    if (c < size) node.children.push_back(static_cast<int>(c));
  }
  return node;
}

}  // namespace

TreeNode tree_node(TreeShape shape, int vrank, int size) {
  TreeNode node;
  switch (shape) {
    case TreeShape::flat:
      if (vrank == 0) {
        for (int v = 1; v < size; ++v) node.children.push_back(v);
      } else {
        node.parent = 0;
      }
      return node;
    case TreeShape::chain:
      if (vrank > 0) node.parent = vrank - 1;
      if (vrank + 1 < size) node.children.push_back(vrank + 1);
      return node;
    case TreeShape::binary:
      if (vrank > 0) node.parent = (vrank - 1) / 2;
      for (int c : {2 * vrank + 1, 2 * vrank + 2}) {
        if (c < size) node.children.push_back(c);
      }
      return node;
    case TreeShape::binomial:
      return binomial_node(vrank, size);
    case TreeShape::level_binary:
      return level_binary_node(vrank, size);
  }
  return node;
}

int tree_depth(TreeShape shape, int size) {
  int depth = 0;
  for (int v = 0; v < size; ++v) {
    int d = 0;
    for (int u = v; u != 0; u = tree_node(shape, u, size).parent) ++d;
    depth = std::max(depth, d);
  }
  return depth;
}

int binomial_subtree_size(int vrank, int size) {
  return std::min(binomial_span(vrank, size), size - vrank);
}

}  // namespace collsel::schedule
