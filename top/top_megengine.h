#pragma once
// `clusterscope top` on MegEngine's profiles (formats.md §11): the static-graph profile JSON
// gives one call per operator with its device time (the longest end − start over its comp
// nodes), computation (FLOPs), memory (bytes) and in/out shapes exactly as MegEngine measured
// them, so the table is profile_analyze's; the dynamic-graph chrome_timeline.json is read as a
// timeline (readers/megengine_timeline.h) by calls_from_trace.
//
//   std::vector<OpCall> calls; io::Diagnostics diag;
//   if (load_megengine_profile("model.profile.json", calls, diag)) ...
//   MegEngineSummary s = megengine_summary(profile, options);   // profile_analyze's summary
//   std::fputs(format_megengine_summary(s, true).c_str(), stdout);

#include <limits>
#include <string>
#include <vector>

#include "io/diagnostics.h"
#include "readers/megengine_profile.h"
#include "top/top_profile.h"
#include "top/top_table.h"

namespace cs::top {

// Which of an operator's times a call carries (profile_analyze's table kind and --top-end-key).
struct MegEngineTime {
  bool host = false;  // the host threads' times instead of the comp nodes'
  bool kern = false;  // kern − start (waiting for inputs) instead of end − start
};

// Appends one call per operator of `p` that has the chosen time (name, type, time in µs as the
// longest over its comp nodes or threads, FLOPs and bytes from the footprint, NaN when unknown,
// shapes as "{1,3,224,224}, {64,3,7,7}", input dtypes "Float32;Float32").
void calls_from_megengine(const readers::MegEngineProfile& p, std::vector<OpCall>& out,
                          MegEngineTime which = {});

// calls_from_megengine, false with an error naming `path` when no operator has that time.
bool megengine_calls(const std::string& path, const readers::MegEngineProfile& p,
                     MegEngineTime which, std::vector<OpCall>& out, io::Diagnostics& diag);

// Reads the static-graph profile at `path` and appends its calls. False with an error when the
// file is not one or no operator has a device time.
bool load_megengine_profile(const std::string& path, std::vector<OpCall>& out,
                            io::Diagnostics& diag);

// profile_analyze's summary block. Totals are over every operator (filters ignored), NaN when no
// operator has that time ("N/A"); the copy figures are over the operators of type "Copy" that
// pass the options' type / name / dtype filters (not the time window), by end − start (copy
// time) and kern − start (copy wait time).
struct MegEngineSummary {
  static constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  double device_us = kNaN;  // total device time: Σ over operators of max end − start
  double host_us = kNaN;    // total host time
  size_t copies = 0;        // Copy operators counted
  double copy_us = 0, copy_wait_us = 0;  // their sums
};
MegEngineSummary megengine_summary(const readers::MegEngineProfile& p, const TopOptions& filters);

// The block as text: "total device time  7.00 ms", "total host time ...", and with `copy_time`
// "copy time  tot=... avg=..." and "copy wait time  tot=... avg=..." ("N/A" when nothing).
std::string format_megengine_summary(const MegEngineSummary& s, bool copy_time);

}  // namespace cs::top
