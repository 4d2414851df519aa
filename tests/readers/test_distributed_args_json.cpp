// python_json_dumps against Python 3.11's json.dumps(json.loads(s)); each expected string below
// was printed by that one-liner for the input beside it.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "readers/distributed_args_json.h"

namespace {

std::string dumps(std::string_view s, std::string_view skip = {}) {
  auto r = cs::readers::python_json_dumps(s, skip);
  return r ? *r : "<not JSON>";
}

}  // namespace

TEST(PythonJsonDumps, SeparatorsAndAsciiEscapes) {
  EXPECT_EQ(dumps(R"({"a":1,"b":[true,0.5,"é"]})"), R"({"a": 1, "b": [true, 0.5, "\u00e9"]})");
  EXPECT_EQ(dumps(R"({"s":"\u0001\u007f/\\"})"), R"({"s": "\u0001\u007f/\\"})");
  EXPECT_EQ(dumps("{\"t\":\"a\\tb\\n\\\"q\\\"\"}"), R"({"t": "a\tb\n\"q\""})");
  EXPECT_EQ(dumps("\"\xF0\x9F\x98\x80\""), R"("\ud83d\ude00")");  // above the BMP: a pair
  EXPECT_EQ(dumps("{}"), "{}");
  EXPECT_EQ(dumps("[]"), "[]");
  EXPECT_EQ(dumps("null"), "null");
}

TEST(PythonJsonDumps, NumbersAsPythonPrintsThem) {
  EXPECT_EQ(dumps("[0.1, 1e16, 1e-5, 123456789012345678901234567890, -12345678901234567890123]"),
            "[0.1, 1e+16, 1e-05, 123456789012345678901234567890, -12345678901234567890123]");
  EXPECT_EQ(dumps("-0"), "0");
  EXPECT_EQ(dumps("1E5"), "100000.0");
  EXPECT_EQ(dumps("[18446744073709551615, -9223372036854775808]"),
            "[18446744073709551615, -9223372036854775808]");
}

TEST(PythonJsonDumps, RepeatedKeyKeepsFirstPlaceLastValue) {
  EXPECT_EQ(dumps(R"({"x":1,"y":2,"x":3})"), R"({"x": 3, "y": 2})");
}

TEST(PythonJsonDumps, SkipsOnlyTheTopLevelKey) {
  EXPECT_EQ(dumps(R"({"rank":{"rank":1},"tp":2})", "rank"), R"({"tp": 2})");
  EXPECT_EQ(dumps(R"({"a":{"rank":1},"rank":0})", "rank"), R"({"a": {"rank": 1}})");
}

TEST(PythonJsonDumps, NotJsonIsNullopt) {
  EXPECT_FALSE(cs::readers::python_json_dumps("{\"a\":").has_value());
  EXPECT_FALSE(cs::readers::python_json_dumps("[1e400]").has_value());  // Python: [Infinity]
}

TEST(DistributedArgsPythonJson, FromProfilerMetadata) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / "cs-distributed-args-json";
  fs::create_directories(dir);
  auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir / name) << text;
    return (dir / name).string();
  };
  cs::io::Diagnostics diag;
  // The last distributed_args of the file counts; "rank" is left out.
  EXPECT_EQ(cs::readers::distributed_args_python_json(
                write("a.json", R"({"distributed_args":{"tp":1},"x":0,)"
                                R"("distributed_args":{"rank":3,"tp":2,"sp":false}})"),
                diag),
            R"({"tp": 2, "sp": false})");
  // Only "rank": an empty object (msprof-analyze stops there and writes no row).
  EXPECT_EQ(cs::readers::distributed_args_python_json(
                write("b.json", R"({"distributed_args":{"rank":3}})"), diag),
            "{}");
  // Empty, absent, not an object, no file: nothing.
  EXPECT_FALSE(
      cs::readers::distributed_args_python_json(write("c.json", R"({"distributed_args":{}})"), diag)
          .has_value());
  EXPECT_FALSE(cs::readers::distributed_args_python_json(write("d.json", R"({"other":1})"), diag)
                   .has_value());
  EXPECT_FALSE(cs::readers::distributed_args_python_json(
                   write("e.json", R"({"distributed_args":[1]})"), diag)
                   .has_value());
  EXPECT_FALSE(
      cs::readers::distributed_args_python_json((dir / "absent.json").string(), diag).has_value());
  EXPECT_EQ(diag.items().size(), 0u);
  // Not an object at the top: one warning naming the file.
  EXPECT_FALSE(cs::readers::distributed_args_python_json(write("f.json", "[1]"), diag).has_value());
  ASSERT_EQ(diag.items().size(), 1u);
  EXPECT_NE(diag.items()[0].to_string().find("f.json"), std::string::npos);
  fs::remove_all(dir);
}
