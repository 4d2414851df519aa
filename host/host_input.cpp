// Cause names and the classification of host ranges by name (see host_input.h).

#include "host/host_input.h"

#include <string_view>

namespace cs::host {

const char* cause_name(Cause c) {
  switch (c) {
    case Cause::kData:
      return "data";
    case Cause::kCompile:
      return "compile";
    case Cause::kSync:
      return "sync";
    case Cause::kGc:
      return "gc";
    case Cause::kDispatch:
      return "dispatch";
    case Cause::kCount:
      break;
  }
  return "unattributed";
}

Cause cause_of_name(std::string_view name) {
  if (name.starts_with("AscendCL@")) name.remove_prefix(9);
  if (name.find("DataLoader") != std::string_view::npos) return Cause::kData;
  if (name.starts_with("aclopCompile") || name == "opCompile") return Cause::kCompile;
  if (name.starts_with("aclrtSynchronize") || name == "aclrtMemcpy" ||
      name == "aten::_local_scalar_dense" || name == "cudaDeviceSynchronize" ||
      name == "cudaStreamSynchronize")
    return Cause::kSync;
  if (name == "GC" || name.find("gc.collect") != std::string_view::npos) return Cause::kGc;
  return Cause::kCount;
}

}  // namespace cs::host
