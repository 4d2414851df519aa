#include "generator/db_export/write_memory_tables.h"

#include <string>

namespace cs::generator {

void write_memory_tables(SqliteFile& db, StringIdTable& ids, const MemoryTrace& m) {
  db.exec(
      "CREATE TABLE OP_MEMORY (name INTEGER, size INTEGER, allocationTime INTEGER, releaseTime "
      "INTEGER, activeReleaseTime INTEGER, duration INTEGER, activeDuration INTEGER, "
      "allocationTotalAllocated INTEGER, allocationTotalReserved INTEGER, allocationTotalActive "
      "INTEGER, releaseTotalAllocated INTEGER, releaseTotalReserved INTEGER, releaseTotalActive "
      "INTEGER, streamPtr INTEGER, deviceId INTEGER);"
      "CREATE TABLE MEMORY_RECORD (component INTEGER, timestamp INTEGER, totalAllocated INTEGER, "
      "totalReserved INTEGER, totalActive INTEGER, streamPtr INTEGER, deviceId INTEGER);"
      "CREATE TABLE NPU_MEM (type INTEGER,ddr NUMERIC,hbm NUMERIC,timestampNs INTEGER,deviceId "
      "INTEGER);"
      "CREATE TABLE NPU_MODULE_MEM (moduleId INTEGER,timestampNs INTEGER,totalReserved "
      "NUMERIC,deviceId INTEGER);"
      "CREATE TABLE ENUM_MODULE (id INTEGER PRIMARY KEY,name TEXT);");
  const int64_t stream = 733279888;
  {
    Insert op = db.insert("OP_MEMORY", 15);
    for (const MemoryBlock& b : m.blocks) {
      const bool rel = b.release_ns >= 0;
      const SqlValue none;
      op.row({ids.id(b.op), b.bytes, b.alloc_ns, rel ? SqlValue(b.release_ns) : none,
              rel ? SqlValue(b.release_ns) : none, rel ? SqlValue(b.release_ns - b.alloc_ns) : none,
              rel ? SqlValue(b.release_ns - b.alloc_ns) : none, b.alloc_allocated, b.alloc_reserved,
              b.alloc_allocated, rel ? SqlValue(b.release_allocated) : none,
              rel ? SqlValue(b.release_reserved) : none, rel ? SqlValue(b.release_allocated) : none,
              stream, m.device});
    }
  }
  {
    Insert rec = db.insert("MEMORY_RECORD", 7);
    const int64_t pta = ids.id("PTA"), both = ids.id("PTA+GE"), ge = ids.id("GE");
    rec.row({ge, m.ge_t_ns, m.ge_allocated, m.ge_reserved, m.ge_allocated, stream, m.device});
    rec.row({both, m.ge_t_ns, m.ge_allocated, m.ge_reserved, m.ge_allocated, stream, m.device});
    for (const PoolSample& s : m.pta) {
      rec.row({pta, s.t_ns, s.allocated, s.reserved, s.allocated, stream, m.device});
      rec.row({both, s.t_ns, s.allocated + m.ge_allocated, s.reserved + m.ge_reserved,
               s.allocated + m.ge_allocated, stream, m.device});
    }
  }
  {
    Insert npu = db.insert("NPU_MEM", 5);
    const int64_t app = ids.id("app");
    for (const PoolSample& a : m.app) npu.row({app, int64_t{0}, a.reserved, a.t_ns, m.device});
  }
  {
    const auto& modules = memory_modules();
    Insert en = db.insert("ENUM_MODULE", 2);
    for (size_t k = 0; k < modules.size(); ++k) en.row({static_cast<int64_t>(k), modules[k]});
    Insert mod = db.insert("NPU_MODULE_MEM", 4);
    for (size_t k = 0; k < modules.size(); ++k)
      for (const PoolSample& a : m.app)
        mod.row({static_cast<int64_t>(k), a.t_ns, module_reserved(k, a.reserved - 700 * 1048576),
                 m.device});
  }
}

}  // namespace cs::generator
