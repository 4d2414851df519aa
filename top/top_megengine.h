#pragma once
// `clusterscope top` on MegEngine's profiles (formats.md §11): the static-graph profile JSON
// gives one call per operator with its device time (the longest end − start over its comp
// nodes), computation (FLOPs), memory (bytes) and in/out shapes exactly as MegEngine measured
// them, so the table is profile_analyze's; the dynamic-graph chrome_timeline.json is read as a
// timeline (readers/megengine_timeline.h) by calls_from_trace.
//
//   std::vector<OpCall> calls; io::Diagnostics diag;
//   if (load_megengine_profile("model.profile.json", calls, diag)) ...

#include <string>
#include <vector>

#include "io/diagnostics.h"
#include "readers/megengine_profile.h"
#include "top/top_profile.h"

namespace cs::report {

// Appends one call per operator of `p` that ran on a device (name, type, device time in µs,
// FLOPs and bytes from the footprint, NaN when unknown, shapes as "{1,3,224,224}, {64,3,7,7}").
void calls_from_megengine(const io::MegEngineProfile& p, std::vector<OpCall>& out);

// Reads the static-graph profile at `path` and appends its calls. False with an error when the
// file is not one or no operator has a device time.
bool load_megengine_profile(const std::string& path, std::vector<OpCall>& out,
                            io::Diagnostics& diag);

}  // namespace cs::report
