// profiler_info_{rank}.json, profiler_metadata.json, the rank directory name and truth.json.
#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "generator/job/kernel_catalog.h"
#include "generator/job/memory_model.h"
#include "generator/job/write_moe.h"
#include "generator/job/writers.h"
#include "io/json/json_writer.h"

namespace cs::generator {

namespace {
using io::JsonWriter;
using io::Num;

uint64_t mix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

void kv(JsonWriter& w, const char* k, int64_t v) {
  w.key(k);
  w.value(Num::integer(v));
}

// One group of parallel_group_info: "<id>": {"group_name", "group_rank", "global_ranks"}.
void group_entry(JsonWriter& w, std::string_view id, std::string_view name, int group_rank,
                 const std::vector<int>& ranks) {
  w.key(id);
  w.begin_object();
  w.key("group_name");
  w.value(name);
  kv(w, "group_rank", group_rank);
  w.key("global_ranks");
  w.begin_array();
  for (int r : ranks) w.value(Num::integer(r));
  w.end_array();
  w.end_object();
}
}  // namespace

std::string rank_dir_name(const WriteContext& ctx, int rank) {
  uint64_t h = mix(ctx.opts.seed * 1315423911ULL + static_cast<uint64_t>(rank));
  int64_t pid = 100000 + static_cast<int64_t>(h % 800000);
  int64_t ts_ms = ctx.base_us / 1000 - 60000 + static_cast<int64_t>((h >> 20) % 3000);
  if (ctx.opts.framework == FrameworkKind::kMsprof) {
    // PROF_{6 digits}_{timestamp}_{16 capitals}: CANN writes the time to the millisecond
    // (YYYYMMDDhhmmssmmm); msprof-analyze only compares it as text, so the epoch milliseconds do.
    std::string name = std::to_string(rank);
    name.insert(0, name.size() < 6 ? 6 - name.size() : 0, '0');
    std::string suffix;
    for (int i = 0; i < 16; ++i) suffix.push_back(static_cast<char>('A' + (h >> (i * 4)) % 26));
    return "PROF_" + name + "_" + std::to_string(ts_ms) + "_" + suffix;
  }
  return node_host(rank) + "_" + std::to_string(pid) + "_" + std::to_string(ts_ms) +
         (ctx.opts.framework == FrameworkKind::kMindSpore ? "_ascend_ms" : "_ascend_pt");
}

std::string render_msprof_info_json(const WriteContext& ctx, int rank) {
  std::string out;
  JsonWriter w(&out, io::JsonStyle::python());
  w.begin_object();
  w.key("jobInfo");
  w.value("NA");
  w.key("hostname");
  w.value(node_host(rank));
  w.key("hostUid");
  w.value(std::to_string(mix(ctx.opts.seed + static_cast<uint64_t>(Topology::node(rank))) %
                         1000000000000ULL));
  w.key("devices");
  w.value(std::to_string(rank % kDevicesPerNode));
  kv(w, "rank_id", rank);
  w.key("platform_version");
  w.value("5");
  if (ctx.opts.mfu_flops) {
    w.key("DeviceInfo");
    w.raw_value(render_device_info_json(rank % kDevicesPerNode));
  }
  w.end_object();
  out += '\n';
  return out;
}

std::string render_device_info_json(int device) {
  const std::string id = std::to_string(device);
  return "[{\"id\": " + id + ", \"env_type\": 3, \"ctrl_cpu_id\": \"ARMv8_Cortex_A55\", " +
         "\"ctrl_cpu_core_num\": 1, \"ctrl_cpu_endian_little\": 1, \"ts_cpu_core_num\": 1, " +
         "\"ai_cpu_core_num\": 6, \"ai_core_num\": " + std::to_string(kAiCoreNum) +
         ", \"ai_cpu_core_id\": 2, \"ai_core_id\": 0, \"aicpu_occupy_bitmap\": 252, " +
         "\"ctrl_cpu\": \"0\", \"ai_cpu\": \"2,3,4,5,6,7\", \"aiv_num\": " +
         std::to_string(2 * kAiCoreNum) + ", \"hwts_frequency\": \"50\", \"aic_frequency\": \"" +
         std::to_string(kAicFrequencyMhz) + "\", \"aiv_frequency\": \"" +
         std::to_string(kAicFrequencyMhz) + "\"}]";
}

std::string render_profiler_info_json(const WriteContext& ctx, int rank) {
  std::string out;
  JsonWriter w(&out, io::JsonStyle::python());
  const bool ms = ctx.opts.framework == FrameworkKind::kMindSpore;
  w.begin_object();
  w.key("config");
  w.begin_object();
  w.key("common_config");
  w.begin_object();
  w.key("activities");
  w.begin_array();
  w.value("ProfilerActivity.CPU");
  w.value("ProfilerActivity.NPU");
  w.end_array();
  w.key("schedule");
  w.begin_object();
  kv(w, "wait", 1);
  kv(w, "active", ctx.opts.steps);
  kv(w, "warmup", 1);
  kv(w, "repeat", 1);
  kv(w, "skip_first", 0);
  w.end_object();
  w.key("record_shapes");
  w.value(true);
  w.key("profile_memory");
  w.value(false);
  w.key("with_stack");
  w.value(false);
  w.end_object();
  w.key("experimental_config");
  w.begin_object();
  w.key("_profiler_level");
  w.value("Level1");
  w.key("_aic_metrics");
  w.value("ACL_AICORE_PIPE_UTILIZATION");
  w.key("_l2_cache");
  w.value(false);
  w.key("_data_simplification");
  w.value(true);
  if (ctx.opts.writes_db()) {  // the text export alone keeps the files it always had
    w.key("_export_type");
    if (ctx.opts.writes_text()) {
      w.begin_array();
      w.value("text");
      w.value("db");
      w.end_array();
    } else {
      w.value("db");
    }
  }
  w.end_object();
  w.end_object();
  w.key("start_info");
  w.begin_object();
  w.key("syscnt_enable");
  w.value(true);
  w.key("freq");
  w.value(100.0);
  kv(w, "start_cnt", 3614100000000 + rank);
  kv(w, "start_monotonic", 361410000000000 + rank);
  w.end_object();
  w.key(ms ? "mindspore_version" : "torch_npu_version");
  w.value(ms ? "2.3.0" : "2.1.0.post6");
  w.key("cann_version");
  w.value("8.0.RC2");
  kv(w, "rank_id", rank);
  w.end_object();
  return out;
}

std::string render_distributed_args_json(const WriteContext& ctx, int rank) {
  const Topology& t = ctx.topo;
  std::string out;
  JsonWriter w(&out, io::JsonStyle::python());
  w.begin_object();
  kv(w, "tensor_model_parallel_size", t.tp);
  kv(w, "pipeline_model_parallel_size", t.pp);
  kv(w, "data_parallel_size", t.dp);
  kv(w, "context_parallel_size", 1);
  kv(w, "expert_model_parallel_size", std::max(1, ctx.opts.ep));
  w.key("sequence_parallel");
  w.value(t.tp > 1);
  kv(w, "world_size", t.ranks);
  kv(w, "rank", rank);
  w.end_object();
  return out;
}

std::string render_parallel_group_info_json(const WriteContext& ctx, int rank) {
  const Topology& t = ctx.topo;
  std::string out;
  JsonWriter w(&out, io::JsonStyle::python());
  w.begin_object();
  for (int g : {t.dp_group[static_cast<size_t>(rank)], t.tp_group[static_cast<size_t>(rank)],
                t.pp_group[static_cast<size_t>(rank)]}) {
    const Group& grp = t.groups[static_cast<size_t>(g)];
    group_entry(w, grp.id, group_kind_name(grp.kind), t.local_rank(g, rank), grp.ranks);
  }
  if (const auto exp = expert_group_ranks(ctx.opts, t, rank); !exp.empty())
    group_entry(w, expert_group_id(ctx.opts, t, rank), "exp",
                static_cast<int>(std::find(exp.begin(), exp.end(), rank) - exp.begin()), exp);
  w.end_object();
  return out;
}

std::string render_profiler_metadata_json(const WriteContext& ctx, int rank) {
  std::string out;
  JsonWriter w(&out, io::JsonStyle::python());
  w.begin_object();
  w.key("distributed_args");
  w.raw_value(render_distributed_args_json(ctx, rank));
  w.key("parallel_group_info");
  w.raw_value(render_parallel_group_info_json(ctx, rank));
  w.end_object();
  return out;
}

std::string render_truth_json(const WriteContext& ctx) {
  const GeneratorOptions& o = ctx.opts;
  const Topology& t = ctx.topo;
  std::string out;
  JsonWriter w(&out, io::JsonStyle::indented(2));
  w.begin_object();
  w.key("generator");
  w.value("clusterscope generate");
  w.key("shape");
  w.begin_object();
  kv(w, "ranks", t.ranks);
  kv(w, "tp", t.tp);
  kv(w, "pp", t.pp);
  kv(w, "dp", t.dp);
  kv(w, "steps", o.steps);
  kv(w, "microbatches", o.microbatches);
  kv(w, "layers_per_stage", o.layers_per_stage);
  w.key("seed");
  w.value(Num::integer(static_cast<int64_t>(o.seed)));
  w.key("framework");
  w.value(o.framework == FrameworkKind::kMindSpore ? "mindspore"
          : o.framework == FrameworkKind::kKineto  ? "kineto"
                                                   : "pytorch");
  w.end_object();

  w.key("noise");  // realism settings: per-rank speed spread and stage imbalance by design
  w.begin_object();
  w.key("rank_jitter");
  w.value(o.rank_jitter);
  w.key("first_stage_work");
  w.value(o.first_stage_work);
  w.key("last_stage_work");
  w.value(o.last_stage_work);
  w.key("host_noise_us");
  w.value(o.host_noise_us);
  w.end_object();

  w.key("slow_ranks");
  w.begin_array();
  for (const auto& s : o.slow_ranks) {
    w.begin_object();
    kv(w, "rank", s.rank);
    w.key("factor");
    w.value(s.factor);
    w.end_object();
  }
  w.end_array();
  if (!o.slow_devices.empty()) {  // only when given, so other jobs' truth.json stays as it was
    w.key("slow_devices");
    w.begin_array();
    for (const auto& s : o.slow_devices) {
      w.begin_object();
      kv(w, "rank", s.rank);
      w.key("factor");
      w.value(s.factor);
      w.end_object();
    }
    w.end_array();
  }

  write_memory_truth(w, o);  // generator/job/memory_model.h
  w.key("slow_links");
  w.begin_array();
  for (const auto& l : o.slow_links) {
    w.begin_object();
    kv(w, "src", l.src);
    kv(w, "dst", l.dst);
    w.key("factor");
    w.value(l.factor);
    w.key("transport");
    w.value(transport_name(Topology::transport(l.src, l.dst)));
    w.key("groups");  // the groups whose ops use this link
    w.begin_array();
    for (size_t g = 0; g < t.groups.size(); ++g) {
      const Group& grp = t.groups[g];
      if (t.local_rank(static_cast<int>(g), l.src) < 0 ||
          t.local_rank(static_cast<int>(g), l.dst) < 0)
        continue;
      w.begin_object();
      w.key("group_name");
      w.value(group_kind_name(grp.kind));
      w.key("group");
      w.value(grp.hash);
      w.key("src_local");
      w.value(Num::integer(t.local_rank(static_cast<int>(g), l.src)));
      w.key("dst_local");
      w.value(Num::integer(t.local_rank(static_cast<int>(g), l.dst)));
      w.end_object();
    }
    w.end_array();
    w.end_object();
  }
  w.end_array();

  w.key("slow_data");
  w.begin_array();
  for (const auto& h : o.slow_data) {
    w.begin_object();
    kv(w, "rank", h.rank);
    w.key("ms");
    w.value(h.gap_us / 1000.0);
    w.end_object();
  }
  w.end_array();
  w.key("host_bound");
  w.value(o.host_bound);

  w.key("slow_hosts");
  w.begin_array();
  for (const auto& h : o.slow_hosts) {
    w.begin_object();
    kv(w, "rank", h.rank);
    w.key("gap_us");
    w.value(h.gap_us);
    w.end_object();
  }
  w.end_array();

  w.key("slow_kernels");
  w.begin_array();
  for (const auto& k : o.slow_kernels) {
    w.begin_object();
    kv(w, "rank", k.rank);
    w.key("type");
    w.value(k.type);
    w.key("factor");
    w.value(k.factor);
    w.key("kernel_types");
    w.begin_array();
    for (auto type : kernel_types_matching(k.type)) w.value(type);
    w.end_array();
    w.end_object();
  }
  w.end_array();
  w.end_object();
  out += '\n';
  return out;
}

}  // namespace cs::generator
