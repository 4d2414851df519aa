#pragma once
// MegEngine's static-graph profile: the JSON a traced function with profiling on
// (`trace(profiling=True)` + `get_profile()`) or load_and_run `--profile` writes, and which
// `python3 -m megengine.tools.profile_analyze` reads (formats.md §11):
//
//   {"graph_exec": {"operator": {"<id>": {"id", "name", "type", "input": [var ids],
//                                         "output": [var ids]}, ...},
//                   "var": {"<id>": {"mem_plan": {"layout": {"dtype": "Float32"}}}, ...}},
//    "profiler": {"device": {"<opr id>": {"<comp node>": {"start", "kern", "end"}}},
//                 "host":   {"<opr id>": {"<thread>":    {"start", "kern", "end"}}},
//                 "opr_footprint": {"<opr id>": {"computation", "memory",
//                                                "in_shapes", "out_shapes"}}}}
//
// Times are seconds from the start of the run. An operator's device time is the longest
// end − start over its comp nodes (profile_analyze's default `--top-end-key end` with np.max);
// computation is FLOPs (null or 0 when unknown), memory the bytes of its inputs and outputs.
//
//   MegEngineProfile p; Diagnostics diag;
//   if (read_megengine_profile("model.profile.json", p, diag)) for (auto& op : p.ops) ...

#include <string>
#include <vector>

#include <simdjson.h>

#include "io/diagnostics.h"

namespace cs::readers {

// One operator of the executed graph with what the profiler measured for it.
struct MegEngineOperator {
  std::string id;             // "12"
  std::string name;           // "conv1.conv2d"
  std::string type;           // "ConvolutionForward"
  double device_s = -1;       // max over comp nodes of end − start; -1 when not on a device
  double device_kern_s = -1;  // max over comp nodes of kern − start (time waiting for inputs)
  double host_s = -1;         // max over threads of end − start; -1 when not measured
  double host_kern_s = -1;    // max over threads of kern − start
  double computation = -1;    // FLOPs; -1 when unknown (null or 0 in the file)
  double memory = -1;         // bytes read and written; -1 when unknown
  std::string in_shapes;      // "{1,3,224,224}, {64,3,7,7}" as profile_analyze prints them
  std::string out_shapes;     // "{1,64,112,112}"
  std::string in_dtypes;      // "Float32;Float32" from the input vars' layouts ("" unknown)
};

struct MegEngineProfile {
  std::vector<MegEngineOperator> ops;  // sorted by numeric id (execution order)
  double total_device_s = 0;           // sum of device_s over the ops that have one
  double total_host_s = 0;             // sum of host_s over the ops that have one
};

// Reads a static-graph profile (.json or .json.gz). False with an error (file, what to do) when
// it is not one; a member of the wrong type is skipped with one warning giving the count.
bool read_megengine_profile(const std::string& path, MegEngineProfile& out, io::Diagnostics& diag);
// Same, from JSON text in memory; `source` names it in diagnostics.
bool parse_megengine_profile(const simdjson::padded_string& json, const std::string& source,
                             MegEngineProfile& out, io::Diagnostics& diag);

}  // namespace cs::readers
