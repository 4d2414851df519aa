// Harness: MegEngine's static-graph profile (first byte even) or its chrome_timeline.json (odd),
// through the readers `top` and `compare` call, then what `top` makes of them: the profile's
// device / host and end / kern calls, profile_analyze's summary and a filtered, aggregated table;
// the timeline's calls (kernels linked to their ops). The rest of the input is the file.
#include "fuzz/harnesses.h"
#include "fuzz/temp_input.h"
#include "readers/megengine_profile.h"
#include "readers/megengine_timeline.h"
#include "readers/trace_content.h"
#include "top/top_megengine.h"
#include "top/top_profile.h"
#include "top/top_table.h"

namespace cs::fuzz {

int megengine(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  io::Diagnostics diag;
  if ((data[0] & 1) == 0) {
    const std::string& path = write_temp_input("model.profile.json", data + 1, size - 1);
    readers::MegEngineProfile p;
    if (!readers::read_megengine_profile(path, p, diag)) return 0;
    std::vector<top::OpCall> calls;
    for (bool host : {false, true})
      for (bool kern : {false, true}) top::calls_from_megengine(p, calls, {host, kern});
    top::TopOptions o;
    o.aggregate_by = (data[0] & 2) ? top::TopOptions::By::kAll : top::TopOptions::By::kType;
    o.aggregate =
        (data[0] & 4) ? top::TopOptions::Aggregate::kMin : top::TopOptions::Aggregate::kMean;
    o.input_dtype = "Float32";
    o.name_regex.emplace("c");
    const top::MegEngineSummary s = top::megengine_summary(p, o);
    (void)top::format_megengine_summary(s, true);
    o.share_total_us = s.device_us;
    (void)top::top_table(calls, o);
  } else {
    const std::string& path = write_temp_input("run.chrome_timeline.json", data + 1, size - 1);
    readers::Trace t;
    if (!readers::read_megengine_timeline(path, t, diag)) return 0;
    (void)readers::trace_content(t);
    std::vector<top::OpCall> calls;
    top::calls_from_trace(t, calls);
  }
  return 0;
}

}  // namespace cs::fuzz
