#include "top/top_megengine.h"

#include <limits>

namespace cs::report {

void calls_from_megengine(const io::MegEngineProfile& p, std::vector<OpCall>& out) {
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  for (const auto& op : p.ops) {
    if (op.device_s < 0) continue;  // profile_analyze leaves out operators with no device time
    OpCall c;
    c.name = op.name;
    c.type = op.type;
    c.input_shapes = op.in_shapes;
    c.input_dtypes = op.in_dtypes;
    c.output_shapes = op.out_shapes;
    c.dur_us = op.device_s * 1e6;
    c.flops = op.computation >= 0 ? op.computation : kNaN;
    c.bytes = op.memory >= 0 ? op.memory : kNaN;
    out.push_back(std::move(c));
  }
}

bool load_megengine_profile(const std::string& path, std::vector<OpCall>& out,
                            io::Diagnostics& diag) {
  io::MegEngineProfile p;
  if (!io::read_megengine_profile(path, p, diag)) return false;
  const size_t before = out.size();
  calls_from_megengine(p, out);
  if (out.size() == before) {
    diag.error(path, 0,
               "MegEngine profile with " + std::to_string(p.ops.size()) +
                   " operators and no device time (profiler.device is empty)",
               "profile the graph on a device (trace(profiling=True) runs it with the device "
               "profiler)");
    return false;
  }
  return true;
}

}  // namespace cs::report
