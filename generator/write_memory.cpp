// The memory files of a simulated rank (generator/memory_model.h), text and DB, in torch_npu's
// shapes: operator_memory.csv and memory_record.csv with CRLF lines and timestamps ending in a
// TAB, sizes in KB and totals in MB; the DB's OP_MEMORY, MEMORY_RECORD, NPU_MEM, NPU_MODULE_MEM in
// bytes and ns with names in STRING_IDS (modules in ENUM_MODULE).
#include <string>

#include "generator/memory_model.h"
#include "generator/sqlite_writer.h"
#include "io/py_format.h"

namespace cs::generator {

namespace {

constexpr const char* kStreamPtr = "897357296";

// ns -> "1736408883694624.810\t"
void put_us(std::string& out, int64_t ns) {
  out += std::to_string(ns / 1000);
  out += '.';
  const int64_t f = ns % 1000;
  out += static_cast<char>('0' + f / 100);
  out += static_cast<char>('0' + f / 10 % 10);
  out += static_cast<char>('0' + f % 10);
  out += '\t';
}

std::string mb(int64_t bytes) {
  return io::py_repr(static_cast<double>(bytes) / 1048576.0);
}

std::string device(const MemoryTrace& m) {
  return "NPU:" + std::to_string(m.device);
}

}  // namespace

std::string render_operator_memory_csv(const MemoryTrace& m) {
  std::string out =
      "Name,Size(KB),Allocation Time(us),Release Time(us),Active Release Time(us),Duration(us),"
      "Active Duration(us),Allocation Total Allocated(MB),Allocation Total Reserved(MB),"
      "Allocation Total Active(MB),Release Total Allocated(MB),Release Total Reserved(MB),"
      "Release Total Active(MB),Stream Ptr,Device Type\r\n";
  const std::string dev = device(m);
  for (const MemoryBlock& b : m.blocks) {
    out += b.op;
    out += ',';
    out += io::py_repr(static_cast<double>(b.bytes) / 1024.0);
    out += ',';
    put_us(out, b.alloc_ns);
    out += ',';
    if (b.release_ns >= 0) {
      put_us(out, b.release_ns);
      out += ',';
      put_us(out, b.release_ns);
      out += ',';
      put_us(out, b.release_ns - b.alloc_ns);
      out += ',';
      put_us(out, b.release_ns - b.alloc_ns);
      out += ',';
    } else {
      out += ",,,,";
    }
    out += mb(b.alloc_allocated) + ',' + mb(b.alloc_reserved) + ',' + mb(b.alloc_allocated) + ',';
    if (b.release_ns >= 0)
      out += mb(b.release_allocated) + ',' + mb(b.release_reserved) + ',' +
             mb(b.release_allocated) + ',';
    else
      out += ",,,";
    out += kStreamPtr;
    out += ',' + dev + "\r\n";
  }
  return out;
}

std::string render_memory_record_csv(const MemoryTrace& m) {
  std::string out =
      "Component,Timestamp(us),Total Allocated(MB),Total Reserved(MB),Total Active(MB),Stream "
      "Ptr,Device Type\r\n";
  const std::string dev = device(m);
  for (const PoolSample& a : m.app) {
    out += "APP,";
    put_us(out, a.t_ns);
    out += ",," + mb(a.reserved) + ",,," + dev + "\r\n";
  }
  auto row = [&](const char* comp, int64_t t, int64_t alloc, int64_t res) {
    out += comp;
    out += ',';
    put_us(out, t);
    out +=
        ',' + mb(alloc) + ',' + mb(res) + ',' + mb(alloc) + ',' + kStreamPtr + ',' + dev + "\r\n";
  };
  row("GE", m.ge_t_ns, m.ge_allocated, m.ge_reserved);
  for (const PoolSample& s : m.pta) row("PTA", s.t_ns, s.allocated, s.reserved);
  // PTA+GE: the sum at every event of either (GE's record comes first in time).
  row("PTA+GE", m.ge_t_ns, m.ge_allocated, m.ge_reserved);
  for (const PoolSample& s : m.pta)
    row("PTA+GE", s.t_ns, s.allocated + m.ge_allocated, s.reserved + m.ge_reserved);
  return out;
}

std::string render_npu_module_mem_csv(const MemoryTrace& m) {
  std::string out = "Component,Timestamp(us),Total Reserved(MB),Device\n";
  const std::string dev = device(m);
  const auto& modules = memory_modules();
  for (size_t k = 0; k < modules.size(); ++k)
    for (const PoolSample& a : m.app) {
      out += modules[k] + ',';
      put_us(out, a.t_ns);
      out += ',' + mb(module_reserved(k, a.reserved - 700 * 1048576)) + ',' + dev + '\n';
    }
  return out;
}

void write_memory_truth(io::JsonWriter& w, const GeneratorOptions& o) {
  if (!o.writes_memory()) return;
  w.key("memory");
  w.begin_object();
  w.key("imbalance");
  w.begin_array();
  for (const auto& m : o.memory_imbalance) {
    w.begin_object();
    w.key("rank");
    w.value(io::Num::integer(m.rank));
    w.key("gb");
    w.value(m.gb);
    w.end_object();
  }
  w.end_array();
  w.key("leak");
  w.begin_array();
  for (const auto& m : o.memory_leak) {
    w.begin_object();
    w.key("rank");
    w.value(io::Num::integer(m.rank));
    w.key("mb_per_step");
    w.value(m.mb_per_step);
    w.end_object();
  }
  w.end_array();
  if (o.memory_capacity_gb > 0) {
    w.key("capacity_gb");
    w.value(io::Num::integer(o.memory_capacity_gb));
  }
  w.end_object();
}

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
