// simulate_memory: a rank's allocations over the simulated steps (see memory_model.h).
#include "generator/job/memory_model.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <random>

#include "generator/job/writers.h"

namespace cs::generator {

namespace {

constexpr int64_t kKiB = 1024;
constexpr int64_t kMiB = 1024 * kKiB;
constexpr int64_t kGiB = 1024 * kMiB;

int64_t round4k(double bytes) {
  return std::max<int64_t>(4096, static_cast<int64_t>(std::llround(bytes / 4096.0)) * 4096);
}

// A normal variate from two uniforms (Box-Muller: the same numbers on every standard library).
double normal(std::mt19937_64& rng) {
  const double u1 = (static_cast<double>(rng() >> 11) + 0.5) / 9007199254740992.0;
  const double u2 = (static_cast<double>(rng() >> 11) + 0.5) / 9007199254740992.0;
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
}

}  // namespace

const std::vector<std::string>& memory_modules() {
  static const std::vector<std::string> kModules = {"SLOG", "HCCL", "RUNTIME", "GE", "FE",
                                                    "APP",  "DRV",  "AICPU",   "TBE"};
  return kModules;
}

int64_t module_reserved(size_t module, int64_t pool_reserved) {
  switch (module) {
    case 1:
      return 404 * kMiB + 64 * kKiB;  // HCCL's buffers
    case 2:
      return 92 * kMiB + 240 * kKiB;
    case 3:
      return 76 * kMiB;
    case 5:
      return pool_reserved;  // the framework's pool, as torch_npu reports it under APP
    default:
      return 0;
  }
}

MemoryTrace simulate_memory(const WriteContext& ctx, int rank, const RankTimeline& tl) {
  const GeneratorOptions& o = ctx.opts;
  MemoryTrace m;
  m.device = rank % 8;
  if (tl.steps.empty()) return m;
  std::mt19937_64 rng(o.seed * 1000003u + static_cast<uint64_t>(rank) * 7919u + 17u);
  const int pp = std::max(1, o.pp);
  const int stage = ctx.topo.pp_index(rank);
  const int tp = std::max(1, o.tp);
  const int lps = std::max(1, o.layers_per_stage);
  const int mbs = std::max(1, o.microbatches);
  // Per layer, split by tensor parallelism: bf16 weights, gradients, fp32 Adam state (6x).
  const double weights = 0.75 * static_cast<double>(kGiB) * lps / tp +
                         (stage == 0 || stage == pp - 1 ? 0.5 * static_cast<double>(kGiB) / tp : 0);
  const double act_layer = 1.0 * static_cast<double>(kGiB) / tp * (1.0 + 0.004 * normal(rng));
  double extra = 0;
  for (const auto& im : o.memory_imbalance)
    if (im.rank == rank) extra += im.gb * static_cast<double>(kGiB);
  double leak = 0;
  for (const auto& l : o.memory_leak)
    if (l.rank == rank) leak += l.mb_per_step * static_cast<double>(kMiB);

  // Kernel range of each step: the memory events stay inside it, so the text export's step
  // ranges (from kernel_details.csv) and the DB's STEP_TIME place them in the same step.
  std::vector<std::pair<double, double>> range(tl.steps.size(), {1e300, -1e300});
  for (const auto& k : tl.kernels) {
    auto& r = range[k.step];
    r.first = std::min(r.first, k.start_us);
    r.second = std::max(r.second, k.start_us + static_cast<double>(k.dur_us));
  }
  for (size_t s = 0; s < range.size(); ++s)
    if (range[s].first > range[s].second) range[s] = {tl.steps[s].start_us, tl.steps[s].end_us};
  auto at = [&](size_t step, double frac) {
    const auto& r = range[step];
    return abs_ns(ctx.base_us, r.first + (r.second - r.first) * frac);
  };

  std::vector<MemoryBlock>& b = m.blocks;
  auto block = [&](const char* op, double bytes, int64_t a, int64_t r) {
    b.push_back(MemoryBlock{op, round4k(bytes), a, r});
  };
  const int64_t t0 = at(0, 0.0) - 30'000'000;  // 30 ms before the first step's kernels
  block("aten::empty", weights, t0, -1);
  block("aten::zeros_like", weights, t0 + 1'000'000, -1);
  block("aten::empty_strided", 6.0 * weights + extra, t0 + 2'000'000, -1);
  // 1F1B at this stage: warm-up forwards, steady F/B pairs, cool-down backwards.
  const int warm = std::min(pp - stage - 1, mbs);
  std::vector<int> sched;  // >= 0: forward of micro-batch i; < 0: backward of -i-1
  int f = 0, bw = 0;
  for (; f < warm; ++f) sched.push_back(f);
  while (f < mbs) {
    sched.push_back(f++);
    sched.push_back(-(bw++) - 1);
  }
  while (bw < mbs) sched.push_back(-(bw++) - 1);
  for (size_t s = 0; s < tl.steps.size(); ++s) {
    std::vector<size_t> live;  // this step's activation blocks, per micro-batch
    std::vector<std::vector<size_t>> acts(static_cast<size_t>(mbs));
    const double slot = 0.80 / static_cast<double>(sched.size());
    for (size_t k = 0; k < sched.size(); ++k) {
      const double begin = 0.04 + slot * static_cast<double>(k);
      const int64_t t = at(s, begin);
      const int64_t dt = at(s, begin + slot * 0.5) - t;
      // Each layer's short-lived temporaries (a caching allocator's trace is mostly these).
      static const char* const kTemps[] = {"aten::add",     "aten::mul",        "aten::_softmax",
                                           "aten::dropout", "aten::layer_norm", "aten::view"};
      for (int l = 0; l < lps; ++l)
        for (int j = 0; j < 6; ++j) {
          const int64_t ta = t + (l * 6 + j) * dt / (6 * lps + 1);
          block(kTemps[j], act_layer * (0.01 + 0.03 * std::fabs(normal(rng))), ta,
                ta + dt / (12 * lps + 2));
        }
      if (sched[k] >= 0) {
        for (int l = 0; l < lps; ++l) {
          acts[static_cast<size_t>(sched[k])].push_back(b.size());
          block(l % 2 ? "aten::gelu" : "aten::matmul", act_layer * (1.0 + 0.002 * normal(rng)),
                t + l * dt / (2 * lps), -1);
        }
        block("aten::mm", 0.05 * act_layer, t + dt / 2, t + dt);
      } else {
        block("autograd::engine_evaluate_function", 0.25 * act_layer, t, t + dt);
        for (size_t i : acts[static_cast<size_t>(-sched[k] - 1)]) b[i].release_ns = t + dt / 2;
      }
    }
    block("aten::_foreach_add", 0.5 * weights, at(s, 0.88), at(s, 0.95));
    if (leak > 0) block("aten::cat", leak, at(s, 0.90), -1);
  }
  std::stable_sort(b.begin(), b.end(), [](const MemoryBlock& x, const MemoryBlock& y) {
    return x.alloc_ns < y.alloc_ns;
  });
  // The pool's totals after every event, in time order (a release before an allocation at the
  // same moment).
  struct Ev {
    int64_t t;
    int64_t delta;
    size_t block;
  };
  std::vector<Ev> ev;
  for (size_t i = 0; i < b.size(); ++i) {
    ev.push_back({b[i].alloc_ns, b[i].bytes, i});
    if (b[i].release_ns >= 0) ev.push_back({b[i].release_ns, -b[i].bytes, i});
  }
  std::stable_sort(ev.begin(), ev.end(), [](const Ev& x, const Ev& y) {
    return x.t != y.t ? x.t < y.t : x.delta < y.delta;
  });
  int64_t alloc = 0, reserved = 0;
  for (const Ev& e : ev) {
    alloc += e.delta;
    const int64_t want = static_cast<int64_t>(std::ceil(static_cast<double>(alloc) * 1.08 /
                                                        static_cast<double>(2 * kMiB))) *
                         2 * kMiB;
    reserved = std::max(reserved, want);
    m.pta.push_back({e.t, alloc, reserved});
    MemoryBlock& blk = b[e.block];
    if (e.delta > 0) {
      blk.alloc_allocated = alloc;
      blk.alloc_reserved = reserved;
    } else {
      blk.release_allocated = alloc;
      blk.release_reserved = reserved;
    }
  }
  m.ge_t_ns = t0 + 500'000;
  m.ge_allocated = 20 * kMiB;
  m.ge_reserved = 74 * kMiB + 768 * kKiB;
  // APP: the pool's reserved memory plus the runtime's, every 20 ms.
  const int64_t end = ev.empty() ? t0 : ev.back().t;
  size_t j = 0;
  int64_t res = 0;
  for (int64_t t = t0 - 20'000'000; t <= end + 20'000'000; t += 20'000'000) {
    while (j < m.pta.size() && m.pta[j].t_ns <= t) res = m.pta[j++].reserved;
    m.app.push_back({t, 0, res + 700 * kMiB});
  }
  return m;
}

bool parse_memory_imbalance(std::string_view text, MemoryImbalance& out, std::string& error) {
  SlowRank v;  // the same R:NUMBER form
  if (!parse_slow_rank(text, v, error)) return false;
  out = {v.rank, v.factor};
  return true;
}

bool parse_memory_leak(std::string_view text, MemoryLeak& out, std::string& error) {
  SlowRank v;
  if (!parse_slow_rank(text, v, error)) return false;
  out = {v.rank, v.factor};
  return true;
}

}  // namespace cs::generator
