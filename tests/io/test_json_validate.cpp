// Tests of io/json/json_validate.{h,cpp}: what it accepts, simdjson's strict DOM parser accepts too
// (checked on every case), and the broken pieces fuzzing put into `merge` outputs are refused
// (issue 17, finding 5).

#include "io/json/json_validate.h"

#include <gtest/gtest.h>
#include <simdjson.h>

#include <string>
#include <vector>

namespace cs::io {
namespace {

bool simdjson_accepts(const std::string& text) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  return parser.parse(simdjson::padded_string(text)).get(doc) == simdjson::SUCCESS;
}

TEST(JsonValidate, ValidValuesAreAccepted) {
  const std::vector<std::string> ok = {
      "0",
      "-0",
      "1.5",
      "-2.5e-3",
      "1E+10",
      "18446744073709551615",
      "-9223372036854775808",
      "1.7976931348623157e308",
      "5e-324",
      "true",
      "false",
      "null",
      "\"\"",
      "\"a\\\"b\\\\c\\/\"",
      "\"\\b\\f\\n\\r\\t\\u00e9\\ud83d\\ude00\"",
      "\"caf\xc3\xa9 \xf0\x9f\x98\x80\"",
      "{}",
      "[]",
      " { \"a\" : [ 1 , { \"b\" : null } ] , \"c\" : \"d\" } ",
      "[[[[]]]]",
      "{\"name\":\"hcom_allReduce\",\"args\":{\"Input Dims\":\"1024;1024\",\"n\":[1,2]}}"};
  for (const std::string& s : ok) {
    EXPECT_TRUE(is_valid_json_value(s)) << s;
    EXPECT_TRUE(simdjson_accepts(s)) << s;
  }
}

// Python's json.loads reads integers of any size up to 4300 digits (msprof / Kineto traces are
// read by Python tools): accepted, beyond that refused as Python refuses them.
TEST(JsonValidate, IntegersBeyond64BitsAreAcceptedAsPythonReadsThem) {
  for (const std::string& s :
       {std::string("18446744073709551616"), std::string("-9223372036854775809"),
        std::string("123456789012345678901234567890"),
        std::string("[-123456789012345678901234567890]"), std::string(4300, '7'),
        "-" + std::string(4300, '7')})
    EXPECT_TRUE(is_valid_json_value(s)) << s.substr(0, 40);
  EXPECT_FALSE(is_valid_json_value(std::string(4301, '7')));
  EXPECT_FALSE(is_valid_json_value("-" + std::string(4301, '7')));
  EXPECT_FALSE(is_valid_json_value("0123456789012345678901234567890"));
}

TEST(JsonValidate, BrokenPiecesAreRefused) {
  const std::vector<std::string> bad = {"",
                                        " ",
                                        "NaN",
                                        "-Infinity",
                                        "Infinity",
                                        "nan",
                                        "1e999",
                                        "-1e400",
                                        "01",
                                        "1.",
                                        ".5",
                                        "+1",
                                        "1e",
                                        "0x10",
                                        "tru",
                                        "nul",
                                        "True",
                                        "\"unterminated",
                                        "\"bad escape \\q\"",
                                        "\"\\u12\"",
                                        "\"\\ud800\"",
                                        "\"\\udc00x\"",
                                        "\"\\ud800\\u0041\"",
                                        std::string("\"tab\there\""),
                                        std::string("\"nl\nx\""),
                                        std::string("\"nul\0x\"", 7),
                                        "\"\xff\"",
                                        "\"\xc3\"",
                                        "\"\xed\xa0\x80\"",
                                        "{",
                                        "[1,",
                                        "[1,]",
                                        "{\"a\"}",
                                        "{\"a\":}",
                                        "{\"a\":1,}",
                                        "{a:1}",
                                        "{\"a\":1 \"b\":2}",
                                        "[1 2]",
                                        "1 2",
                                        "{\"a\":1}}",
                                        "[]]",
                                        "{\"k\\x\":1}"};
  for (const std::string& s : bad) EXPECT_FALSE(is_valid_json_value(s)) << s;
}

TEST(JsonValidate, DepthIsLimited) {
  const std::string deep64 = std::string(64, '[') + std::string(64, ']');
  const std::string deep65 = std::string(65, '[') + std::string(65, ']');
  EXPECT_TRUE(is_valid_json_value(deep64));
  EXPECT_FALSE(is_valid_json_value(deep65));
  EXPECT_FALSE(is_valid_json_value(std::string(100000, '[')));  // no recursion, no crash
  EXPECT_TRUE(is_valid_json_value("{\"a\":{\"b\":1}}", 2));
  EXPECT_FALSE(is_valid_json_value("{\"a\":{\"b\":{}}}", 2));
}

TEST(JsonValidate, StringContents) {
  EXPECT_TRUE(is_valid_json_string_contents("Input Dims"));
  EXPECT_TRUE(is_valid_json_string_contents("a\\\"b"));
  EXPECT_TRUE(is_valid_json_string_contents(""));
  EXPECT_FALSE(is_valid_json_string_contents("a\"b"));
  EXPECT_FALSE(is_valid_json_string_contents("trailing\\"));
  EXPECT_FALSE(is_valid_json_string_contents("ctl\x01"));
}

}  // namespace
}  // namespace cs::io
