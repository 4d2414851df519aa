#include "top/top_megengine.h"

#include <cmath>

#include "report/display_format.h"

namespace cs::top {

void calls_from_megengine(const readers::MegEngineProfile& p, std::vector<OpCall>& out,
                          MegEngineTime which) {
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  for (const auto& op : p.ops) {
    const double s = which.host ? (which.kern ? op.host_kern_s : op.host_s)
                                : (which.kern ? op.device_kern_s : op.device_s);
    if (s < 0) continue;  // profile_analyze leaves out operators without that time
    OpCall c;
    c.name = op.name;
    c.type = op.type;
    c.input_shapes = op.in_shapes;
    c.input_dtypes = op.in_dtypes;
    c.output_shapes = op.out_shapes;
    c.dur_us = s * 1e6;
    c.flops = op.computation >= 0 ? op.computation : kNaN;
    c.bytes = op.memory >= 0 ? op.memory : kNaN;
    out.push_back(std::move(c));
  }
}

bool megengine_calls(const std::string& path, const readers::MegEngineProfile& p,
                     MegEngineTime which, std::vector<OpCall>& out, io::Diagnostics& diag) {
  const size_t before = out.size();
  calls_from_megengine(p, out, which);
  if (out.size() > before) return true;
  const std::string side = which.host ? "host" : "device";
  diag.error(path, 0,
             "MegEngine profile with " + std::to_string(p.ops.size()) + " operators and no " +
                 side + " time (profiler." + side + " is empty or has no numeric start/" +
                 (which.kern ? "kern" : "end") + ")",
             which.host ? "profile the graph with host profiling on"
                        : "profile the graph on a device (trace(profiling=True) runs it with the "
                          "device profiler)");
  return false;
}

bool load_megengine_profile(const std::string& path, std::vector<OpCall>& out,
                            io::Diagnostics& diag) {
  readers::MegEngineProfile p;
  if (!readers::read_megengine_profile(path, p, diag)) return false;
  return megengine_calls(path, p, {}, out, diag);
}

MegEngineSummary megengine_summary(const readers::MegEngineProfile& p, const TopOptions& filters) {
  MegEngineSummary s;
  bool device = false, host = false;
  for (const auto& op : p.ops) {
    device = device || op.device_s >= 0;
    host = host || op.host_s >= 0;
  }
  if (device) s.device_us = p.total_device_s * 1e6;
  if (host) s.host_us = p.total_host_s * 1e6;
  std::vector<OpCall> ends, kerns;
  calls_from_megengine(p, ends);
  calls_from_megengine(p, kerns, {.host = false, .kern = true});
  for (const auto& c : ends)
    if (c.type == "Copy" && passes_filters(c, filters)) ++s.copies, s.copy_us += c.dur_us;
  for (const auto& c : kerns)
    if (c.type == "Copy" && passes_filters(c, filters)) s.copy_wait_us += c.dur_us;
  return s;
}

std::string format_megengine_summary(const MegEngineSummary& s, bool copy_time) {
  const auto time = [](double us) {
    return std::isfinite(us) ? report::fmt_us(us) : std::string("N/A");
  };
  std::string out = "total device time  " + time(s.device_us) + "\n" + "total host time    " +
                    time(s.host_us) + "\n";
  if (!copy_time) return out;
  const auto tot_avg = [&](double sum) {
    if (s.copies == 0) return std::string("N/A (no Copy operator passed the filters)");
    return "tot=" + time(sum) + " avg=" + time(sum / static_cast<double>(s.copies)) + " over " +
           std::to_string(s.copies) + " Copy operators";
  };
  out += "copy time          " + tot_avg(s.copy_us) + "\n";
  out += "copy wait time     " + tot_avg(s.copy_wait_us) + "\n";
  return out;
}

}  // namespace cs::top
