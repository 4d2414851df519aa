#pragma once
// The first key at each level of a JSON text's leading nested objects, read from the raw bytes
// without a parser (a reader decides its layout before it walks the document):
// leading_keys(R"({"a": {"b": [1]}, "c": 2})", 3) == {"a", "b"}. Keys are as written (escapes
// not undone); the chain stops at the first value that is not an object, an empty object, the
// depth asked for, or text that is not JSON.

#include <string_view>
#include <vector>

namespace cs::io {

std::vector<std::string_view> leading_keys(std::string_view text, size_t depth);

}  // namespace cs::io
