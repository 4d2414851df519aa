// The CSV cell parsers of io/csv/csv_reader.h: numbers (with why a cell is not one), integers and
// trimming, as the readers of the profilers' CSV files use them.

#include <gtest/gtest.h>

#include <cstdint>

#include "io/csv/csv_reader.h"

namespace cs::io {
namespace {

TEST(ParseNumber, Cells) {
  double v = -1;
  EXPECT_TRUE(parse_number("1736413971558972.912\t", v));
  EXPECT_DOUBLE_EQ(v, 1736413971558972.912);
  EXPECT_TRUE(parse_number(" 1e-05 ", v));
  EXPECT_DOUBLE_EQ(v, 1e-05);
  EXPECT_TRUE(parse_number("-3", v));
  EXPECT_EQ(v, -3);
  EXPECT_TRUE(parse_number("+2.5", v));
  EXPECT_EQ(v, 2.5);
  v = 7;
  for (const char* bad : {"", " \t", "N/A", "NA", "nan", "NaN", "inf", "1e999", "12abc", "0x1F"}) {
    EXPECT_FALSE(parse_number(bad, v)) << bad;
  }
  EXPECT_EQ(v, 7);  // untouched
  EXPECT_EQ(parse_number_status("N/A", v), NumberStatus::kMissing);
  EXPECT_EQ(parse_number_status("", v), NumberStatus::kMissing);
  EXPECT_EQ(parse_number_status("NaN", v), NumberStatus::kNotFinite);
  EXPECT_EQ(parse_number_status("-inf", v), NumberStatus::kNotFinite);
  EXPECT_EQ(parse_number_status("1e999", v), NumberStatus::kOutOfRange);
  EXPECT_EQ(parse_number_status("-1e999", v), NumberStatus::kOutOfRange);
  EXPECT_EQ(parse_number_status("fast", v), NumberStatus::kInvalid);
  int64_t i = 0;
  EXPECT_TRUE(parse_int(" 19\t", i));
  EXPECT_EQ(i, 19);
  EXPECT_TRUE(parse_int("4294967295", i));
  EXPECT_EQ(i, 4294967295);
  EXPECT_TRUE(parse_int("20.0", i));
  EXPECT_EQ(i, 20);
  EXPECT_FALSE(parse_int("20.5", i));
  EXPECT_FALSE(parse_int("N/A", i));
  EXPECT_EQ(trim(" \tab c\r\n"), "ab c\r\n");
  EXPECT_EQ(trim("\t x \r"), "x");
}

}  // namespace
}  // namespace cs::io
