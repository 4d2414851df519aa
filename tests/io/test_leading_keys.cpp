// io/json/leading_keys: the first key of each leading nested object, from the raw text.
#include "io/json/leading_keys.h"

#include <gtest/gtest.h>

#include <string_view>
#include <vector>

namespace cs::io {
namespace {

using Keys = std::vector<std::string_view>;

TEST(LeadingKeys, FollowsFirstKeysDownNestedObjects) {
  EXPECT_EQ(leading_keys(R"J({"a": {"b": [1]}, "c": 2})J", 3), (Keys{"a", "b"}));
  EXPECT_EQ(leading_keys(" \n{ \"x\" :\t{\"y\": {\"z\": 1}}}", 3), (Keys{"x", "y", "z"}));
  EXPECT_EQ(leading_keys(R"J({"x": {"y": {"z": 1}}})J", 2), (Keys{"x", "y"}));
  EXPECT_EQ(leading_keys("\xEF\xBB\xBF{\"bom\": 1}", 2), (Keys{"bom"}));
}

TEST(LeadingKeys, EscapedQuotesStayInTheKey) {
  EXPECT_EQ(leading_keys(R"J({"a\"b": {"c\\": 1}})J", 2), (Keys{R"J(a\"b)J", R"J(c\\)J"}));
}

TEST(LeadingKeys, StopsAtEmptyObjectsArraysAndBrokenText) {
  EXPECT_TRUE(leading_keys("[{\"a\": 1}]", 2).empty());
  EXPECT_EQ(leading_keys(R"J({"a": {}})J", 2), (Keys{"a"}));
  EXPECT_TRUE(leading_keys("{\"unterminated", 2).empty());
  EXPECT_TRUE(leading_keys("{\"a\" 1}", 2).empty());
  EXPECT_TRUE(leading_keys("", 2).empty());
}

}  // namespace
}  // namespace cs::io
