#pragma once
// A tiny HTML/SVG emitter that cannot produce unbalanced markup: every open() is matched by a
// close() that pops the tag it opened, and all text goes through html_escape. Used by the
// cluster and compare reports (self-contained files: inline CSS and SVG, no scripts).
//
//   HtmlOut h;
//   h.open("p", attr("class", "note"));
//   h.text("ranks < 8 & slow");   // -> ranks &lt; 8 &amp; slow
//   h.close();                    // -> </p>

#include <string>
#include <string_view>
#include <vector>

#include "io/diagnostics.h"

namespace cs::report {

// Escapes &, <, >, " and ' for use in element text and attribute values; drops bytes that are
// not allowed in HTML (control characters other than tab, CR, LF).
// Example: html_escape("a<b & \"c\"") == "a&lt;b &amp; &quot;c&quot;".
std::string html_escape(std::string_view s);

// One attribute with an escaped value, with a leading space: attr("title", "x<y") ==
// " title=\"x&lt;y\"". Concatenate several: attr("x", "1") + attr("y", "2").
std::string attr(std::string_view name, std::string_view value);
// Numeric attribute with at most 2 decimals, trailing zeros dropped: attr("x", 1.50) == "
// x=\"1.5\"".
std::string attr(std::string_view name, double value);

class HtmlOut {
 public:
  // <tag attrs>; `attrs` is raw (build it with attr()).
  void open(std::string_view tag, std::string_view attrs = {});
  // Closes the innermost open tag.
  void close();
  // Closes tags until `depth()` equals `d` (for early returns out of nested sections).
  void close_to(size_t d);
  // <tag attrs/> — for SVG shapes (rect, line, circle, path).
  void empty(std::string_view tag, std::string_view attrs = {});
  // <tag attrs>escaped text</tag>.
  void element(std::string_view tag, std::string_view attrs, std::string_view text);
  void text(std::string_view s);
  // Appended as is: only for constant markup and CSS written by this library.
  void raw(std::string_view s) { out_ += s; }

  size_t depth() const { return stack_.size(); }
  const std::string& str() const { return out_; }
  // The finished document; closes any tag left open.
  std::string finish();

 private:
  std::string out_;
  std::vector<std::string> stack_;
};

// Writes `content` to `path` through "<path>.tmp" and a rename, so a reader never sees a half
// file. Returns false with an error in `diag` (file, what, what to do) when it cannot.
bool write_text_file(const std::string& path, std::string_view content, io::Diagnostics& diag);

}  // namespace cs::report
