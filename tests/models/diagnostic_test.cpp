#include "models/diagnostic.hpp"

#include <gtest/gtest.h>

namespace collsel {
namespace {

using Severity = Diagnostic::Severity;

TEST(Diagnostic, FormatNamesFileLineProblemAndFix) {
  const Diagnostic d{Severity::error, "conf/cluster.toml", 12, "unknown key 'x' in [plogp]",
                     "remove it"};
  EXPECT_EQ(d.format(), "collsel: conf/cluster.toml:12: unknown key 'x' in [plogp]; remove it");
}

TEST(Diagnostic, FormatLeavesOutLineZero) {
  const Diagnostic d{Severity::error, "model.toml", 0,
                     "cannot read the model file (Permission denied)", "check COLLSEL_MODEL"};
  EXPECT_EQ(
      d.format(),
      "collsel: model.toml: cannot read the model file (Permission denied); check COLLSEL_MODEL");
}

TEST(Diagnostic, FormatLeavesOutAnEmptyFix) {
  const Diagnostic d{Severity::warning, "model.toml", 3, "something odd", ""};
  EXPECT_EQ(d.format(), "collsel: model.toml:3: something odd");
}

TEST(Diagnostic, FormatWithNeitherLineNorFix) {
  const Diagnostic d{Severity::warning, "<embedded default model>", 0, "something odd", ""};
  EXPECT_EQ(d.format(), "collsel: <embedded default model>: something odd");
}

TEST(Diagnostic, SeverityDoesNotChangeTheText) {
  Diagnostic d{Severity::warning, "f.toml", 1, "p", "f"};
  const std::string warning = d.format();
  d.severity = Severity::error;
  EXPECT_EQ(d.format(), warning);
}

TEST(Diagnostic, HasErrorsOnlyWithAnError) {
  EXPECT_FALSE(has_errors({}));
  EXPECT_FALSE(has_errors({{Severity::warning, "f", 1, "p", "x"}}));
  EXPECT_TRUE(
      has_errors({{Severity::warning, "f", 1, "p", "x"}, {Severity::error, "f", 2, "q", "y"}}));
  EXPECT_TRUE(has_errors({{Severity::error, "f", 0, "p", ""}}));
}

}  // namespace
}  // namespace collsel
