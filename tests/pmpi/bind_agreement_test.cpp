// The verdict of the binding allreduce (pmpi/bind_agreement.hpp): the OR of every rank's words
// decides, and only an agreement of all ranks on one private communicator binds to it.
#include "pmpi/bind_agreement.hpp"

#include <gtest/gtest.h>

#include <initializer_list>

namespace collsel::pmpi {
namespace {

// The MPI_BOR of the contributions, as the allreduce gives it to every rank.
BindWords reduce(std::initializer_list<BindWords> ranks) {
  BindWords all{};
  for (const BindWords& w : ranks) {
    for (std::size_t i = 0; i < all.size(); ++i) all[i] |= w[i];
  }
  return all;
}

TEST(BindAgreement, AllRanksOnTheSameCommunicatorBind) {
  EXPECT_EQ(bind_verdict(reduce({bind_contribution(7, true), bind_contribution(7, true),
                                 bind_contribution(7, false)})),
            BindVerdict::bind);
}

TEST(BindAgreement, ARankWithoutOneMakesANewOne) {
  EXPECT_EQ(bind_verdict(reduce({bind_contribution(7, true), bind_contribution(0, true)})),
            BindVerdict::create);
}

TEST(BindAgreement, NoRankWithOneMakesANewOne) {
  EXPECT_EQ(bind_verdict(reduce({bind_contribution(0, true), bind_contribution(0, true)})),
            BindVerdict::create);
}

TEST(BindAgreement, DifferentGenerationsNeverBind) {
  // Threads made two communicators for the group in different orders on two ranks: whatever
  // bits the generations share, the ranks see they differ.
  for (std::uint64_t a : {1u, 2u, 3u, 5u, 6u}) {
    for (std::uint64_t b : {1u, 2u, 3u, 5u, 6u}) {
      const BindVerdict v =
          bind_verdict(reduce({bind_contribution(a, true), bind_contribution(b, true)}));
      EXPECT_EQ(v == BindVerdict::bind, a == b) << a << " " << b;
    }
  }
}

TEST(BindAgreement, ARankAtItsBoundMakesAllNativeUnlessTheyAgree) {
  EXPECT_EQ(bind_verdict(reduce({bind_contribution(0, true), bind_contribution(0, false)})),
            BindVerdict::native);
  EXPECT_EQ(bind_verdict(reduce({bind_contribution(4, true), bind_contribution(3, false)})),
            BindVerdict::native);
  // Binding to a communicator every rank holds already needs no room.
  EXPECT_EQ(bind_verdict(reduce({bind_contribution(4, false), bind_contribution(4, false)})),
            BindVerdict::bind);
}

TEST(BindAgreement, ARankThatFailedToPrepareMakesAllNativeEvenWhenTheyAgree) {
  // Its allocation failed before the allreduce (issue 17 item 5): it cannot bind, so nobody does.
  BindWords failed = bind_contribution(4, true);
  failed[kFlags] |= kUnprepared;
  EXPECT_EQ(bind_verdict(reduce({bind_contribution(4, true), failed})), BindVerdict::native);
  EXPECT_EQ(bind_verdict(reduce({bind_contribution(0, true), failed})), BindVerdict::native);
}

TEST(BindAgreement, AFailedDecisionIsAgreedApartFromTheBinding) {
  BindWords undecided = bind_contribution(4, true);
  undecided[kFlags] |= kUndecided;
  const BindWords all = reduce({bind_contribution(4, true), undecided});
  EXPECT_EQ(bind_verdict(all), BindVerdict::bind);
  EXPECT_FALSE(shape_decided(all));
  EXPECT_TRUE(shape_decided(reduce({bind_contribution(4, true), bind_contribution(4, true)})));
  // Neither a missing private communicator nor the limit says anything about the decision.
  EXPECT_TRUE(shape_decided(reduce({bind_contribution(0, false), bind_contribution(3, true)})));
}

TEST(BindAgreement, RankZerosFieldsReachEveryRank) {
  BindWords root = bind_contribution(9, true);
  root[kSlot] = 12345;
  root[kCreatorRank] = 3;
  root[kSerial] = 77;
  const BindWords all = reduce({root, bind_contribution(9, true), bind_contribution(9, true)});
  EXPECT_EQ(all[kSlot], 12345u);
  EXPECT_EQ(all[kCreatorRank], 3u);
  EXPECT_EQ(all[kSerial], 77u);
  EXPECT_EQ(bind_verdict(all), BindVerdict::bind);
}

}  // namespace
}  // namespace collsel::pmpi
