// Harness: kernel_details.csv (first byte even) or op_statistic.csv (odd), through the readers
// rank_parser calls. The rest of the input is the file.
#include <vector>

#include "fuzz/harnesses.h"
#include "fuzz/temp_input.h"
#include "readers/kernel_details.h"

namespace cs::fuzz {

int kernel_details(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const bool op_statistic = (data[0] & 1) != 0;
  io::Diagnostics diag;
  if (op_statistic) {
    const std::string& path = write_temp_input("op_statistic.csv", data + 1, size - 1);
    std::vector<readers::OpStatisticRow> rows;
    readers::read_op_statistic_csv(path, rows, diag);
  } else {
    const std::string& path = write_temp_input("kernel_details.csv", data + 1, size - 1);
    size_t kernels = 0;
    readers::read_kernel_details_csv(
        path, [&](const readers::KernelRecord&) { ++kernels; }, diag);
  }
  return 0;
}

}  // namespace cs::fuzz
