// The memory files of a simulated rank (generator/job/memory_model.h), text and DB, in torch_npu's
// shapes: operator_memory.csv and memory_record.csv with CRLF lines and timestamps ending in a
// TAB, sizes in KB and totals in MB; the DB's OP_MEMORY, MEMORY_RECORD, NPU_MEM, NPU_MODULE_MEM in
// bytes and ns with names in STRING_IDS (modules in ENUM_MODULE).
#include <string>

#include "generator/db_export/sqlite_writer.h"
#include "generator/job/memory_model.h"
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

}  // namespace cs::generator
