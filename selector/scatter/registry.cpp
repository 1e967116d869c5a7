// The scatter registry. Order matters: it is the tie-breaking order of decide().
#include <array>

#include "models/plogp/scatter.hpp"
#include "selector/model_adapters.hpp"
#include "selector/registry.hpp"
#include "selector/schedule/scatter_schedule.hpp"
#include "selector/scatter/algorithms.hpp"

namespace collsel {
namespace {

namespace m = models::plogp;
using adapters::plain;
// Chain and binomial forward up to P-1 blocks in one byte message.
constexpr auto forwarded_blocks = adapters::fits_int<0>;

constexpr std::array<Algorithm<ScatterCall>, 3> kScatter{{
    {{"scatter.flat", "root sends every rank its block directly",
      adapters::fanout_or<models::logfp::scatter_flat, adapters::flat_burst<m::scatter_flat>>,
      adapters::always, false, schedule::scatter_flat},
     scatter::flat},
    {{"scatter.chain", "blocks travel down a chain, each rank keeps its own",
      plain<m::scatter_chain>, forwarded_blocks, false, schedule::scatter_chain},
     scatter::chain},
    {{"scatter.binomial", "binomial tree, each rank forwards its subtree's blocks",
      plain<m::scatter_binomial>, forwarded_blocks, false, schedule::scatter_binomial},
     scatter::binomial},
}};

}  // namespace

std::span<const Algorithm<ScatterCall>> scatter_registry() { return kScatter; }

}  // namespace collsel
