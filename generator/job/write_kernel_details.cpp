// kernel_details.csv and op_statistic.csv of one rank (docs/formats.md §4), with the producer's
// quirks: Start Time cells are quoted and end in a TAB, shapes are wrapped in doubled quotes,
// missing values are N/A.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <string_view>
#include <vector>

#include "generator/job/kernel_catalog.h"
#include "generator/job/write_moe.h"
#include "generator/job/writers.h"

namespace cs::generator {

namespace {

constexpr std::string_view kHeader =
    "Step Id,Model ID,Task ID,Stream ID,Name,Type,OP State,Accelerator Core,Start Time(us),"
    "Duration(us),Wait Time(us),Block Dim,Mix Block Dim,HF32 Eligible,Input Shapes,Input Data "
    "Types,Input Formats,Output Shapes,Output Data Types,Output Formats,Context ID,"
    "aicore_time(us),aic_total_cycles,aic_mac_time(us),aic_mac_ratio,aic_scalar_time(us),"
    "aic_scalar_ratio,aic_mte1_time(us),aic_mte1_ratio,aic_mte2_time(us),aic_mte2_ratio,"
    "aic_fixpipe_time(us),aic_fixpipe_ratio,aic_icache_miss_rate,aiv_time(us),aiv_total_cycles,"
    "aiv_vec_time(us),aiv_vec_ratio,aiv_scalar_time(us),aiv_scalar_ratio,aiv_mte2_time(us),"
    "aiv_mte2_ratio,aiv_mte3_time(us),aiv_mte3_ratio,aiv_icache_miss_rate,cube_utilization(%)\n";
constexpr double kCyclesPerUs = 1800.0;  // 1.8 GHz

// Small deterministic generator for the hardware counters (splitmix64).
struct Mix {
  uint64_t s;
  double next() {
    uint64_t z = (s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z ^= z >> 31;
    return static_cast<double>(z >> 11) * 0x1.0p-53;
  }
  double around(double x, double spread) { return x * (1.0 + spread * (2.0 * next() - 1.0)); }
};

void shapes(std::string& out, std::string_view s) {
  if (s.empty()) {
    out += "\"\"\"\"\"\"";  // an empty shape still comes doubly quoted
    return;
  }
  out += "\"\"\"";
  out += s;
  out += "\"\"\"";
}

void field(std::string& out, std::string_view s) {
  out += ',';
  out += s;
}
void num(std::string& out, double v) {
  out += ',';
  append_num3(out, v);
}

// The 25 aic/aiv counter columns of a compute kernel.
void counters(std::string& out, const KernelSpec& k, double dur, Mix& m) {
  bool cube = k.core == Core::kAiCore || k.core == Core::kMixAic;
  bool vec = k.core != Core::kAiCore;
  double aic = 0, mac_ratio = 0;
  if (cube) {
    aic = dur * (0.975 + 0.02 * m.next());
    mac_ratio = std::min(0.99, m.around(k.mac_ratio, 0.03));
    double scalar = m.around(0.47, 0.05), mte1 = m.around(0.63, 0.05),
           mte2 = std::min(0.99, m.around(0.95, 0.02)), fix = m.around(0.04, 0.3);
    num(out, aic);
    num(out, std::round(aic * kCyclesPerUs * k.block_dim));
    for (double r : {mac_ratio, scalar, mte1, mte2, fix}) {
      num(out, aic * r);
      num(out, r);
    }
    num(out, 0.001);
  } else {
    for (int i = 0; i < 13; ++i) out += ",0";
  }
  if (vec) {
    double aiv = dur * (0.96 + 0.03 * m.next());
    int blocks = k.core == Core::kMixAic ? k.mix_block_dim : k.block_dim;
    double vr = std::min(0.99, m.around(cube ? 0.3 : k.mac_ratio, 0.04));
    double scalar = m.around(0.21, 0.1), mte2 = m.around(0.55, 0.05), mte3 = m.around(0.31, 0.05);
    num(out, aiv);
    num(out, std::round(aiv * kCyclesPerUs * blocks));
    for (double r : {vr, scalar, mte2, mte3}) {
      num(out, aiv * r);
      num(out, r);
    }
    num(out, 0.002);
  } else {
    for (int i = 0; i < 11; ++i) out += ",0";
  }
  num(out, cube ? mac_ratio * aic / dur * 96.0 : 0.0);
}

}  // namespace

std::string render_kernel_details_csv(const WriteContext& ctx, int rank, const RankTimeline& tl) {
  std::string out(kHeader);
  out.reserve((tl.kernels.size() + tl.comms.size()) * 430 + kHeader.size());
  Mix m{ctx.opts.seed * 0xD1B54A32D192ED03ULL + static_cast<uint64_t>(rank) + 7};
  const bool ms = ctx.opts.framework == FrameworkKind::kMindSpore;
  size_t ki = 0, ci = 0;
  uint64_t task = 1000 + static_cast<uint64_t>(rank % 97);
  while (ki < tl.kernels.size() || ci < tl.comms.size()) {
    bool take_kernel = ci >= tl.comms.size() ||
                       (ki < tl.kernels.size() && tl.kernels[ki].start_us <= tl.comms[ci].start_us);
    if (take_kernel) {
      const KernelEvent& e = tl.kernels[ki++];
      MoeSpec moe;
      const KernelSpec& k = recorded_kernel(ctx, rank, e, moe);
      out += std::to_string(e.step + 1);
      out += ",4294967295,";
      out += std::to_string(task++);
      out += ",2,";
      if (ms) {  // MindSpore names kernels by their scope in the network
        out += "Default/network-TrainOneStepCell/";
        out += k.type;
        out += "-op";
        out += std::to_string(e.spec);
      } else {
        out += k.name;
      }
      field(out, k.type);
      field(out, "dynamic");
      field(out, core_name(k.core));
      out += ",\"";
      append_abs_us(out, ctx.base_us, e.start_us);
      out += "\t\"";
      num(out, e.dur_us);
      num(out, e.wait_us);
      num(out, k.block_dim);
      num(out, k.mix_block_dim);
      field(out, "NO");
      out += ',';
      shapes(out, k.input_shapes);
      field(out, k.input_dtypes);
      field(out, k.input_formats);
      out += ',';
      shapes(out, k.output_shapes);
      field(out, k.output_dtypes);
      field(out, k.output_formats);
      field(out, "N/A");
      counters(out, k, e.dur_us, m);
    } else {
      const CommRecord& c = tl.comms[ci++];
      std::string name = comm_op_name(ctx.topo, c);
      out += std::to_string(c.step + 1);
      out += ",4294967295,";
      out += std::to_string(task++);
      out += ",56,";
      out += name;
      field(out, comm_op_stem(c.kind));
      field(out, "N/A");
      field(out, "HCCL");
      out += ",\"";
      append_abs_us(out, ctx.base_us, c.start_us);
      out += "\t\"";
      num(out, c.end_us - c.start_us);
      num(out, 0);
      out += ",0,0,N/A,N/A,N/A,N/A,N/A,N/A,N/A,N/A";
      for (int i = 0; i < 25; ++i) out += ",N/A";
    }
    out += '\n';
  }
  return out;
}

std::string render_op_statistic_csv(const WriteContext& /*ctx*/, int /*rank*/,
                                    const RankTimeline& tl) {
  struct Agg {
    int count = 0;
    double total = 0, min = std::numeric_limits<double>::infinity(), max = 0;
  };
  const auto& cat = kernel_catalog();
  std::map<std::pair<std::string_view, std::string_view>, Agg> by_type;
  double all = 0;
  for (const auto& e : tl.kernels) {
    const KernelSpec& k = cat[e.spec];
    // Durations as written in kernel_details.csv (3 decimals), so the two files agree.
    double d = std::round(static_cast<double>(e.dur_us) * 1000.0) / 1000.0;
    Agg& a = by_type[{k.type, core_name(k.core)}];
    ++a.count;
    a.total += d;
    a.min = std::min(a.min, d);
    a.max = std::max(a.max, d);
    all += d;
  }
  std::vector<std::pair<std::pair<std::string_view, std::string_view>, Agg>> rows(by_type.begin(),
                                                                                  by_type.end());
  std::stable_sort(rows.begin(), rows.end(),
                   [](const auto& a, const auto& b) { return a.second.total > b.second.total; });
  std::string out =
      "OP Type,Core Type,Count,Total Time(us),Min Time(us),Avg Time(us),Max Time(us),Ratio(%)\n";
  for (const auto& [key, a] : rows) {
    out += key.first;
    out += ',';
    out += key.second;
    out += ',';
    out += std::to_string(a.count);
    num(out, a.total);
    num(out, a.min);
    num(out, a.total / a.count);
    num(out, a.max);
    num(out, all > 0 ? a.total / all * 100.0 : 0.0);
    out += '\n';
  }
  return out;
}

std::string render_msprof_op_statistic_csv(const WriteContext& ctx, int rank,
                                           const RankTimeline& tl) {
  const std::string plain = render_op_statistic_csv(ctx, rank, tl);
  const std::string device = std::to_string(rank % kDevicesPerNode) + ",";
  std::string out;
  out.reserve(plain.size() * 2);
  bool header = true;
  for (size_t at = 0; at < plain.size();) {
    const size_t nl = plain.find('\n', at);
    const size_t end = nl == std::string::npos ? plain.size() : nl + 1;
    out += header ? std::string("Device_id,") : device;
    out.append(plain, at, end - at);
    header = false;
    at = end;
  }
  return out;
}

}  // namespace cs::generator
