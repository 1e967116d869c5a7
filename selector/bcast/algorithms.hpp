// The broadcast algorithms, one function each with the family's signature (STYLE.md 8.2 #5).
// Registered under their stable names in selector/bcast/registry.cpp.
#pragma once

#include "selector/algo_params.hpp"
#include "selector/calls.hpp"

namespace collsel::bcast {

int flat(const BcastCall& call, const AlgoParams& params);
int flat_rendezvous(const BcastCall& call, const AlgoParams& params);
int flat_segmented(const BcastCall& call, const AlgoParams& params);
int chain(const BcastCall& call, const AlgoParams& params);
int chain_rendezvous(const BcastCall& call, const AlgoParams& params);
int chain_segmented(const BcastCall& call, const AlgoParams& params);
int chain_preposted(const BcastCall& call, const AlgoParams& params);
int binary(const BcastCall& call, const AlgoParams& params);
int binomial(const BcastCall& call, const AlgoParams& params);
int binomial_rendezvous(const BcastCall& call, const AlgoParams& params);
int binomial_segmented(const BcastCall& call, const AlgoParams& params);
int scatter_allgather(const BcastCall& call, const AlgoParams& params);
int split_binary(const BcastCall& call, const AlgoParams& params);
int scatter_doubling_allgather(const BcastCall& call, const AlgoParams& params);

}  // namespace collsel::bcast
