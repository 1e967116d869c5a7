// The All-to-All algorithms, one function each with the family's signature (STYLE.md 8.2 #5).
// Registered under their stable names in selector/alltoall/registry.cpp; their models are in
// models/alltoall/contention.hpp.
#pragma once

#include "selector/algo_params.hpp"
#include "selector/calls.hpp"

namespace collsel::alltoall {

int direct_exchange(const AlltoallCall& call, const AlgoParams& params);
int pairwise(const AlltoallCall& call, const AlgoParams& params);
int all_at_once(const AlltoallCall& call, const AlgoParams& params);
int windowed(const AlltoallCall& call, const AlgoParams& params);
int bruck(const AlltoallCall& call, const AlgoParams& params);
int mesh2d(const AlltoallCall& call, const AlgoParams& params);

}  // namespace collsel::alltoall
