// Exact decimal reading (io/decimal.h): the 8-digits-at-a-time path must give what a digit by
// digit loop gives, whatever follows the digits, and never use bytes past the end of the text.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "io/decimal.h"
#include "readers/kineto_trace.h"

namespace {

using cs::io::eight_digits;
using cs::io::is_digit;
using cs::io::parse_us_to_ns_in;
using cs::io::read_digits;
using cs::readers::parse_us_to_ns;

TEST(Decimal, EightDigitsCountsAndValues) {
  uint64_t v = 0;
  EXPECT_EQ(eight_digits("4037, \"t", v), 4u);
  EXPECT_EQ(v, 4037u);
  EXPECT_EQ(eight_digits("12345678", v), 8u);
  EXPECT_EQ(v, 12345678u);
  EXPECT_EQ(eight_digits("00000009", v), 8u);
  EXPECT_EQ(v, 9u);
  EXPECT_EQ(eight_digits(".1234567", v), 0u);
  EXPECT_EQ(v, 0u);
  EXPECT_EQ(eight_digits("9/:09\xff\x80 ", v), 1u);  // '/' and ':' border the digits
  EXPECT_EQ(v, 9u);
}

TEST(Decimal, ReadDigitsMatchesADigitLoop) {
  std::mt19937 rng(11);
  const char alphabet[] = "0123456789.-e,\" /:";
  for (int it = 0; it < 200000; ++it) {
    std::string buf(96, ' ');
    for (auto& c : buf) c = alphabet[rng() % (rng() % 3 == 0 ? 18 : 10)];
    const size_t n = rng() % 28;
    const char* end = buf.data() + n;
    uint64_t fast = 3, slow = 3;
    const char* p = read_digits(buf.data(), end, buf.data() + buf.size(), fast);
    const char* q = buf.data();
    while (q < end && is_digit(*q)) slow = slow * 10 + static_cast<uint64_t>(*q++ - '0');
    ASSERT_EQ(p, q) << buf.substr(0, n);
    ASSERT_EQ(fast, slow) << buf.substr(0, n);
    // With nothing readable past the end, the digit loop alone.
    uint64_t tight = 3;
    ASSERT_EQ(read_digits(buf.data(), end, end, tight), q);
    ASSERT_EQ(tight, slow);
  }
}

TEST(Decimal, PaddedTimestampsMatchTheGeneralParser) {
  const char* cases[] = {"1704161511420306.491",
                         "1704161511420306.4915",
                         "1704161511420306.4995",
                         "9223372036854769.999",
                         "9223372036854770",
                         "-9223372036854769.9995",
                         "00000000000000000001.5",
                         "12345678",
                         "123456789012345678901",
                         "1.2345678901234567890",
                         "  12.5 ,",
                         "\"12\"",
                         "1e3",
                         "+5",
                         "-",
                         ".",
                         "5.",
                         ".5",
                         "-0",
                         "0.0005",
                         "12x",
                         ""};
  for (const char* c : cases) {
    std::string buf(c);
    const size_t n = buf.size();
    buf.append(64, '7');  // digits after the text must not be read as part of it
    int64_t padded = 1, plain = 2;
    const bool a =
        parse_us_to_ns_in(std::string_view(buf.data(), n), buf.data() + buf.size(), padded);
    const bool b = parse_us_to_ns(std::string_view(buf.data(), n), plain);
    EXPECT_EQ(a, b) << c;
    if (a && b) {
      EXPECT_EQ(padded, plain) << c;
    }
  }
  int64_t ns = 0;
  EXPECT_TRUE(parse_us_to_ns("9223372036854769.999", ns));
  EXPECT_EQ(ns, 9223372036854769999LL);
  EXPECT_FALSE(parse_us_to_ns("9223372036854770", ns));  // would overflow int64 nanoseconds
  EXPECT_TRUE(parse_us_to_ns("0.0005", ns));
  EXPECT_EQ(ns, 1);
}

}  // namespace
