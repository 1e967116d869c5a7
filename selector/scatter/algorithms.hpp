// The scatter algorithms, one function each with the family's signature (STYLE.md 8.2 #5).
// Registered under their stable names in selector/scatter/registry.cpp.
#pragma once

#include "selector/algo_params.hpp"
#include "selector/calls.hpp"

namespace collsel::scatter {

int flat(const ScatterCall& call, const AlgoParams& params);
int chain(const ScatterCall& call, const AlgoParams& params);
int binomial(const ScatterCall& call, const AlgoParams& params);

}  // namespace collsel::scatter
