#pragma once
// A hash for std::string-keyed unordered containers that also takes std::string_view, so a
// lookup by a view builds no std::string. Use with std::equal_to<>:
//   std::unordered_map<std::string, int, io::TextHash, std::equal_to<>> m;
//   m.find(std::string_view("step1"));

#include <cstddef>
#include <functional>
#include <string_view>

namespace cs::io {

struct TextHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

}  // namespace cs::io
