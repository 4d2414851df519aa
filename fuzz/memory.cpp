// Harness: the memory readers (memory/) a rank's parse calls with -m all / diagnosis.
// First byte even: torch_npu's / CANN's text files; the rest of the input is split at each "\0\0"
// into memory_record.csv, operator_memory.csv, npu_module_mem.csv and static_op_mem.csv (every
// file written or, when its part is empty or missing, removed each time, so no input depends on
// the one before), read by read_memory_text. Odd: the rest is a profiler database
// (ascend_pytorch_profiler_N.db or msprof_*.db: MEMORY_RECORD / OP_MEMORY / NPU_MEM /
// NPU_MODULE_MEM / NPU_OP_MEM / NPU_INFO) read by read_memory_db. Then the summary's MPI packing,
// which must give the summary back.
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>

#include "db/database.h"
#include "fuzz/harnesses.h"
#include "fuzz/temp_input.h"
#include "memory/memory_db.h"
#include "memory/memory_text.h"

namespace cs::fuzz {

namespace {

void check_packing(const memory::RankMemory& m) {
  io::ByteWriter w;
  m.pack(w);
  io::ByteReader r(w.data());
  if (!(memory::RankMemory::unpack(r) == m)) std::abort();
}

}  // namespace

int memory(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  io::Diagnostics diag;
  const std::vector<memory::StepRange> steps = {{1, 0, 2'000'000'000'000'000'000}};
  if ((data[0] & 1) == 0) {
    const std::string_view rest(reinterpret_cast<const char*>(data + 1), size - 1);
    static const char* const kNames[] = {"memory_record.csv", "operator_memory.csv",
                                         "npu_module_mem.csv", "static_op_mem.csv"};
    size_t at = 0;
    std::string dir;
    for (const char* name : kNames) {
      const size_t end =
          at <= rest.size() ? rest.find(std::string_view("\0\0", 2), at) : std::string_view::npos;
      const std::string_view part =
          at >= rest.size() ? std::string_view()
                            : rest.substr(at, end == std::string_view::npos ? rest.npos : end - at);
      const std::string& path =
          write_temp_input(name, reinterpret_cast<const uint8_t*>(part.data()), part.size());
      dir = path.substr(0, path.rfind('/'));
      if (part.empty()) {
        std::error_code ec;
        std::filesystem::remove(path, ec);
      }
      at = end == std::string_view::npos ? rest.size() + 1 : end + 2;
    }
    if (auto m = memory::read_memory_text(dir, steps, diag)) check_packing(*m);
  } else {
    const std::string& path = write_temp_input("msprof_1.db", data + 1, size - 1);
    if (auto db = db::Database::open(path, diag))
      if (auto m = memory::read_memory_db(*db, steps, diag)) check_packing(*m);
  }
  return 0;
}

}  // namespace cs::fuzz
