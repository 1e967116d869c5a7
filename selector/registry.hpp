// The algorithm registry: one typed table per collective, the single source of truth for names,
// summaries, models, applicability and run functions (STYLE.md 8.3). catalog() is its MPI-free
// view; help text, error messages, the differential test matrix and docs checks derive from it.
#pragma once

#include <span>
#include <stdexcept>
#include <variant>

#include "selector/calls.hpp"
#include "selector/catalog.hpp"
#include "selector/decide.hpp"

namespace collsel {

template <class Call>
using RunFn = int (*)(const Call&, const AlgoParams&);

template <class Call>
struct Algorithm {
  AlgorithmView view;
  RunFn<Call> run = nullptr;
};

std::span<const Algorithm<BcastCall>> bcast_registry();
std::span<const Algorithm<ScatterCall>> scatter_registry();
std::span<const Algorithm<AlltoallCall>> alltoall_registry();

// The registry of the collective `Call` belongs to.
template <class Call>
std::span<const Algorithm<Call>> registry();
template <>
inline std::span<const Algorithm<BcastCall>> registry<BcastCall>() { return bcast_registry(); }
template <>
inline std::span<const Algorithm<ScatterCall>> registry<ScatterCall>() {
  return scatter_registry();
}
template <>
inline std::span<const Algorithm<AlltoallCall>> registry<AlltoallCall>() {
  return alltoall_registry();
}

// A row of one of the registries, or none (the native routine): what a cached decision runs.
using RegistryRow = std::variant<std::monostate, const Algorithm<BcastCall>*,
                                 const Algorithm<ScatterCall>*, const Algorithm<AlltoallCall>*>;

// The row that runs decide()'s winner (none for native). decide() lists catalog(c), which
// catalog.cpp builds from the registry in its order, so the winner's index in the table is its
// row; the name check keeps that invariant from failing silently.
template <class Call>
RegistryRow winner_row(const Decision& d) {
  if (d.winner < 0) return std::monostate{};
  const auto rows = registry<Call>();
  const auto at = static_cast<std::size_t>(d.winner);
  if (at >= rows.size() || rows[at].view.name != d.table[at].name) {
    throw std::logic_error("decide()'s table is not in registry order");
  }
  return &rows[at];
}

inline RegistryRow winner_row(Collective c, const Decision& d) {
  switch (c) {
    case Collective::bcast:
      return winner_row<BcastCall>(d);
    case Collective::scatter:
      return winner_row<ScatterCall>(d);
    case Collective::alltoall:
      return winner_row<AlltoallCall>(d);
  }
  return std::monostate{};
}

}  // namespace collsel
