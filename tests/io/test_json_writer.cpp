// Tests of io/json/json_writer.{h,cpp}: what JsonWriter prints must be byte for byte what Python's
// json.dumps prints for the same data, in each style (checked by /usr/bin/python3 itself).

#include "io/json/json_writer.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>

#include "support/test_files.h"

namespace cs::io {
namespace {

using cs::test::slurp;

// Python loads our text and dumps it again with the given json.dumps arguments; prints it.
std::string python_redump(const std::string& text, const std::string& dumps_args) {
  std::string path =
      testing::TempDir() + "/" + std::to_string(::getpid()) + "_cs_json_writer_in.json";
  std::ofstream(path, std::ios::binary) << text;
  std::string out = cs::test::run_stdout(
      "/usr/bin/python3 -c 'import json, sys\nsys.stdout.write(json.dumps(json.load(open("
      "sys.argv[1], encoding=\"utf-8\")), " +
      dumps_args + "))' " + path);
  std::remove(path.c_str());
  return out;
}

// A document shaped like msprof-analyze's cluster files, with awkward values.
void write_sample(JsonWriter& w) {
  w.begin_object();
  w.key("(0, 1)");
  w.begin_object();
  w.key("step");
  w.begin_object();
  w.key("hcom_broadcast__501_0@6297232067196334501");
  w.begin_object();
  w.key("Start Timestamp(us)");
  w.value(1695054582608213.0);
  w.key("Elapse Time(ms)");
  w.value(121.73694384375);
  w.key("Transit Size(MB)");
  w.value(Num::integer(0));
  w.key("Large Packet Ratio");
  w.value(Num::real(0.0));
  w.key("tiny");
  w.value(1e-05);
  w.key("big");
  w.value(1e16);
  w.key("sum");
  w.value(0.1 + 0.2);
  w.key("sub");
  w.value(5e-324);
  w.key("negzero");
  w.value(-0.0);
  w.key("nan");
  w.value(std::numeric_limits<double>::quiet_NaN());
  w.key("inf");
  w.value(-std::numeric_limits<double>::infinity());
  w.key("Size Distribution");
  w.begin_object();
  w.key("0.003072");
  w.begin_array();
  w.value(18);
  w.value(0.0202498125);
  w.end_array();
  w.end_object();
  w.key("empty_obj");
  w.begin_object();
  w.end_object();
  w.key("empty_arr");
  w.begin_array();
  w.end_array();
  w.key("flags");
  w.begin_array();
  w.value(true);
  w.value(false);
  w.null();
  w.value(int64_t{-9007199254740993});
  w.end_array();
  w.end_object();
  w.end_object();
  w.end_object();
  w.key("strings");
  w.begin_array();
  w.value("plain");
  w.value("quote \" backslash \\ slash /");
  w.value("tab\tnewline\nreturn\rbell\x07 formfeed\f backspace\b nul");
  w.value(std::string_view("with\0nul", 8));
  w.value("del \x7f unit \x1f");
  w.value("caf\xc3\xa9 \xe4\xb8\xad\xe6\x96\x87 \xf0\x9f\x98\x80 \xe2\x80\xa8");
  w.value("");
  w.end_array();
  w.key("nested");
  w.begin_array();
  w.begin_array();
  w.begin_object();
  w.key("k");
  w.begin_array();
  w.end_array();
  w.end_object();
  w.end_array();
  w.end_array();
  w.end_object();
}

TEST(JsonWriter, MsprofStyleMatchesPython) {
  std::string out;
  {
    JsonWriter w(&out, JsonStyle::msprof());
    write_sample(w);
  }
  EXPECT_EQ(out, python_redump(out, "separators=(\",\", \": \")"));
  EXPECT_NE(out.find("\"Transit Size(MB)\": 0,\"Large Packet Ratio\": 0.0"), std::string::npos);
}

TEST(JsonWriter, PythonDefaultStyleMatchesPython) {
  std::string out;
  {
    JsonWriter w(&out, JsonStyle::python());
    write_sample(w);
  }
  EXPECT_EQ(out, python_redump(out, "ensure_ascii=True"));
}

TEST(JsonWriter, IndentedStyleMatchesPython) {
  for (int indent : {0, 2, 4}) {
    std::string out;
    {
      JsonWriter w(&out, JsonStyle::indented(indent));
      write_sample(w);
    }
    EXPECT_EQ(out, python_redump(out, "indent=" + std::to_string(indent))) << indent;
  }
}

TEST(JsonWriter, NoEnsureAsciiMatchesPython) {
  JsonStyle style = JsonStyle::msprof();
  style.ensure_ascii = false;
  std::string out;
  {
    JsonWriter w(&out, style);
    write_sample(w);
  }
  EXPECT_EQ(out, python_redump(out, "separators=(\",\", \": \"), ensure_ascii=False"));
}

// Issue 17, finding 5: a sum of finite values can overflow (1.7e308 + 1.7e308); Python writes
// Infinity / NaN, which strict parsers (MindStudio Insight, browsers, jq) reject. The writer puts
// null and counts it, and a sub-document's count carries over through raw_value.
TEST(JsonWriter, NonFiniteNumbersAreNullAndCounted) {
  std::string sub;
  JsonWriter fw(&sub, JsonStyle::msprof());
  fw.begin_array();
  fw.value(1.7e308 + 1.7e308);
  fw.value(Num::integer(3));
  fw.end_array();
  EXPECT_EQ(sub, "[null,3]");
  EXPECT_EQ(fw.nonfinite_count(), 1u);
  std::string out;
  JsonWriter w(&out, JsonStyle::msprof());
  w.begin_object();
  w.key("nan");
  w.value(std::numeric_limits<double>::quiet_NaN());
  w.key("inf");
  w.value(-std::numeric_limits<double>::infinity());
  w.key("sub");
  w.raw_value(sub, fw.nonfinite_count());
  w.key("max");
  w.value(1.7976931348623157e308);
  w.end_object();
  EXPECT_EQ(out,
            "{\"nan\": null,\"inf\": null,\"sub\": [null,3],\"max\": 1.7976931348623157e+308}");
  EXPECT_EQ(w.nonfinite_count(), 3u);
  EXPECT_EQ(out.find("NaN"), std::string::npos);
  EXPECT_EQ(out.find("Infinity"), std::string::npos);
}

// Issue 17, finding 9: without ensure_ascii, bytes that are not UTF-8 become U+FFFD (the file
// stays valid JSON text); valid UTF-8 is copied; NUL is escaped as Python does (\u0000).
TEST(JsonWriter, InvalidUtf8ReplacedWithoutEnsureAscii) {
  std::string out;
  append_json_string(out, std::string_view("ab\xff\x00\xc3\xa9\xed\xa0\x80z", 10), false);
  EXPECT_EQ(out, "\"ab\xef\xbf\xbd\\u0000\xc3\xa9\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbdz\"");
  out.clear();
  append_json_string(out, "\xe4\xb8\xad\xe6\x96\x87 and more ASCII text", false);
  EXPECT_EQ(out, "\"\xe4\xb8\xad\xe6\x96\x87 and more ASCII text\"");
}

TEST(JsonWriter, EnsureAsciiEscapes) {
  auto esc = [](std::string_view s, bool ascii = true) {
    std::string out;
    append_json_string(out, s, ascii);
    return out;
  };
  EXPECT_EQ(esc("caf\xc3\xa9"), "\"caf\\u00e9\"");
  EXPECT_EQ(esc("\xf0\x9f\x98\x80"), "\"\\ud83d\\ude00\"");
  EXPECT_EQ(esc("\x7f"), "\"\\u007f\"");
  EXPECT_EQ(esc("\x7f", false), "\"\x7f\"");
  EXPECT_EQ(esc("\x01"), "\"\\u0001\"");
  EXPECT_EQ(esc("caf\xc3\xa9", false), "\"caf\xc3\xa9\"");
  // Invalid UTF-8 becomes U+FFFD (Python's errors="replace").
  EXPECT_EQ(esc("a\xff"
                "b"),
            "\"a\\ufffdb\"");
  EXPECT_EQ(esc("\xc3"), "\"\\ufffd\"");
}

// The plain runs are scanned 8 bytes at a time: an escape at every position of a word, and runs
// of every length around it, must come out as the byte-by-byte rules say.
TEST(JsonWriter, EscapesAtEveryPositionOfAWord) {
  auto reference = [](std::string_view s, bool ascii) {
    std::string out = "\"";
    char buf[8];
    for (unsigned char c : s) {
      switch (c) {
        case '"':
          out += "\\\"";
          continue;
        case '\\':
          out += "\\\\";
          continue;
        case '\n':
          out += "\\n";
          continue;
        case '\r':
          out += "\\r";
          continue;
        case '\t':
          out += "\\t";
          continue;
        case '\b':
          out += "\\b";
          continue;
        case '\f':
          out += "\\f";
          continue;
        default:
          break;
      }
      if (c < 0x20 || (c == 0x7f && ascii)) {
        std::snprintf(buf, sizeof buf, "\\u%04x", c);
        out += buf;
      } else if (c >= 0x80) {
        out += "\xEF\xBF\xBD";  // a lone byte >= 0x80 is not UTF-8: U+FFFD (issue 17)
      } else {
        out += static_cast<char>(c);
      }
    }
    return out + "\"";
  };
  const std::string specials = std::string("\"\\\n\x01\x1f\x7f\x80\xe9", 8);
  for (bool ascii : {true, false}) {
    for (size_t len = 0; len <= 24; ++len) {
      for (size_t pos = 0; pos < len; ++pos) {
        for (char sp : specials) {
          // Bytes >= 0x80 alone are not UTF-8: U+FFFD without ensure_ascii (with it, decoded).
          if (ascii && static_cast<unsigned char>(sp) >= 0x80) continue;
          std::string s(len, 'a');
          for (size_t k = 0; k < len; ++k) s[k] = static_cast<char>('a' + k % 26);
          s[pos] = sp;
          std::string out;
          append_json_string(out, s, ascii);
          ASSERT_EQ(out, reference(s, ascii)) << "len " << len << " pos " << pos;
        }
      }
    }
  }
}

TEST(JsonWriter, FileSinkEqualsStringSink) {
  std::string expected;
  {
    JsonWriter w(&expected, JsonStyle::msprof());
    w.begin_array();
    for (int i = 0; i < 200000; ++i) w.value(i * 0.001);  // crosses the 1 MB flush size
    w.end_array();
  }
  std::string path =
      testing::TempDir() + "/" + std::to_string(::getpid()) + "_cs_json_writer_file.json";
  std::FILE* f = std::fopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  {
    JsonWriter w(f, JsonStyle::msprof());
    w.begin_array();
    for (int i = 0; i < 200000; ++i) w.value(i * 0.001);
    w.end_array();
    w.flush();
    EXPECT_TRUE(w.ok());
  }
  std::fclose(f);
  EXPECT_EQ(slurp(path), expected);
  std::remove(path.c_str());
  EXPECT_EQ(expected, python_redump(expected, "separators=(\",\", \": \")"));
}

// key_plain() writes what key() writes for a key with nothing to escape, in every style, into a
// string and through a file's buffer (past its flush size); and Python reads it back the same.
TEST(JsonWriter, PlainKeysAsKey) {
  const char* keys[] = {
      "Transit Size(MB)", "0", "12-345", "", "Op Name", "a b ~!#$%&'()*+,-./:;<=>?@[]^_`{|}"};
  auto render = [&](JsonWriter& w, bool plain) {
    w.begin_object();
    for (int i = 0; i < 30000; ++i) {
      w.key(std::to_string(i));
      w.begin_object();
      for (const char* k : keys) {
        if (plain)
          w.key_plain(k);
        else
          w.key(k);
        w.value(i * 0.25);
      }
      w.end_object();
    }
    w.end_object();
  };
  for (const JsonStyle& style :
       {JsonStyle::msprof(), JsonStyle::python(), JsonStyle::indented(2)}) {
    std::string expected, got;
    {
      JsonWriter w(&expected, style);
      render(w, false);
      JsonWriter p(&got, style);
      render(p, true);
    }
    EXPECT_EQ(got, expected);
    const std::string path =
        testing::TempDir() + "/" + std::to_string(::getpid()) + "_cs_json_plain_keys.json";
    std::FILE* f = std::fopen(path.c_str(), "wb");
    ASSERT_NE(f, nullptr);
    {
      JsonWriter w(f, style);
      render(w, true);
      w.flush();
      EXPECT_TRUE(w.ok());
    }
    std::fclose(f);
    EXPECT_EQ(slurp(path), expected);
    std::remove(path.c_str());
  }
  std::string small;
  {
    JsonWriter w(&small, JsonStyle::msprof());
    w.begin_object();
    for (const char* k : keys) {
      w.key_plain(k);
      w.value(1);
    }
    w.end_object();
  }
  EXPECT_EQ(small, python_redump(small, "separators=(\",\", \": \")"));
}

TEST(JsonWriter, RawValueAndScalars) {
  std::string out;
  {
    JsonWriter w(&out, JsonStyle::msprof());
    w.begin_object();
    w.key("cached");
    w.raw_value("{\"a\": [1,2]}");
    w.key("n");
    w.value(3);
    w.end_object();
  }
  EXPECT_EQ(out, "{\"cached\": {\"a\": [1,2]},\"n\": 3}");
  std::string top;
  {
    JsonWriter w(&top);
    w.value(0.5);
  }
  EXPECT_EQ(top, "0.5");
}

TEST(JsonWriter, RandomNumbersMatchPython) {
  std::mt19937_64 rng(17);
  std::string out;
  {
    JsonWriter w(&out, JsonStyle::msprof());
    w.begin_array();
    for (int i = 0; i < 5000; ++i) {
      double mag = std::pow(10.0, std::uniform_real_distribution<double>(-10, 20)(rng));
      w.value(mag * std::uniform_real_distribution<double>(-1, 1)(rng));
      w.value(static_cast<int64_t>(rng() >> (rng() % 64)));
    }
    w.end_array();
  }
  EXPECT_EQ(out, python_redump(out, "separators=(\",\", \": \")"));
}

}  // namespace
}  // namespace cs::io
