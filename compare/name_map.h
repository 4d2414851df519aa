#pragma once
// --op-name-map FILE: operators renamed between the two sides, as a JSON object
// {"name on one side": "name on the other", ...}. Applied to both sides, so either order works.
//
//   NameMap m; if (!read_name_map("map.json", m, diag)) ...;   m.canonical("aten::npu_x") ...

#include <string>
#include <string_view>
#include <unordered_map>

#include "io/diagnostics.h"

namespace cs::compare {

class NameMap {
 public:
  void add(std::string from, std::string to) { map_[std::move(from)] = std::move(to); }
  // The name both sides are compared under. Example: with {"A": "B"}, canonical("A") == "B",
  // canonical("B") == "B", canonical("C") == "C".
  std::string_view canonical(std::string_view name) const {
    auto it = map_.find(std::string(name));
    return it == map_.end() ? name : std::string_view(it->second);
  }
  size_t size() const { return map_.size(); }

 private:
  std::unordered_map<std::string, std::string> map_;
};

// Reads the JSON object file. False with an error (file, line, byte offset, hint) when the file is
// missing, not JSON, not an object, or a value is not a string.
bool read_name_map(const std::string& path, NameMap& out, io::Diagnostics& diag);
bool parse_name_map(std::string_view json, const std::string& source, NameMap& out,
                    io::Diagnostics& diag);

}  // namespace cs::compare
