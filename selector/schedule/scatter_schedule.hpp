// The communication schedules of the scatter.* algorithms (selector/scatter/), for the contention
// simulator (models/contention/schedule.hpp). Pure: no MPI.
#pragma once

#include "models/contention/schedule.hpp"
#include "selector/algo_params.hpp"
#include "selector/collective.hpp"

namespace collsel::schedule {

// call.bytes is one block; empty for P <= 1 or 0 bytes, as the algorithms send nothing then.
models::contention::Schedule scatter_flat(const CallShape& call, const AlgoParams& params);
models::contention::Schedule scatter_chain(const CallShape& call, const AlgoParams& params);
models::contention::Schedule scatter_binomial(const CallShape& call, const AlgoParams& params);

}  // namespace collsel::schedule
