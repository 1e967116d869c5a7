// The broadcast registry. Order matters: it is the tie-breaking order of decide(), so the
// simplest algorithm of equal predicted cost wins, and it gives each shape its plot colour
// (tools/plots), so a new algorithm goes last and the other Bcasts keep theirs.
#include <array>

#include "models/plogp/bcast.hpp"
#include "selector/bcast/algorithms.hpp"
#include "selector/model_adapters.hpp"
#include "selector/registry.hpp"
#include "selector/schedule/bcast_schedule.hpp"

namespace collsel {
namespace {

namespace m = models::plogp;
using adapters::plain;
using adapters::segmented;
constexpr auto one_message = adapters::fits_int<1>;

constexpr std::array<Algorithm<BcastCall>, 14> kBcast{{
    {{"bcast.flat", "root sends the whole message to every rank",
      adapters::fanout_or<models::logfp::bcast_flat, plain<m::bcast_flat>>,
      one_message, false, schedule::bcast_flat},
     bcast::flat},
    {{"bcast.flat_rendezvous", "flat tree, request/ready handshake before each message",
      plain<m::bcast_flat_rendezvous>, one_message, false, schedule::bcast_flat_rendezvous},
     bcast::flat_rendezvous},
    {{"bcast.flat_segmented", "flat tree, message cut into segments",
      adapters::segmented_fanout_or<models::logfp::bcast_flat, m::bcast_flat_segmented>,
      one_message, true, schedule::bcast_flat_segmented, schedule::bcast_segmented_tree_size},
     bcast::flat_segmented},
    {{"bcast.chain", "pipeline through the ranks, whole message per hop", plain<m::bcast_chain>,
      one_message, false, schedule::bcast_chain},
     bcast::chain},
    {{"bcast.chain_rendezvous", "chain, request/ready handshake before each hop",
      plain<m::bcast_chain_rendezvous>, one_message, false, schedule::bcast_chain_rendezvous},
     bcast::chain_rendezvous},
    {{"bcast.chain_segmented", "segmented chain pipeline", segmented<m::bcast_chain_segmented>,
      one_message, true, schedule::bcast_chain_segmented, schedule::bcast_segmented_tree_size},
     bcast::chain_segmented},
    {{"bcast.binary", "heap-ordered binary tree", plain<m::bcast_binary>, one_message, false,
      schedule::bcast_binary},
     bcast::binary},
    {{"bcast.binomial", "binomial tree, largest subtree first", plain<m::bcast_binomial>,
      one_message, false, schedule::bcast_binomial},
     bcast::binomial},
    {{"bcast.binomial_rendezvous", "binomial tree, request/ready handshake before each message",
      plain<m::bcast_binomial_rendezvous>, one_message, false, schedule::bcast_binomial_rendezvous},
     bcast::binomial_rendezvous},
    {{"bcast.binomial_segmented", "binomial tree, message cut into segments",
      segmented<m::bcast_binomial_segmented>, one_message, true,
      schedule::bcast_binomial_segmented, schedule::bcast_segmented_tree_size},
     bcast::binomial_segmented},
    {{"bcast.scatter_allgather",
      "binomial scatter of P chunks, then a ring allgather (van de Geijn; MPICH's large-message "
      "Bcast)",
      plain<m::bcast_scatter_allgather>, one_message, false, schedule::bcast_scatter_allgather,
      schedule::bcast_scatter_allgather_size},
     bcast::scatter_allgather},
    {{"bcast.split_binary",
      "each half down one subtree of a binary tree, segmented, then twins swap halves (Open "
      "MPI's split binary tree)",
      segmented<m::bcast_split_binary>, one_message, true, schedule::bcast_split_binary,
      schedule::bcast_split_binary_size},
     bcast::split_binary},
    {{"bcast.chain_preposted",
      "segmented chain, up to 64 segments' receives posted ahead (SMPI's NTSL, MPICH's pipelined "
      "tree with recv_pre_posted)",
      segmented<m::bcast_chain_preposted>, one_message, true, schedule::bcast_chain_preposted,
      schedule::bcast_segmented_tree_size, m::kChainPrepostedReceives},
     bcast::chain_preposted},
    {{"bcast.scatter_doubling_allgather",
      "binomial scatter of P chunks, then a recursive-doubling allgather in log2 P rounds (MPICH's "
      "medium-message Bcast at powers of two; Bruck's doubling at other sizes)",
      plain<m::bcast_scatter_doubling_allgather>, one_message, false,
      schedule::bcast_scatter_doubling_allgather, schedule::bcast_scatter_doubling_allgather_size},
     bcast::scatter_doubling_allgather},
}};

}  // namespace

std::span<const Algorithm<BcastCall>> bcast_registry() { return kBcast; }

}  // namespace collsel
