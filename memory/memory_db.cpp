#include "memory/memory_db.h"

#include <cmath>
#include <map>
#include <string>

#include "db/string_ids.h"
#include "memory/memory_builder.h"
#include "memory/memory_npu_op_mem.h"

namespace cs::memory {

int64_t chip_capacity(std::string_view chip) {
  constexpr int64_t kGB = int64_t{1} << 30;
  // Public data sheets: Atlas 800T A2 (910B1-B3) 64 GB HBM, 910B4 32 GB, Atlas 900 A3 (9391) 64 GB
  // per die, 910A/910 ProA 32 GB.
  static const std::map<std::string, int64_t, std::less<>> kChips = {
      {"Ascend910B1", 64 * kGB}, {"Ascend910B2", 64 * kGB},    {"Ascend910B3", 64 * kGB},
      {"Ascend910B4", 32 * kGB}, {"Ascend910_9391", 64 * kGB}, {"Ascend910_9392", 64 * kGB},
      {"Ascend910A", 32 * kGB},  {"Ascend910ProA", 32 * kGB},
  };
  auto it = kChips.find(chip);
  return it == kChips.end() ? -1 : it->second;
}

namespace {

// Runs `sql` on `table`, calling `row` per result row; false on an error (in `diag`).
template <typename F>
bool each_row(const db::Database& db, const char* sql, const char* table, io::Diagnostics& diag,
              F&& row) {
  auto st = db.prepare(sql, table, diag);
  if (!st) return false;
  db::StepResult r;
  while ((r = st->step(diag)) == db::StepResult::kRow) row(*st);
  return r == db::StepResult::kDone;
}

std::optional<int64_t> bytes_at(const db::Statement& st, int i) {
  if (auto v = st.int64_at(i)) return v;
  if (auto d = st.double_at(i); d && std::isfinite(*d) && std::fabs(*d) < 9e18)
    return std::llround(*d);
  return std::nullopt;
}

}  // namespace

std::optional<RankMemory> read_memory_db(const db::Database& db,
                                         const std::vector<StepRange>& steps,
                                         io::Diagnostics& diag) {
  // torch_npu: MEMORY_RECORD and OP_MEMORY; CANN msprof: NPU_OP_MEM alone (memory_npu_op_mem.h).
  const bool record = db.has_table("MEMORY_RECORD");
  if (!record && !db.has_table("NPU_OP_MEM")) return std::nullopt;
  if (record && !db.require("MEMORY_RECORD",
                            {"component", "timestamp", "totalAllocated", "totalReserved"}, diag))
    return std::nullopt;
  db::StringIds strings;
  if (!strings.load(db, diag)) return std::nullopt;
  RankMemoryBuilder b(steps);
  int64_t skipped = 0;
  if (!record && !npu_op_mem_records(db, b, diag)) return std::nullopt;
  if (record &&
      !each_row(db, "SELECT component, timestamp, totalAllocated, totalReserved FROM MEMORY_RECORD",
                "MEMORY_RECORD", diag, [&](const db::Statement& st) {
                  const auto c = st.int64_at(0);
                  const auto t = st.int64_at(1);
                  if (!c || !t) {
                    ++skipped;
                    return;
                  }
                  b.record(strings.get_or_empty(*c), *t, bytes_at(st, 2), bytes_at(st, 3));
                }))
    return std::nullopt;
  if (db.has_table("NPU_MEM") &&
      db.require("NPU_MEM", {"type", "ddr", "hbm", "timestampNs"}, diag)) {
    each_row(db, "SELECT type, ddr, hbm, timestampNs FROM NPU_MEM", "NPU_MEM", diag,
             [&](const db::Statement& st) {
               const auto type = st.int64_at(0);
               const auto t = st.int64_at(3);
               if (!type || !t || strings.get_or_empty(*type) != "app") return;
               const int64_t ddr = bytes_at(st, 1).value_or(0);
               const int64_t hbm = bytes_at(st, 2).value_or(0);
               // checked before the sum, which then cannot overflow
               if (!plausible_bytes(ddr) || !plausible_bytes(hbm)) return;
               b.record("APP", *t, std::nullopt, ddr + hbm);
             });
  }
  if (db.has_table("NPU_MODULE_MEM") && db.has_table("ENUM_MODULE") &&
      db.require("NPU_MODULE_MEM", {"moduleId", "timestampNs", "totalReserved"}, diag)) {
    std::map<int64_t, std::string> modules;
    each_row(db, "SELECT id, name FROM ENUM_MODULE", "ENUM_MODULE", diag,
             [&](const db::Statement& st) {
               if (auto id = st.int64_at(0)) modules[*id] = std::string(st.text_at(1));
             });
    each_row(db, "SELECT moduleId, timestampNs, totalReserved FROM NPU_MODULE_MEM",
             "NPU_MODULE_MEM", diag, [&](const db::Statement& st) {
               const auto id = st.int64_at(0);
               const auto t = st.int64_at(1);
               const auto v = bytes_at(st, 2);
               if (!id || !t || !v) return;
               auto it = modules.find(*id);
               b.module(it == modules.end() ? std::to_string(*id) : it->second, *t, *v);
             });
  }
  if (db.has_table("NPU_INFO") && db.has_column("NPU_INFO", "name")) {
    each_row(db, "SELECT name FROM NPU_INFO", "NPU_INFO", diag, [&](const db::Statement& st) {
      const int64_t cap = chip_capacity(st.text_at(0));
      if (cap > 0) b.set_capacity(cap);
    });
  }
  if (!b.end_records()) return std::nullopt;
  if (!record) npu_op_mem_blocks(db, strings, b, diag);
  if (record && db.has_table("OP_MEMORY") &&
      db.require("OP_MEMORY", {"name", "size", "allocationTime", "releaseTime"}, diag)) {
    each_row(db, "SELECT name, size, allocationTime, releaseTime FROM OP_MEMORY", "OP_MEMORY", diag,
             [&](const db::Statement& st) {
               const auto n = st.int64_at(0);
               const auto size = bytes_at(st, 1);
               const auto t = st.int64_at(2);
               if (!n || !size || !t) {
                 ++skipped;
                 return;
               }
               b.block(strings.get_or_empty(*n), *size, *t, st.int64_at(3));
             });
  }
  if (skipped > 0)
    diag.warn(db.path(), 0,
              std::to_string(skipped) +
                  " memory row(s) with a NULL name, time or size in MEMORY_RECORD / OP_MEMORY",
              "the memory figures of this rank leave those rows out");
  return b.finish();
}

}  // namespace cs::memory
