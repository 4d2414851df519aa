// TableRows::decode and decode_picked: a checked row's values (see page_database.h).

#include <algorithm>
#include <bit>

#include "io/sqlite/page_database.h"
#include "io/sqlite/record_values.h"

namespace cs::io::sqlite {

namespace {

// Sets v's kind and value from a value of serial type `type` taking `size` bytes at `b` (the
// other fields are left as they are).
void set_value(uint64_t type, uint64_t size, const unsigned char* b, StoredValue& v) {
  if (type == 0) {
    v.kind = StoredValue::Kind::kNull;
  } else if (type <= 6) {
    uint64_t u = 0;
    for (size_t i = 0; i < size; ++i) u = (u << 8) | b[i];
    if (size < 8 && (u >> (8 * size - 1)) & 1) u |= ~uint64_t{0} << (8 * size);  // sign
    v.kind = StoredValue::Kind::kInt;
    v.i = static_cast<int64_t>(u);
  } else if (type == 7) {
    uint64_t u = 0;
    for (size_t i = 0; i < 8; ++i) u = (u << 8) | b[i];
    v.kind = StoredValue::Kind::kReal;
    v.r = std::bit_cast<double>(u);
  } else if (type == 8 || type == 9) {
    v.kind = StoredValue::Kind::kInt;
    v.i = static_cast<int64_t>(type - 8);
  } else {
    v.kind = type & 1 ? StoredValue::Kind::kText : StoredValue::Kind::kBlob;
    v.bytes = std::string_view(reinterpret_cast<const char*>(b), size);
  }
}

// Decodes the first `limit` values of record [p, p + n), checked by check_record, into
// out[0..columns) (NULL for the values the record does not have and those past `limit`).
void decode_record(const unsigned char* p, size_t n, size_t columns, size_t limit,
                   std::vector<StoredValue>& out) {
  out.resize(columns);
  uint64_t header = 0;
  size_t at = varint_at(p, p + n, header);
  size_t body = header;
  size_t c = 0;
  limit = std::min(limit, columns);
  while (at < header && c < limit) {
    uint64_t type = 0, size = 0;
    at += varint_at(p + at, p + header, type);
    value_size(type, size);
    set_value(type, size, p + body, out[c++]);
    body += size;
  }
  for (; c < columns; ++c) out[c].kind = StoredValue::Kind::kNull;
}

}  // namespace

void TableRows::decode(size_t r, std::vector<StoredValue>& out, size_t limit) const {
  const Row& row = rows_[r];
  const size_t n = table_->columns.size();
  decode_record(row.payload, row.size, n, limit, out);  // checked when the rows were collected
  for (size_t c = 0; c < std::min(n, limit); ++c) {
    StoredValue& v = out[c];
    if (v.kind == StoredValue::Kind::kInt && table_->affinity[c] == Affinity::kReal) {
      v.kind = StoredValue::Kind::kReal;
      v.r = static_cast<double>(v.i);
    }
  }
  if (table_->rowid_column >= 0) {
    StoredValue& v = out[static_cast<size_t>(table_->rowid_column)];
    v = StoredValue{};
    v.kind = StoredValue::Kind::kInt;
    v.i = row.rowid;
  }
}

void TableRows::decode_picked(size_t r, const std::vector<int>& pick,
                              std::vector<StoredValue>& out) const {
  const Row& row = rows_[r];
  const unsigned char* p = row.payload;
  const size_t n = table_->columns.size();
  int last = -1;
  for (const int c : pick) last = std::max(last, c);
  // Where each value up to the last one picked starts, and its serial type (the record was
  // checked by check_record when the rows were collected).
  constexpr size_t kMaxAt = 64;
  if (static_cast<size_t>(last + 1) > kMaxAt) {  // a very wide table: decode it all
    thread_local std::vector<StoredValue> all;
    decode(r, all, static_cast<size_t>(last + 1));
    out.resize(pick.size());
    for (size_t k = 0; k < pick.size(); ++k) {
      if (pick[k] >= 0) {
        out[k] = all[static_cast<size_t>(pick[k])];
      } else {
        out[k] = StoredValue{};
        out[k].kind = StoredValue::Kind::kInt;
        out[k].i = row.rowid;
      }
    }
    return;
  }
  uint64_t types[kMaxAt];
  size_t starts[kMaxAt];
  uint64_t header = 0;
  size_t at = varint_at(p, p + row.size, header);
  size_t body = header, values = 0;
  while (at < header && values <= static_cast<size_t>(last)) {
    uint64_t type = 0, size = 0;
    at += varint_at(p + at, p + header, type);
    value_size(type, size);
    types[values] = type;
    starts[values++] = body;
    body += size;
  }
  out.resize(pick.size());
  for (size_t k = 0; k < pick.size(); ++k) {
    StoredValue& v = out[k];
    v = StoredValue{};
    const int c = pick[k];
    if (c < 0 || c == table_->rowid_column) {
      v.kind = StoredValue::Kind::kInt;
      v.i = row.rowid;
      continue;
    }
    const size_t col = static_cast<size_t>(c);
    if (col >= n || col >= values) continue;  // NULL: a value the record does not have
    const uint64_t type = types[col];
    uint64_t size = 0;
    value_size(type, size);
    set_value(type, size, p + starts[col], v);
    if (v.kind == StoredValue::Kind::kInt && table_->affinity[col] == Affinity::kReal) {
      v.kind = StoredValue::Kind::kReal;
      v.r = static_cast<double>(v.i);
    }
  }
}

}  // namespace cs::io::sqlite
