#include "tools/decisions/decision_grid.hpp"

namespace collsel::tools {

GridSpec default_grid() {
  GridSpec g;
  g.comm_sizes = {2, 3, 4, 5, 8, 12, 16, 24, 32, 48, 64, 96, 128, 256};
  g.bytes.push_back(0);
  for (std::uint64_t b = 1; b <= 4u << 20; b *= 4) g.bytes.push_back(b);
  return g;
}

std::vector<GridCell> decision_grid(Collective coll, const GridSpec& grid, const ModelSet& models,
                                    const Policy& policy) {
  std::vector<GridCell> cells;
  cells.reserve(grid.comm_sizes.size() * grid.bytes.size());
  for (const int p : grid.comm_sizes) {
    for (const std::uint64_t b : grid.bytes) {
      const Decision d = decide(CallShape{coll, p, b, 0}, models, policy);
      cells.push_back({p, b, std::string(d.algorithm()), d.params(), d.predicted_s(), d.rung});
    }
  }
  return cells;
}

std::vector<CollectiveGrid> decision_grids(std::span<const Collective> colls, const GridSpec& grid,
                                           const ModelSet& models, const Policy& policy) {
  std::vector<CollectiveGrid> grids;
  grids.reserve(colls.size());
  for (const Collective c : colls) grids.push_back({c, grid, decision_grid(c, grid, models, policy)});
  return grids;
}

}  // namespace collsel::tools
