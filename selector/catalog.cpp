#include "selector/catalog.hpp"

#include <vector>

#include "selector/registry.hpp"

namespace collsel {
namespace {

template <class Call>
std::vector<AlgorithmView> views(std::span<const Algorithm<Call>> registry) {
  std::vector<AlgorithmView> out;
  for (const auto& a : registry) out.push_back(a.view);
  return out;
}

}  // namespace

std::span<const AlgorithmView> catalog(Collective c) {
  static const std::vector<AlgorithmView> bcast = views(bcast_registry());
  static const std::vector<AlgorithmView> scatter = views(scatter_registry());
  static const std::vector<AlgorithmView> alltoall = views(alltoall_registry());
  switch (c) {
    case Collective::bcast:
      return bcast;
    case Collective::scatter:
      return scatter;
    case Collective::alltoall:
      return alltoall;
  }
  return {};
}

const AlgorithmView* find_algorithm(Collective c, std::string_view name) {
  for (const auto& a : catalog(c)) {
    if (a.name == name) return &a;
  }
  return nullptr;
}

std::string algorithm_names(Collective c) {
  std::string out;
  for (const auto& a : catalog(c)) {
    if (!out.empty()) out += ", ";
    out += a.name;
  }
  return out;
}

std::string_view collective_name(Collective c) {
  switch (c) {
    case Collective::bcast:
      return "bcast";
    case Collective::scatter:
      return "scatter";
    case Collective::alltoall:
      return "alltoall";
  }
  return "?";
}

std::optional<Collective> collective_from_name(std::string_view name) {
  for (Collective c : kCollectives) {
    if (collective_name(c) == name) return c;
  }
  return std::nullopt;
}

}  // namespace collsel
