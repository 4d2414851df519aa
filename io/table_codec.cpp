#include "io/table_codec.h"

#include <stdexcept>

namespace cs::io {

namespace {

void put_strings(ByteWriter& w, const std::vector<std::string>& v) {
  w.put<uint64_t>(v.size());
  for (const std::string& s : v) w.str(s);
}

size_t strings_size(const std::vector<std::string>& v) {
  size_t n = sizeof(uint64_t);
  for (const std::string& s : v) n += sizeof(uint32_t) + s.size();
  return n;
}

std::vector<std::string> get_strings(ByteReader& r) {
  const auto n = r.get<uint64_t>();
  if (n > r.remaining() / sizeof(uint32_t)) throw std::runtime_error("table codec: bad count");
  std::vector<std::string> v(n);
  for (std::string& s : v) s = r.str();
  return v;
}

// Numbers as one length-prefixed block of their bytes.
template <class T>
void put_numbers(ByteWriter& w, const std::vector<T>& v) {
  w.put<uint64_t>(v.size());
  w.bytes(v.data(), v.size() * sizeof(T));
}

template <class T>
size_t numbers_size(const std::vector<T>& v) {
  return sizeof(uint64_t) + v.size() * sizeof(T);
}

template <class T>
std::vector<T> get_numbers(ByteReader& r) {
  const auto n = r.get<uint64_t>();
  if (n > r.remaining() / sizeof(T)) throw std::runtime_error("table codec: bad count");
  std::vector<T> v(n);
  r.bytes(v.data(), n * sizeof(T));
  return v;
}

}  // namespace

void pack_table_head(const Table& t, ByteWriter& w) {
  w.str(t.name);
  w.put<uint32_t>(static_cast<uint32_t>(t.columns.size()));
}

size_t packed_column_size(const Column& c) {
  size_t n = 2 * sizeof(uint32_t) + c.name.size() + c.unit.size() + 2;
  switch (c.type) {
    case ColumnType::kString:
      n += c.encoded ? numbers_size(c.codes) + strings_size(c.dict) : strings_size(c.strings);
      break;
    case ColumnType::kInt:
      n += numbers_size(c.ints);
      break;
    case ColumnType::kDouble:
      n += numbers_size(c.doubles);
      break;
  }
  return n;
}

void pack_column(const Column& c, ByteWriter& w) {
  w.data().reserve(w.size() + packed_column_size(c));  // never grown twice
  w.str(c.name);
  w.str(c.unit);
  w.put<uint8_t>(static_cast<uint8_t>(c.type));
  w.put<uint8_t>(c.encoded ? 1 : 0);
  switch (c.type) {
    case ColumnType::kString:
      if (c.encoded) {
        put_numbers(w, c.codes);
        put_strings(w, c.dict);
      } else {
        put_strings(w, c.strings);
      }
      break;
    case ColumnType::kInt:
      put_numbers(w, c.ints);
      break;
    case ColumnType::kDouble:
      put_numbers(w, c.doubles);
      break;
  }
}

void pack_table(const Table& t, ByteWriter& w) {
  pack_table_head(t, w);
  for (const Column& c : t.columns) pack_column(c, w);
}

Table unpack_table_head(ByteReader& r, uint32_t& columns) {
  Table t(r.str());
  columns = r.get<uint32_t>();
  return t;
}

void unpack_column(ByteReader& r, Table& t) {
  Column& c = t.columns.emplace_back();
  c.name = r.str();
  c.unit = r.str();
  const auto type = r.get<uint8_t>();
  if (type > static_cast<uint8_t>(ColumnType::kDouble))
    throw std::runtime_error("table codec: bad column type");
  c.type = static_cast<ColumnType>(type);
  c.encoded = r.get<uint8_t>() != 0;
  switch (c.type) {
    case ColumnType::kString:
      if (c.encoded) {
        c.codes = get_numbers<uint32_t>(r);
        c.dict = get_strings(r);
        for (uint32_t code : c.codes)
          if (code >= c.dict.size()) throw std::runtime_error("table codec: bad string code");
      } else {
        c.strings = get_strings(r);
      }
      break;
    case ColumnType::kInt:
      c.ints = get_numbers<int64_t>(r);
      break;
    case ColumnType::kDouble:
      c.doubles = get_numbers<double>(r);
      break;
  }
}

Table unpack_table(ByteReader& r) {
  uint32_t columns = 0;
  Table t = unpack_table_head(r, columns);
  for (uint32_t i = 0; i < columns; ++i) unpack_column(r, t);
  return t;
}

}  // namespace cs::io
