#pragma once
// torch_npu's operator_details.csv (ASCEND_PROFILER_OUTPUT/, text export): one row per operator
// call with "Name", "Host Self Duration(us)", "Host Total Duration(us)", "Device Self
// Duration(us)", "Device Total Duration(us)" (Input Shapes and Call Stack span lines inside
// quotes). Summed per name: the producer's own per-operator summary, which host_ops.csv agrees
// with (tests/host).

#include <map>
#include <string>

#include "io/diagnostics.h"

namespace cs::host {

struct OperatorDetailsSum {
  int64_t calls = 0;
  double host_self_us = 0;
  double host_total_us = 0;
  double device_self_us = 0;
  double device_total_us = 0;
};

// Reads and sums `path` by name. False (an error naming the file) when it cannot be read or
// lacks a needed column; rows with a bad number are counted in one warning and skipped.
bool read_operator_details(const std::string& path, std::map<std::string, OperatorDetailsSum>& out,
                           io::Diagnostics& diag);

}  // namespace cs::host
