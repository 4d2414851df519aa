#include "readers/trace_content.h"

#include <map>

namespace cs::readers {

namespace {

// Categories of accelerator-side work that is not a CUDA/ROCm/NPU kernel.
bool is_other_device_category(std::string_view cat) {
  return cat.starts_with("mtia_") && cat != "mtia_runtime";
}

}  // namespace

TraceContent trace_content(const Trace& t) {
  TraceContent c;
  std::map<std::string_view, uint64_t> other;
  for (const auto& e : t.events) {
    if (e.phase != 'X') continue;
    switch (e.kind) {
      case EventKind::kKernel:
      case EventKind::kMemcpy:
      case EventKind::kMemset:
      case EventKind::kCommunication:
        ++c.device_kernels;
        break;
      case EventKind::kCpuOp:
        ++c.cpu_ops;
        break;
      case EventKind::kOther: {
        const std::string_view cat = t.strings.str(e.cat);
        if (is_other_device_category(cat)) ++other[cat];
        break;
      }
      default:
        break;
    }
  }
  for (const auto& [cat, n] : other) {
    c.other_device += n;
    c.other_device_cats += (c.other_device_cats.empty() ? "" : ", ") + std::string(cat);
  }
  if (c.device_kernels > 0) {
    c.summary = std::to_string(c.device_kernels) + " device kernels, " + std::to_string(c.cpu_ops) +
                " framework ops";
  } else if (c.other_device > 0) {
    c.summary = "accelerator trace whose device work is in " + c.other_device_cats + " (" +
                std::to_string(c.other_device) +
                " events, e.g. Meta MTIA), not in kernel events; " + std::to_string(c.cpu_ops) +
                " framework ops, no device kernels";
    c.hint =
        "clusterscope reads CUDA/ROCm kernels and Ascend tasks, not these device events; open the "
        "trace in a trace viewer (Perfetto) for its device time";
  } else {
    c.summary =
        "CPU-only trace: " + std::to_string(c.cpu_ops) + " framework ops, no device kernels";
    c.hint = "profile with device activities on (ProfilerActivity.CUDA / NPU) to see device time";
  }
  return c;
}

}  // namespace cs::readers
