#include "memory/memory_npu_op_mem.h"

#include <cmath>
#include <map>
#include <string>

namespace cs::memory {

namespace {

// The name of NPU_OP_MEM's time column: timestampNs in newer exports, timestamp in older ones.
const char* time_column(const db::Database& db) {
  return db.has_column("NPU_OP_MEM", "timestampNs") ? "timestampNs" : "timestamp";
}

std::optional<int64_t> bytes_of(const db::Statement& st, int i) {
  if (auto v = st.int64_at(i)) return v;
  if (auto d = st.double_at(i); d && std::isfinite(*d) && std::fabs(*d) < 9e18)
    return std::llround(*d);
  return std::nullopt;
}

template <typename F>
bool each(const db::Database& db, const std::string& sql, io::Diagnostics& diag, F&& row) {
  auto st = db.prepare(sql, "NPU_OP_MEM", diag);
  if (!st) return false;
  db::StepResult r;
  while ((r = st->step(diag)) == db::StepResult::kRow) row(*st);
  return r == db::StepResult::kDone;
}

}  // namespace

bool npu_op_mem_records(const db::Database& db, RankMemoryBuilder& b, io::Diagnostics& diag) {
  const std::string t = time_column(db);
  if (!db.require("NPU_OP_MEM",
                  {"operatorName", "addr", "type", "size", t, "totalAllocate", "totalReserve"},
                  diag))
    return false;
  return each(db, "SELECT " + t + ", totalAllocate, totalReserve FROM NPU_OP_MEM ORDER BY " + t,
              diag, [&](const db::Statement& st) {
                if (auto ts = st.int64_at(0)) b.record("GE", *ts, bytes_of(st, 1), bytes_of(st, 2));
              });
}

void npu_op_mem_blocks(const db::Database& db, const db::StringIds& strings, RankMemoryBuilder& b,
                       io::Diagnostics& diag) {
  // The ids of "allocate" and "release": ENUM_MEMORY where present, else STRING_IDS.
  std::map<int64_t, bool> is_alloc;
  if (db.has_table("ENUM_MEMORY")) {
    each(db, "SELECT id, name FROM ENUM_MEMORY", diag, [&](const db::Statement& st) {
      const auto id = st.int64_at(0);
      if (id && (st.text_at(1) == "allocate" || st.text_at(1) == "release"))
        is_alloc[*id] = st.text_at(1) == "allocate";
    });
  }
  auto kind = [&](int64_t id) -> std::optional<bool> {
    if (auto it = is_alloc.find(id); it != is_alloc.end()) return it->second;
    const std::string_view s = strings.get_or_empty(id);
    if (s == "allocate") return true;
    if (s == "release") return false;
    return std::nullopt;
  };
  struct Open {
    int64_t name = 0, bytes = 0, t = 0;
  };
  std::map<int64_t, Open> open;  // by address: the blocks allocated and not yet released
  int64_t skipped = 0;
  const std::string t = time_column(db);
  each(db, "SELECT operatorName, addr, type, size, " + t + " FROM NPU_OP_MEM ORDER BY " + t, diag,
       [&](const db::Statement& st) {
         const auto name = st.int64_at(0), addr = st.int64_at(1), type = st.int64_at(2),
                    ts = st.int64_at(4);
         const auto size = bytes_of(st, 3);
         const auto k = type ? kind(*type) : std::nullopt;
         if (!addr || !ts || !size || !k || !plausible_bytes(*size)) {
           ++skipped;
           return;
         }
         if (*k) {
           // An address allocated again without a release in between: the older block's
           // release was not captured; it counts as never released.
           if (auto it = open.find(*addr); it != open.end())
             b.block(strings.get_or_empty(it->second.name), it->second.bytes, it->second.t,
                     std::nullopt);
           open[*addr] = Open{name.value_or(-1), std::llabs(*size), *ts};
         } else if (auto it = open.find(*addr); it != open.end()) {
           b.block(strings.get_or_empty(it->second.name), it->second.bytes, it->second.t, *ts);
           open.erase(it);
         }
       });
  for (const auto& [addr, o] : open)
    b.block(strings.get_or_empty(o.name), o.bytes, o.t, std::nullopt);
  if (skipped > 0)
    diag.warn(db.path(), 0,
              std::to_string(skipped) +
                  " NPU_OP_MEM row(s) with a NULL address, time or size, or an unknown type",
              "the blocks of this rank leave those rows out");
}

}  // namespace cs::memory
