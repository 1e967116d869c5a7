// The fair-sharing baseline rule, and the rule registry (rules.cpp) that names every rule.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "models/contention/graph.hpp"
#include "models/contention/rules.hpp"

namespace collsel::models::contention {
namespace {

TEST(ContentionFair, AloneIsOne) {
  EXPECT_EQ(fair_penalties(std::vector<Edge>{{0, 1}}), std::vector<double>{1});
  EXPECT_EQ(fair_penalties(std::vector<Edge>{{0, 1}, {2, 3}}), (std::vector<double>{1, 1}));
  EXPECT_TRUE(fair_penalties({}).empty());
}

TEST(ContentionFair, OutStarAndIncastShareTheBusyCard) {
  EXPECT_EQ(fair_penalties(std::vector<Edge>{{0, 1}, {0, 2}, {0, 3}}),
            (std::vector<double>{3, 3, 3}));
  EXPECT_EQ(fair_penalties(std::vector<Edge>{{1, 0}, {2, 0}, {3, 0}, {4, 0}}),
            (std::vector<double>{4, 4, 4, 4}));
}

TEST(ContentionFair, EachEdgeTakesTheBusierOfItsTwoCards) {
  // 0 sends to 1 and 2; 3 sends to 1 and 4; 5 sends to 2. 0->1: max(2, 2); 3->4: max(2, 1);
  // 5->2: max(1, 2). Fig. 2 graph 3 where InfiniBand says 4 and 2.66 gives 3 and 2.
  EXPECT_EQ(fair_penalties(std::vector<Edge>{{0, 1}, {0, 2}, {3, 1}, {3, 4}, {5, 2}}),
            (std::vector<double>{2, 2, 2, 2, 2}));
  EXPECT_EQ(fair_penalties(std::vector<Edge>{{0, 1}, {0, 2}, {0, 3}, {3, 1}, {3, 2}}),
            (std::vector<double>{3, 3, 3, 2, 2}));
  EXPECT_EQ(fair_penalties(std::vector<Edge>{{0, 9}, {1, 9}, {1, 2}}),
            (std::vector<double>{2, 2, 2}));
  EXPECT_EQ(fair_penalties(std::vector<Edge>{{0, 9}, {1, 9}, {1, 2}, {1, 3}}),
            (std::vector<double>{2, 3, 3, 3}));
}

TEST(ContentionFair, ParallelEdgesAreSeparateCommunications) {
  EXPECT_EQ(fair_penalties(std::vector<Edge>{{0, 1}, {0, 1}, {2, 1}}),
            (std::vector<double>{3, 3, 3}));
}

TEST(ContentionRules, NamesRoundTrip) {
  for (RuleKind kind : {RuleKind::fair, RuleKind::infiniband, RuleKind::gige, RuleKind::myrinet}) {
    const auto back = rule_from_name(rule_name(kind));
    ASSERT_TRUE(back.has_value()) << rule_name(kind);
    EXPECT_EQ(*back, kind);
    EXPECT_NE(rule_names().find(std::string(rule_name(kind))), std::string::npos);
  }
  EXPECT_EQ(rule_names(), "fair, infiniband, gige, myrinet");
  EXPECT_EQ(rule_name(RuleKind::infiniband), "infiniband");
  EXPECT_FALSE(rule_from_name("Fair").has_value());  // case-sensitive
  EXPECT_FALSE(rule_from_name("ib").has_value());
  EXPECT_FALSE(rule_from_name("").has_value());
}

TEST(ContentionRules, MakeRuleCarriesNameAndFunction) {
  const std::vector<Edge> graph3{{0, 1}, {0, 2}, {0, 3}, {3, 1}, {3, 2}};
  const Rule fair = make_rule(RuleKind::fair);
  EXPECT_EQ(fair.name, "fair");
  EXPECT_EQ(fair.penalties(graph3), fair_penalties(graph3));
  const Rule ib = make_rule(RuleKind::infiniband);
  EXPECT_EQ(ib.name, "infiniband");
  EXPECT_EQ(ib.penalties(graph3), infiniband_penalties(graph3));
  EXPECT_NE(ib.penalties(graph3), fair.penalties(graph3));
  EXPECT_EQ(make_rule(RuleKind::gige).name, "gige");
  EXPECT_TRUE(static_cast<bool>(make_rule(RuleKind::gige).penalties));
  EXPECT_EQ(make_rule(RuleKind::myrinet).name, "myrinet");
  EXPECT_TRUE(static_cast<bool>(make_rule(RuleKind::myrinet).penalties));
}

}  // namespace
}  // namespace collsel::models::contention
