#pragma once
// Input-derived text (file and directory names, op names, values quoted from a file) made safe
// for a terminal and for a one-line message: a name holding ESC [ 31 m or a newline must neither
// colour the terminal nor forge a second "clusterscope:" line.
//
//   escape_text("a\nb\x1b[31m") == "a\\nb\\x1b[31m"
// io/diagnostics_print's print_message, the one printer of messages, escapes what it prints.

#include <string>
#include <string_view>

namespace cs::io {

// Returns s with every byte that could act on a terminal or break the line written visibly:
// \n, \r and \t as "\n", "\r", "\t"; other bytes below 0x20, 0x7f, the C1 controls U+0080..U+009F
// and bytes that start no valid UTF-8 sequence as "\xNN" (one per byte). Valid UTF-8 text and
// backslashes are kept as they are, so the result of escape_text is its own escape.
std::string escape_text(std::string_view s);
void append_escaped_text(std::string& out, std::string_view s);

// True when s needs no escaping (escape_text(s) == s).
bool is_printable_text(std::string_view s);

}  // namespace cs::io
