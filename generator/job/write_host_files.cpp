// The host files torch_npu writes beside trace_view.json, for the same step and from the same
// simulated host (generator/job/host_model.h): operator_details.csv (one row per operator call: the
// DataLoader and one framework operator per kernel, host self = total = its duration, device
// self = total = its kernel's) and api_statistic.csv (the CANN launch calls, one per kernel,
// summed). A host-side reader of these must agree with trace_view.json (tests/analysis).

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "generator/job/host_model.h"
#include "generator/job/kernel_catalog.h"
#include "generator/job/writers.h"

namespace cs::generator {

namespace {

// The kernels of the step trace_view.json holds (the last), in start order.
std::vector<const KernelEvent*> last_step_kernels(const RankTimeline& tl) {
  std::vector<const KernelEvent*> out;
  if (tl.steps.empty()) return out;
  const int step = static_cast<int>(tl.steps.size()) - 1;
  for (const auto& k : tl.kernels)
    if (k.step == step) out.push_back(&k);
  return out;
}

void row(std::string& out, std::string_view name, double host_us, double device_us) {
  out += name;
  out += ",,,";
  for (int i = 0; i < 2; ++i) {
    append_num3(out, host_us);
    out += ',';
  }
  for (int i = 0; i < 4; ++i) {
    append_num3(out, device_us);
    out += i < 3 ? "," : "\n";
  }
}

}  // namespace

std::string render_operator_details_csv(const WriteContext& ctx, int rank, const RankTimeline& tl) {
  std::string out =
      "Name,Input Shapes,Call Stack,Host Self Duration(us),Host Total Duration(us),Device Self "
      "Duration(us),Device Total Duration(us),Device Self Duration With AICore(us),Device Total "
      "Duration With AICore(us)\n";
  const auto kernels = last_step_kernels(tl);
  if (!tl.steps.empty()) {
    const StepSpan& span = tl.steps.back();
    const double end = data_loader_end_us(span, kernels.empty() ? -1.0 : kernels.front()->start_us,
                                          launch_lead_us(ctx.opts, rank));
    if (end > span.start_us) row(out, kDataLoaderOp, end - span.start_us, 0);
  }
  const auto& cat = kernel_catalog();
  for (size_t i = 0; i < kernels.size(); ++i) {
    const KernelEvent& e = *kernels[i];
    const double gap = i + 1 < kernels.size() ? kernels[i + 1]->start_us - e.start_us : 20.0;
    row(out, framework_op_name(cat[e.spec].type), host_op_duration_us(gap),
        static_cast<double>(e.dur_us));
  }
  return out;
}

std::string render_api_statistic_csv(const WriteContext& /*ctx*/, int /*rank*/,
                                     const RankTimeline& tl) {
  std::string out = "Level,API Name,Time(us),Count,Avg(us),Min(us),Max(us),Variance\n";
  const auto kernels = last_step_kernels(tl);
  if (kernels.empty()) return out;
  std::vector<double> d;
  for (size_t i = 0; i < kernels.size(); ++i) {
    const double gap =
        i + 1 < kernels.size() ? kernels[i + 1]->start_us - kernels[i]->start_us : 20.0;
    d.push_back(0.8 * host_op_duration_us(gap));  // the CANN launch: the op's middle 80%
  }
  double sum = 0, mn = d[0], mx = d[0];
  for (double v : d) sum += v, mn = std::min(mn, v), mx = std::max(mx, v);
  const double mean = sum / static_cast<double>(d.size());
  double var = 0;
  for (double v : d) var += (v - mean) * (v - mean);
  var /= static_cast<double>(d.size());
  out += "acl,aclnnLaunch,";
  for (double v : {sum}) append_num3(out, v);
  out += "," + std::to_string(d.size()) + ",";
  append_num3(out, mean);
  out += ',';
  append_num3(out, mn);
  out += ',';
  append_num3(out, mx);
  out += ',';
  append_num3(out, var);
  out += '\n';
  return out;
}

}  // namespace cs::generator
