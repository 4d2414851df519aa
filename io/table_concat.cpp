#include "io/table_concat.h"

#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace cs::io {

namespace {

template <class T>
void append_all(std::vector<T>& into, std::vector<T>& from) {
  if (into.empty()) {
    into = std::move(from);
    return;
  }
  into.insert(into.end(), std::make_move_iterator(from.begin()),
              std::make_move_iterator(from.end()));
}

// The chunk's codes mapped into `into`'s dictionary, its new values added at the end.
void append_encoded(Column& into, const Column& from) {
  std::unordered_map<std::string, uint32_t> index;  // copies: `into.dict` grows below
  for (uint32_t i = 0; i < into.dict.size(); ++i) index.emplace(into.dict[i], i);
  std::vector<uint32_t> to(from.dict.size());
  for (size_t i = 0; i < from.dict.size(); ++i) {
    const auto [it, added] = index.emplace(from.dict[i], static_cast<uint32_t>(into.dict.size()));
    if (added) into.dict.push_back(from.dict[i]);
    to[i] = it->second;
  }
  into.codes.reserve(into.codes.size() + from.codes.size());
  for (uint32_t c : from.codes) {
    if (c >= to.size()) throw std::runtime_error("append_rows: bad string code");
    into.codes.push_back(to[c]);
  }
}

}  // namespace

void append_rows(Table& into, Table chunk) {
  if (into.columns.size() != chunk.columns.size())
    throw std::runtime_error("append_rows: " + into.name + " and " + chunk.name +
                             " have different columns");
  for (size_t i = 0; i < into.columns.size(); ++i) {
    Column& a = into.columns[i];
    Column& b = chunk.columns[i];
    if (a.name != b.name || a.type != b.type || a.encoded != b.encoded)
      throw std::runtime_error("append_rows: column " + a.name + " of " + into.name +
                               " does not match " + b.name);
  }
  for (size_t i = 0; i < into.columns.size(); ++i) {
    Column& a = into.columns[i];
    Column& b = chunk.columns[i];
    switch (a.type) {
      case ColumnType::kString:
        if (a.encoded)
          append_encoded(a, b);
        else
          append_all(a.strings, b.strings);
        break;
      case ColumnType::kInt:
        append_all(a.ints, b.ints);
        break;
      case ColumnType::kDouble:
        append_all(a.doubles, b.doubles);
        break;
    }
  }
}

}  // namespace cs::io
