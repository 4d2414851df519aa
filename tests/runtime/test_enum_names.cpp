// runtime/enum_names.h: one table gives parsing, printing and the valid list of an error.
#include "runtime/enum_names.h"

#include <gtest/gtest.h>

namespace cs {
namespace {

enum class Color { kRed, kBlue, kGreen };
constexpr std::array<runtime::EnumName<Color>, 3> kColors{
    {{"red", Color::kRed}, {"blue", Color::kBlue}, {"navy", Color::kBlue}}};

TEST(EnumNames, ParsePrintAndList) {
  EXPECT_EQ(runtime::enum_from_name(kColors, "red"), Color::kRed);
  EXPECT_EQ(runtime::enum_from_name(kColors, "navy"), Color::kBlue);  // an alias
  EXPECT_EQ(runtime::enum_from_name(kColors, "Red"), std::nullopt);   // case-sensitive
  EXPECT_EQ(runtime::enum_from_name(kColors, ""), std::nullopt);
  EXPECT_EQ(runtime::enum_to_name(kColors, Color::kBlue), "blue");  // the first name
  EXPECT_EQ(runtime::enum_to_name(kColors, Color::kGreen), "");     // not in the table
  EXPECT_EQ(runtime::enum_names(kColors), "red, blue, navy");
}

TEST(EnumNames, UnknownValueMessage) {
  EXPECT_EQ(runtime::unknown_value("format", "cvs", "all, json, csv, hdf5, html"),
            "unknown format 'cvs' \u2014 valid: all, json, csv, hdf5, html");
}

}  // namespace
}  // namespace cs
