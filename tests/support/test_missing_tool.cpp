// CS_MISSING_TOOL (tests/support/missing_tool.h): under CI=true a missing tool fails the test, so
// CI never passes a test it did not run; elsewhere it skips.
#include "support/missing_tool.h"

#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

namespace {

// Restores CI when the test ends.
class CiVariable : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* ci = std::getenv("CI");
    had_ = ci != nullptr;
    if (had_) saved_ = ci;
  }
  void TearDown() override {
    if (had_)
      setenv("CI", saved_.c_str(), 1);
    else
      unsetenv("CI");
  }

 private:
  bool had_ = false;
  std::string saved_;
};

void needs_absent_tool() {
  CS_MISSING_TOOL("frobnicator-9");
}

TEST_F(CiVariable, MissingToolFailsUnderCi) {
  setenv("CI", "true", 1);
  EXPECT_TRUE(cs::test::in_ci());
  EXPECT_FATAL_FAILURE(needs_absent_tool(), "missing tool under CI=true: frobnicator-9");
}

TEST_F(CiVariable, OnlyTheValueTrueMeansCi) {
  unsetenv("CI");
  EXPECT_FALSE(cs::test::in_ci());
  setenv("CI", "1", 1);
  EXPECT_FALSE(cs::test::in_ci());
  setenv("CI", "true", 1);
  EXPECT_TRUE(cs::test::in_ci());
}

}  // namespace
