#pragma once

#include <string>
#include <string_view>

namespace cs::io {

// Which characters an escape for markup (XML, HTML) rewrites beyond & < >.
struct MarkupEscape {
  bool quote = false;          // " as &quot; (attribute values)
  bool apostrophe = false;     // ' as &#39;
  bool drop_controls = false;  // control characters other than tab, LF, CR, and DEL, dropped
};

// Appends `s` to `out` with & < > (and what `how` asks for) written as character references.
void append_markup_escaped(std::string& out, std::string_view s, MarkupEscape how);

}  // namespace cs::io
