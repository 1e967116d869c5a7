#include "calibrate/node_layout.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include <fmt/format.h>

namespace collsel::calibrate {

int NodeLayout::max_ranks_per_node() const {
  std::size_t most = 0;
  for (const auto& r : ranks_of_node) most = std::max(most, r.size());
  return static_cast<int>(most);
}

NodeLayout layout_from_names(const std::vector<std::string>& processor_names) {
  NodeLayout out;
  for (int rank = 0; rank < static_cast<int>(processor_names.size()); ++rank) {
    const std::string& name = processor_names[static_cast<std::size_t>(rank)];
    const auto at = std::find(out.node_names.begin(), out.node_names.end(), name);
    const auto node = static_cast<int>(at - out.node_names.begin());
    if (at == out.node_names.end()) {
      out.node_names.push_back(name);
      out.ranks_of_node.emplace_back();
    }
    out.node_of_rank.push_back(node);
    out.ranks_of_node[static_cast<std::size_t>(node)].push_back(rank);
  }
  return out;
}

NodeLayout fake_layout(int ranks, int nodes) {
  std::vector<std::string> names;
  for (int r = 0; r < ranks; ++r) {
    names.push_back(fmt::format("fake-node-{}", static_cast<long long>(r) * nodes / ranks));
  }
  NodeLayout out = layout_from_names(names);
  out.fake = true;
  return out;
}

NodeLayout node_layout(MPI_Comm comm) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  // Rank 0 reads the knob and tells the others, so every rank builds the same layout even if
  // the environment differs between hosts.
  int fake_nodes = 0;
  if (rank == 0) {
    if (const char* v = std::getenv(kFakeNodesVariable); v != nullptr && *v != '\0') {
      char* end = nullptr;
      const long k = std::strtol(v, &end, 10);
      if (*end == '\0' && k >= 1 && k <= size) {
        fake_nodes = static_cast<int>(k);
      } else {
        fmt::print(stderr, "collsel: {}={} ignored: it must be an integer between 1 and {} (the "
                   "ranks); processor names decide the nodes\n", kFakeNodesVariable, v, size);
      }
    }
  }
  MPI_Bcast(&fake_nodes, 1, MPI_INT, 0, comm);
  if (fake_nodes > 0) return fake_layout(size, fake_nodes);

  char name[MPI_MAX_PROCESSOR_NAME] = {};
  int length = 0;
  MPI_Get_processor_name(name, &length);
  std::vector<char> all(static_cast<std::size_t>(size) * MPI_MAX_PROCESSOR_NAME);
  MPI_Allgather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all.data(), MPI_MAX_PROCESSOR_NAME,
                MPI_CHAR, comm);
  std::vector<std::string> names;
  for (int r = 0; r < size; ++r) {
    const char* at = &all[static_cast<std::size_t>(r) * MPI_MAX_PROCESSOR_NAME];
    names.emplace_back(at, strnlen(at, MPI_MAX_PROCESSOR_NAME));
  }
  return layout_from_names(names);
}

}  // namespace collsel::calibrate
