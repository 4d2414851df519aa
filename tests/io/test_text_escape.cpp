// Tests of io/text_escape.{h,cpp}: input-derived text cannot act on a terminal or forge a line
// (issue 17, finding 8), and io/diagnostics prints through it.

#include "io/text_escape.h"

#include <gtest/gtest.h>

#include <string>

#include "io/diagnostics.h"

namespace cs::io {
namespace {

TEST(TextEscape, ControlBytesBecomeVisible) {
  EXPECT_EQ(escape_text("a\nb\rc\td"), "a\\nb\\rc\\td");
  EXPECT_EQ(escape_text("\x1b[31mred"), "\\x1b[31mred");
  EXPECT_EQ(escape_text(std::string_view("nul\0x", 5)), "nul\\x00x");
  EXPECT_EQ(escape_text("del\x7f"), "del\\x7f");
  EXPECT_EQ(escape_text("bell\x07"), "bell\\x07");
}

TEST(TextEscape, InvalidUtf8AndC1ControlsAreEscapedValidTextKept) {
  EXPECT_EQ(escape_text("caf\xc3\xa9 \xe4\xb8\xad \xf0\x9f\x98\x80"),
            "caf\xc3\xa9 \xe4\xb8\xad \xf0\x9f\x98\x80");
  EXPECT_EQ(escape_text("a\xff"
                        "b"),
            "a\\xffb");
  EXPECT_EQ(escape_text("\xc3"), "\\xc3");                    // cut short
  EXPECT_EQ(escape_text("\xed\xa0\x80"), "\\xed\\xa0\\x80");  // a surrogate
  EXPECT_EQ(escape_text("\xc2\x9b"
                        "31m"),
            "\\xc2\\x9b31m");                      // U+009B, the 8-bit CSI some terminals obey
  EXPECT_EQ(escape_text("\xc2\xa0"), "\xc2\xa0");  // U+00A0 is printable
}

TEST(TextEscape, EscapedTextIsItsOwnEscapeAndPrintable) {
  const std::string hostile = "dir\x1b[31m\nclusterscope: all good\xff\\x41";
  const std::string once = escape_text(hostile);
  EXPECT_EQ(escape_text(once), once);
  EXPECT_TRUE(is_printable_text(once));
  EXPECT_FALSE(is_printable_text(hostile));
  EXPECT_EQ(once.find('\n'), std::string::npos);
  EXPECT_EQ(once.find('\x1b'), std::string::npos);
}

TEST(TextEscape, DiagnosticLineIsOneEscapedLine) {
  Diagnostic d{Severity::kError,
               "/x/r\x1b[2J\nclusterscope: all good/communication.json",
               3,
               -1,
               "key \"a\nb\" is odd",
               "check\tit"};
  EXPECT_EQ(d.to_string(),
            "/x/r\\x1b[2J\\nclusterscope: all good/communication.json:3: key \"a\\nb\" is odd "
            "\u2014 check\\tit");
}

}  // namespace
}  // namespace cs::io
