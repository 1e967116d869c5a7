// The model's decisions over a grid of communicator sizes and message sizes: the decision map of
// `collsel report --html` / `collsel plot` and the tables `collsel export` writes for MPICH and
// Open MPI. Every cell is one call of the same decide() the shim makes (closed forms: no placement
// is known off-line), so a map or an exported file shows exactly what the shim would choose.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "selector/collective.hpp"
#include "selector/decide.hpp"

namespace collsel::tools {

struct GridSpec {
  std::vector<int> comm_sizes;          // ascending, each >= 1
  std::vector<std::uint64_t> bytes;     // ascending message sizes (the log's `bytes`)
};

// Powers of two from 2 to 256 ranks plus the odd sizes 3, 5, 12, 24, 48, 96; sizes 1 B to 4 MiB,
// x4 apart (plus 0): the default of the map and the export.
GridSpec default_grid();

struct GridCell {
  int comm_size = 0;
  std::uint64_t bytes = 0;
  std::string algorithm;        // registered name or "native"
  AlgoParams params;            // segment size, window
  double predicted_s = 0.0;     // NaN for native
  Rung rung = Rung::native;
};

// Row-major: for each comm size (outer), every message size (inner). Root 0.
std::vector<GridCell> decision_grid(Collective coll, const GridSpec& grid, const ModelSet& models,
                                    const Policy& policy);

// One collective's decisions over `grid`, as decision_grid() returns them: a panel of the decision
// map, or one collective's rules in an exported tuning file.
struct CollectiveGrid {
  Collective coll = Collective::bcast;
  GridSpec grid;
  std::vector<GridCell> cells;
};

// decision_grid() of each of `colls`, in that order.
std::vector<CollectiveGrid> decision_grids(std::span<const Collective> colls, const GridSpec& grid,
                                           const ModelSet& models, const Policy& policy);

}  // namespace collsel::tools
