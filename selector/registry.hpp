// The algorithm registry: one typed table per collective, the single source of truth for names,
// summaries, models, applicability and run functions (STYLE.md 8.3). catalog() is its MPI-free
// view; help text, error messages, the differential test matrix and docs checks derive from it.
#pragma once

#include <span>

#include "selector/calls.hpp"
#include "selector/catalog.hpp"

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

}  // namespace collsel
