// Parsing and validation of the generator's fault-injection options.
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include "generator/job/kernel_catalog.h"
#include "generator/job/options.h"
#include "generator/job/topology.h"

namespace cs::generator {

namespace {

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (true) {
    size_t p = s.find(sep, start);
    out.push_back(s.substr(start, p == std::string_view::npos ? p : p - start));
    if (p == std::string_view::npos) return out;
    start = p + 1;
  }
}

bool parse_rank(std::string_view s, int& out) {
  if (s.empty() || s.size() > 9) return false;
  out = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    out = out * 10 + (c - '0');
  }
  return true;
}

bool parse_factor(std::string_view s, double& out) {
  if (s.empty()) return false;
  std::string tmp(s);
  char* end = nullptr;
  errno = 0;
  out = std::strtod(tmp.c_str(), &end);
  return errno == 0 && end == tmp.c_str() + tmp.size() && std::isfinite(out) && out > 0;
}

std::string quoted(std::string_view s) {
  return "'" + std::string(s) + "'";
}

}  // namespace

bool parse_slow_rank(std::string_view text, SlowRank& out, std::string& error) {
  auto parts = split(text, ':');
  if (parts.size() != 2) {
    error = quoted(text) + " is not R:FACTOR";
    return false;
  }
  if (!parse_rank(parts[0], out.rank)) {
    error = quoted(text) + ": R is not a rank number";
    return false;
  }
  if (!parse_factor(parts[1], out.factor)) {
    error = quoted(text) + ": FACTOR is not a positive number";
    return false;
  }
  return true;
}

bool parse_slow_link(std::string_view text, SlowLink& out, std::string& error) {
  auto parts = split(text, ':');
  auto ends = parts.size() == 2 ? split(parts[0], '-') : std::vector<std::string_view>{};
  if (parts.size() != 2 || ends.size() != 2) {
    error = quoted(text) + " is not SRC-DST:FACTOR";
    return false;
  }
  if (!parse_rank(ends[0], out.src) || !parse_rank(ends[1], out.dst)) {
    error = quoted(text) + ": SRC and DST must be rank numbers";
    return false;
  }
  if (!parse_factor(parts[1], out.factor)) {
    error = quoted(text) + ": FACTOR is not a positive number";
    return false;
  }
  // Either spelling lowers the bandwidth: 0.3 = "at 0.3x the bandwidth" (as in "a slow link at
  // 0.3x"), 4 = "4 times slower". Internally the factor is always the slowdown (>= 1).
  if (out.factor < 1.0) out.factor = 1.0 / out.factor;
  return true;
}

bool parse_slow_kernel(std::string_view text, SlowKernel& out, std::string& error) {
  auto parts = split(text, ':');
  if (parts.size() != 3 || parts[1].empty()) {
    error = quoted(text) + " is not R:TYPE:FACTOR";
    return false;
  }
  if (!parse_rank(parts[0], out.rank)) {
    error = quoted(text) + ": R is not a rank number";
    return false;
  }
  out.type = std::string(parts[1]);
  if (!parse_factor(parts[2], out.factor)) {
    error = quoted(text) + ": FACTOR is not a positive number";
    return false;
  }
  return true;
}

bool validate_options(const GeneratorOptions& o, io::Diagnostics& diag) {
  size_t before = diag.error_count();
  auto err = [&](std::string what, std::string hint) {
    diag.error("", 0, std::move(what), std::move(hint));
  };
  if (o.ranks < 1 || o.ranks > 1000000)
    err("--ranks " + std::to_string(o.ranks) + " is out of range", "give 1 to 1000000 ranks");
  if (o.tp < 1) err("--tp must be at least 1", "give a tensor-parallel size such as 8");
  if (o.pp < 1) err("--pp must be at least 1", "give a pipeline-parallel size such as 4");
  if (o.steps < 1 || o.steps > 10000)
    err("--steps " + std::to_string(o.steps) + " is out of range", "give 1 to 10000 steps");
  if (o.microbatches < 1 || o.layers_per_stage < 1)
    err("microbatches and layers per stage must be at least 1", "give positive values");
  if (o.writes_db() && o.framework == FrameworkKind::kKineto)
    err("--export-type db/both is written for --framework pytorch, mindspore and msprof only",
        "use --export-type text for a GPU (Kineto) job");
  if (o.pp_schedule == PpSchedule::kDualPipeV) {
    if (!o.mstx_passes || !o.writes_db() || o.framework != FrameworkKind::kPyTorch)
      err("--pp-schedule dualpipev lays out the --mstx-passes ranges of a torch_npu database",
          "add --mstx-passes --export-type db (with --framework pytorch)");
    if (o.microbatches < 2 * o.pp)
      err("--pp-schedule dualpipev needs at least 2 * pp micro-batches (--microbatches " +
              std::to_string(o.microbatches) + ", --pp " + std::to_string(o.pp) + ")",
          "give --microbatches " + std::to_string(2 * o.pp) + " or more");
  }
  if (!o.nsys_sqlite.empty() && (!o.writes_db() || o.framework != FrameworkKind::kPyTorch))
    err("--nsys-sqlite pairs the GPU twin with torch_npu's DB export",
        "add --export-type db (or both) with --framework pytorch");
  if (diag.error_count() > before) return false;
  if (o.ranks % (o.tp * o.pp) != 0) {
    err("--ranks " + std::to_string(o.ranks) +
            " is not divisible by tp*pp = " + std::to_string(o.tp * o.pp),
        "choose --ranks as a multiple of --tp times --pp (e.g. --ranks " +
            std::to_string(o.tp * o.pp * std::max(1, o.ranks / (o.tp * o.pp))) + ")");
    return false;
  }
  if (const int dp = o.ranks / (o.tp * o.pp); o.ep < 1 || dp % o.ep != 0)
    err("--ep " + std::to_string(o.ep) + " does not divide the data-parallel size " +
            std::to_string(dp),
        "give an expert-parallel size that divides ranks / (tp * pp), e.g. --ep " +
            std::to_string(dp));
  const std::string range = "0.." + std::to_string(o.ranks - 1);
  std::set<int> seen;
  for (const auto& s : o.slow_ranks) {
    if (s.rank < 0 || s.rank >= o.ranks)
      err("--slow-rank " + std::to_string(s.rank) + " is out of range", "give a rank in " + range);
    else if (!seen.insert(s.rank).second)
      err("--slow-rank " + std::to_string(s.rank) + " is given twice",
          "give each slow rank once, with the combined factor");
    if (!(s.factor > 0) || !std::isfinite(s.factor))
      err("--slow-rank factor must be a positive number", "e.g. --slow-rank 3:2.0");
  }
  std::set<int> slow_device_seen;
  for (const auto& s : o.slow_devices) {
    if (s.rank < 0 || s.rank >= o.ranks)
      err("--slow-device " + std::to_string(s.rank) + " is out of range",
          "give a rank in " + range);
    else if (!slow_device_seen.insert(s.rank).second)
      err("--slow-device " + std::to_string(s.rank) + " is given twice",
          "give each slow device once, with the combined factor");
    if (!(s.factor > 0) || !std::isfinite(s.factor))
      err("--slow-device factor must be a positive number", "e.g. --slow-device 3:1.5");
  }
  Topology topo;
  bool have_topo = false;
  for (const auto& l : o.slow_links) {
    std::string name = std::to_string(l.src) + "-" + std::to_string(l.dst);
    if (l.src < 0 || l.src >= o.ranks || l.dst < 0 || l.dst >= o.ranks) {
      err("--slow-link " + name + " names a rank out of range", "give ranks in " + range);
      continue;
    }
    if (l.src == l.dst) {
      err("--slow-link " + name + " links a rank to itself", "give two different ranks");
      continue;
    }
    if (!(l.factor > 0) || !std::isfinite(l.factor))
      err("--slow-link factor must be a positive number", "e.g. --slow-link 0-1:4");
    if (!have_topo) {
      topo = build_topology(o.ranks, o.tp, o.pp, o.seed);
      have_topo = true;
    }
    if (!topo.linked(l.src, l.dst))
      err("--slow-link " + name + ": ranks " + std::to_string(l.src) + " and " +
              std::to_string(l.dst) + " never exchange data directly",
          "pick two ranks of one TP group (e.g. 0-1), neighbours in a DP ring, or adjacent "
          "pipeline stages");
  }
  for (const auto& k : o.slow_kernels) {
    if (k.rank < 0 || k.rank >= o.ranks)
      err("--slow-kernel " + std::to_string(k.rank) + ":" + k.type + " is out of range",
          "give a rank in " + range);
    if (!(k.factor > 0) || !std::isfinite(k.factor))
      err("--slow-kernel factor must be a positive number", "e.g. --slow-kernel 2:MatMul:3");
    if (k.type.empty() || kernel_types_matching(k.type).empty()) {
      std::string types;
      std::set<std::string_view> listed;
      for (const auto& spec : kernel_catalog())
        if (listed.insert(spec.type).second) {
          if (!types.empty()) types += ", ";
          types += spec.type;
        }
      err("--slow-kernel type '" + k.type + "' matches no simulated kernel",
          "use one of (or a prefix of): " + types);
    }
  }
  for (const auto& h : o.slow_data)
    if (h.rank < 0 || h.rank >= o.ranks || !(h.gap_us >= 0) || !std::isfinite(h.gap_us))
      err("slow data rank " + std::to_string(h.rank) + " is out of range or has a negative time",
          "give a rank in " + range + " and a time in milliseconds >= 0");
  for (const auto& h : o.slow_hosts)
    if (h.rank < 0 || h.rank >= o.ranks || !(h.gap_us >= 0) || !std::isfinite(h.gap_us))
      err("slow host " + std::to_string(h.rank) + " is out of range or has a negative gap",
          "give a rank in " + range + " and a gap in microseconds >= 0");
  for (const auto& m : o.memory_imbalance)  // generator/job/memory_model.h
    if (m.rank < 0 || m.rank >= o.ranks || !(m.gb > 0) || !(m.gb < 1024))
      err("--memory-imbalance " + std::to_string(m.rank) + " is out of range",
          "give a rank in " + range + " and GB in (0, 1024), e.g. --memory-imbalance 3:4");
  if (o.memory_capacity_gb != 0 && o.memory_capacity_gb != 32 && o.memory_capacity_gb != 64)
    err("--memory-capacity " + std::to_string(o.memory_capacity_gb) + " is not a known HBM size",
        "give 32 (Ascend910B4) or 64 (Ascend910B3)");
  for (const auto& m : o.memory_leak)
    if (m.rank < 0 || m.rank >= o.ranks || !(m.mb_per_step > 0) || !(m.mb_per_step < 1e6))
      err("--memory-leak " + std::to_string(m.rank) + " is out of range",
          "give a rank in " + range + " and MB per step in (0, 1e6), e.g. --memory-leak 5:300");
  if (!(o.rank_jitter >= 0 && o.rank_jitter < 0.2) || !(o.first_stage_work > 0) ||
      !(o.last_stage_work > 0) || !std::isfinite(o.first_stage_work) ||
      !std::isfinite(o.last_stage_work) || !(o.host_noise_us >= 0) ||
      !std::isfinite(o.host_noise_us))
    err("rank jitter must be in [0, 0.2), stage work factors positive, host noise >= 0",
        "e.g. rank jitter 0.02, last stage work 1.1");
  return diag.error_count() == before;
}

}  // namespace cs::generator
