// The call-site ids of the log (pmpi/stack_ids.hpp): one id per distinct site, from 1, in the order
// sites are first seen; a full table still hands out ids no other site has, fresh every time.
#include "pmpi/stack_ids.hpp"

#include <gtest/gtest.h>

#include <set>

namespace collsel::pmpi {
namespace {

CallSite site(std::uint64_t pc, std::uint8_t depth = 2) {
  CallSite s;
  s.depth = depth;
  s.pcs[0] = pc;
  s.pcs[1] = 0x2000;
  return s;
}

TEST(StackIds, OneIdPerSiteFromOne) {
  StackIds ids(8);
  EXPECT_EQ(ids.find_or_add(CallSite{}).id, 0u);  // no call site: no id, nothing to write
  EXPECT_FALSE(ids.find_or_add(CallSite{}).fresh);
  const StackIds::Id a = ids.find_or_add(site(0x1000));
  EXPECT_EQ(a.id, 1u);
  EXPECT_TRUE(a.fresh);
  const StackIds::Id b = ids.find_or_add(site(0x1010));
  EXPECT_EQ(b.id, 2u);
  EXPECT_TRUE(b.fresh);
  const StackIds::Id again = ids.find_or_add(site(0x1000));
  EXPECT_EQ(again.id, 1u);
  EXPECT_FALSE(again.fresh);
  // The same first frame at another depth is another site.
  EXPECT_EQ(ids.find_or_add(site(0x1000, 1)).id, 3u);
  EXPECT_FALSE(ids.overflowed());
}

TEST(StackIds, AFullTableHandsOutFreshUnsharedIds) {
  StackIds ids(4);
  const std::size_t memory = ids.memory_bytes();
  std::set<std::uint64_t> seen;
  for (std::uint64_t i = 0; i < 4; ++i) seen.insert(ids.find_or_add(site(0x1000 + i)).id);
  EXPECT_EQ(seen, (std::set<std::uint64_t>{1, 2, 3, 4}));
  const StackIds::Id past = ids.find_or_add(site(0x9000));
  EXPECT_TRUE(past.fresh);
  EXPECT_TRUE(ids.overflowed());
  const StackIds::Id past_again = ids.find_or_add(site(0x9000));
  EXPECT_TRUE(past_again.fresh);  // not remembered: its stack record is written again
  EXPECT_NE(past.id, past_again.id);
  EXPECT_FALSE(seen.contains(past.id));
  EXPECT_FALSE(seen.contains(past_again.id));
  EXPECT_FALSE(ids.find_or_add(site(0x1002)).fresh);  // the sites it holds keep their ids
  EXPECT_EQ(ids.memory_bytes(), memory);  // never grown
}

}  // namespace
}  // namespace collsel::pmpi
