// Harness: MegEngine's static-graph profile (first byte even) or its chrome_timeline.json (odd),
// through the readers `top` and `compare` call, then what they ask of a timeline first. The rest
// of the input is the file.
#include "fuzz/harnesses.h"
#include "fuzz/temp_input.h"
#include "readers/megengine_profile.h"
#include "readers/megengine_timeline.h"
#include "readers/trace_content.h"

namespace cs::fuzz {

int megengine(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  io::Diagnostics diag;
  if ((data[0] & 1) == 0) {
    const std::string& path = write_temp_input("model.profile.json", data + 1, size - 1);
    io::MegEngineProfile p;
    io::read_megengine_profile(path, p, diag);
  } else {
    const std::string& path = write_temp_input("run.chrome_timeline.json", data + 1, size - 1);
    io::Trace t;
    if (io::read_megengine_timeline(path, t, diag)) (void)io::trace_content(t);
  }
  return 0;
}

}  // namespace cs::fuzz
