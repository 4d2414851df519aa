#include "generator/job/simulation.h"

#include <algorithm>
#include <map>
#include <random>
#include <utility>

#include "generator/job/host_model.h"
#include "generator/job/kernel_catalog.h"

namespace cs::generator {

const char* comm_op_stem(CommKind k) {
  switch (k) {
    case CommKind::kAllReduce:
      return "hcom_allReduce_";
    case CommKind::kAllGather:
      return "hcom_allGather_";
    case CommKind::kReduceScatter:
      return "hcom_reduceScatter_";
    case CommKind::kSend:
      return "hcom_send_";
    case CommKind::kReceive:
      return "hcom_receive_";
  }
  return "hcom_unknown_";
}

const char* comm_matrix_type(CommKind k) {
  switch (k) {
    case CommKind::kAllReduce:
      return "allreduce";
    case CommKind::kAllGather:
      return "allgather";
    case CommKind::kReduceScatter:
      return "reduce";  // leftmost match in "reducescatter"
    case CommKind::kSend:
      return "send";
    case CommKind::kReceive:
      return "receive";
  }
  return "invalid";
}

double nominal_bandwidth_gbps(Transport t) {
  switch (t) {
    case Transport::kHccs:
      return 18.0;
    case Transport::kRdma:
      return 12.5;
    case Transport::kLocal:
      return 0.0;
  }
  return 0.0;
}

namespace {

// Model constants. Sizes in MB (decimal), bandwidths in GB/s (= MB/ms), times in us.
constexpr double kActivationMb = 4096.0 * 4096.0 * 2.0 / 1e6;  // seq x hidden x bf16
constexpr double kGradNormMb = 4.0 / 1e6;                      // one fp32 scalar
constexpr double kAchievedHccs = 16.6, kAchievedRdma = 11.4, kLocalGbps = 60.0;
constexpr double kLatencyHccsMs = 0.004, kLatencyRdmaMs = 0.012;

class Sim {
 public:
  Sim(const GeneratorOptions& o, const Topology& t) : opts_(o), topo_(t) {
    size_t n = static_cast<size_t>(t.ranks);
    res_.base_us = 1708156100000000LL + static_cast<int64_t>(o.seed % 9973) * 1000;
    res_.ranks.resize(n);
    now_.assign(n, 0.0);
    dp_async_end_.assign(n, 0.0);
    compute_factor_.assign(n, 1.0);
    kernel_factor_.assign(n, std::vector<double>(kernel_catalog().size(), 1.0));
    for (size_t r = 0; r < n; ++r) {
      rng_.emplace_back(o.seed * 0x9E3779B97F4A7C15ULL + r * 0xBF58476D1CE4E5B9ULL + 1);
      now_[r] = uniform(static_cast<int>(r), 0.0, 200.0);
    }
    for (const auto& s : o.slow_ranks) compute_factor_[static_cast<size_t>(s.rank)] *= s.factor;
    for (const auto& s : o.slow_devices) compute_factor_[static_cast<size_t>(s.rank)] *= s.factor;
    host_gap_.assign(n, 0.0);
    for (size_t r = 0; r < n; ++r) host_gap_[r] = host_gap_us(o, static_cast<int>(r));
    if (o.rank_jitter > 0)  // drawn only when asked, so default outputs do not change
      for (size_t r = 0; r < n; ++r) {
        std::normal_distribution<double> speed(1.0, o.rank_jitter);
        compute_factor_[r] *= std::clamp(speed(rng_[r]), 0.8, 1.2);
      }
    for (const auto& k : o.slow_kernels) {
      auto types = kernel_types_matching(k.type);
      for (size_t i = 0; i < kernel_catalog().size(); ++i)
        if (std::find(types.begin(), types.end(), kernel_catalog()[i].type) != types.end())
          kernel_factor_[static_cast<size_t>(k.rank)][i] *= k.factor;
    }
    for (const auto& l : o.slow_links) {
      double& f = link_factor_.try_emplace({l.src, l.dst}, 1.0).first->second;
      f *= l.factor;
      link_factor_[{l.dst, l.src}] = f;
    }
    seq_.assign(t.groups.size(), 0);
    for (int p = 0; p < t.pp; ++p) {
      std::vector<int> tp_groups, dp_groups;
      for (int r : stage_ranks(p)) {
        int g = t.tp_group[static_cast<size_t>(r)], d = t.dp_group[static_cast<size_t>(r)];
        if (std::find(tp_groups.begin(), tp_groups.end(), g) == tp_groups.end())
          tp_groups.push_back(g);
        if (std::find(dp_groups.begin(), dp_groups.end(), d) == dp_groups.end())
          dp_groups.push_back(d);
      }
      stage_tp_.push_back(std::move(tp_groups));
      stage_dp_.push_back(std::move(dp_groups));
    }
    grad_mb_ = opts_.layers_per_stage * 12.0 * 4096.0 * 4096.0 * 2.0 / 1e6 / t.tp;
  }

  SimulationResult run() {
    for (int s = 0; s < opts_.steps; ++s) {
      step_ = s;
      for (int r = 0; r < topo_.ranks; ++r) {
        auto& tl = res_.ranks[static_cast<size_t>(r)];
        tl.steps.push_back({now_[static_cast<size_t>(r)], 0, 0});
        now_[static_cast<size_t>(r)] += uniform(r, 300.0, 900.0);  // host-side data loading
        now_[static_cast<size_t>(r)] += data_delay_us(opts_, r);   // --slow-data
        tl.steps.back().data_end_us = now_[static_cast<size_t>(r)];
      }
      for (int mb = 0; mb < opts_.microbatches; ++mb)
        for (int p = 0; p < topo_.pp; ++p) pass(p, mb, true, [&] { forward(p); });
      if (opts_.host_noise_us > 0)  // drawn only when asked, so default outputs do not change
        for (int r = 0; r < topo_.ranks; ++r)
          now_[static_cast<size_t>(r)] += uniform(r, 0.0, opts_.host_noise_us);
      for (int mb = 0; mb < opts_.microbatches; ++mb)
        for (int p = topo_.pp - 1; p >= 0; --p)
          pass(p, mb, false, [&] { backward(p, mb == opts_.microbatches - 1); });
      for (int p = 0; p < topo_.pp; ++p) finish_step(p);
      for (int r = 0; r < topo_.ranks; ++r)
        res_.ranks[static_cast<size_t>(r)].steps.back().end_us = now_[static_cast<size_t>(r)];
    }
    return std::move(res_);
  }

 private:
  // Runs one pass of stage p and records its span on each rank of the stage: from its first
  // kernel (the received activations are in) to the end of its last event.
  template <class Run>
  void pass(int p, int mb, bool fwd, Run run) {
    const std::vector<int> ranks = stage_ranks(p);
    std::vector<size_t> first;
    for (int r : ranks) first.push_back(res_.ranks[static_cast<size_t>(r)].kernels.size());
    run();
    for (size_t i = 0; i < ranks.size(); ++i) {
      const auto r = static_cast<size_t>(ranks[i]);
      const auto& k = res_.ranks[r].kernels;
      if (k.size() == first[i]) continue;
      res_.ranks[r].passes.push_back({k[first[i]].start_us, now_[r], static_cast<uint16_t>(step_),
                                      static_cast<uint16_t>(mb), fwd});
    }
  }

  std::vector<int> stage_ranks(int p) const {
    int per = topo_.tp * topo_.dp;
    std::vector<int> v(static_cast<size_t>(per));
    for (int i = 0; i < per; ++i) v[static_cast<size_t>(i)] = p * per + i;
    return v;
  }

  double uniform(int r, double lo, double hi) {
    return lo + (hi - lo) *
                    std::uniform_real_distribution<double>(0.0, 1.0)(rng_[static_cast<size_t>(r)]);
  }
  // Multiplicative noise around 1 with roughly `sigma` spread (sum of three uniforms).
  double jitter(int r, double sigma) {
    double u = uniform(r, 0, 1) + uniform(r, 0, 1) + uniform(r, 0, 1) - 1.5;
    return std::max(0.5, 1.0 + 2.0 * sigma * u);
  }

  void kernels(int p, std::initializer_list<int> ids) {
    for (int r : stage_ranks(p)) {
      auto& tl = res_.ranks[static_cast<size_t>(r)];
      double& t = now_[static_cast<size_t>(r)];
      for (int id : ids) {
        const KernelSpec& k = kernel_catalog()[static_cast<size_t>(id)];
        double dur = k.base_us / (k.tp_sharded ? topo_.tp : 1) * jitter(r, 0.03) * stage_work(p) *
                     compute_factor_[static_cast<size_t>(r)] *
                     kernel_factor_[static_cast<size_t>(r)][static_cast<size_t>(id)];
        dur = std::max(dur, 1.0);
        double gap = uniform(r, 1.5, 4.5) + host_gap_[static_cast<size_t>(r)];
        KernelEvent e;
        e.start_us = t + gap;
        e.dur_us = static_cast<float>(dur);
        e.wait_us = static_cast<float>(uniform(r, 0.4, 2.6));
        e.spec = static_cast<uint16_t>(id);
        e.step = static_cast<uint16_t>(step_);
        tl.kernels.push_back(e);
        t = e.start_us + dur;
      }
    }
  }

  // Work of stage p relative to the middle stages (first / last stage factors; pp > 1 only).
  double stage_work(int p) const {
    if (topo_.pp < 2) return 1.0;
    if (p == 0) return opts_.first_stage_work;
    if (p == topo_.pp - 1) return opts_.last_stage_work;
    return 1.0;
  }

  double link_factor(int a, int b) const {
    auto it = link_factor_.find({a, b});
    return it == link_factor_.end() ? 1.0 : it->second;
  }

  // Transfer of `packets` packets of `packet_mb` from global rank a to b (a's rng).
  LinkTransfer transfer(int a, int b, int la, int lb, double packet_mb, int packets) {
    LinkTransfer x;
    x.src_local = la;
    x.dst_local = lb;
    x.transport = Topology::transport(a, b);
    x.packet_mb = packet_mb;
    x.packets = packets;
    double bw, lat;
    switch (x.transport) {
      case Transport::kHccs:
        bw = kAchievedHccs, lat = kLatencyHccsMs;
        break;
      case Transport::kRdma:
        bw = kAchievedRdma, lat = kLatencyRdmaMs;
        break;
      default:
        bw = kLocalGbps, lat = 0.001;
        break;
    }
    bw = bw * jitter(a, 0.015) / link_factor(a, b);
    x.time_ms = packets * (lat + packet_mb / bw);
    return x;
  }

  // A collective in group g of the full tensor size `mb`; members arrive at now_. When
  // `async_end` is given the members do not block: their end times go there instead.
  void collective(int g, CommKind kind, double mb, std::vector<double>* async_end = nullptr) {
    const Group& grp = topo_.groups[static_cast<size_t>(g)];
    const int n = static_cast<int>(grp.ranks.size());
    if (n < 2) return;
    const int seq = seq_[static_cast<size_t>(g)]++;
    const double packet = mb / n;
    std::vector<double> ready(static_cast<size_t>(n)), overhead(static_cast<size_t>(n));
    std::vector<CommRecord> recs(static_cast<size_t>(n));
    double last = 0, longest_ms = 0;
    for (int i = 0; i < n; ++i) {
      int r = grp.ranks[static_cast<size_t>(i)];
      overhead[static_cast<size_t>(i)] = uniform(r, 8.0, 25.0);
      ready[static_cast<size_t>(i)] =
          now_[static_cast<size_t>(r)] + overhead[static_cast<size_t>(i)];
      last = std::max(last, ready[static_cast<size_t>(i)]);
      CommRecord& c = recs[static_cast<size_t>(i)];
      c.group = g;
      c.seq = seq;
      c.step = step_;
      c.kind = kind;
      c.start_us = now_[static_cast<size_t>(r)];
      const int rounds = kind == CommKind::kAllReduce ? 2 : 1;
      if (grp.ring) {
        int j = (i + 1) % n;
        c.links.push_back(
            transfer(r, grp.ranks[static_cast<size_t>(j)], i, j, packet, rounds * (n - 1)));
      } else {
        for (int j = 0; j < n; ++j)
          if (j != i)
            c.links.push_back(transfer(r, grp.ranks[static_cast<size_t>(j)], i, j, packet, rounds));
      }
      for (const auto& l : c.links) c.transit_ms = std::max(c.transit_ms, l.time_ms);
      c.links.push_back(transfer(r, r, i, i, packet, 1));  // on-chip copy, "i-i" LOCAL
      longest_ms = std::max(longest_ms, c.transit_ms);
    }
    for (int i = 0; i < n; ++i) {
      int r = grp.ranks[static_cast<size_t>(i)];
      CommRecord& c = recs[static_cast<size_t>(i)];
      double tail = uniform(r, 1.0, 4.0);
      c.end_us = last + longest_ms * 1000.0 + tail;
      c.sync_ms = (last - ready[static_cast<size_t>(i)]) / 1000.0;
      c.wait_ms = c.sync_ms + (longest_ms - c.transit_ms);
      c.idle_ms = (overhead[static_cast<size_t>(i)] + tail) / 1000.0;
      if (async_end)
        (*async_end)[static_cast<size_t>(r)] = c.end_us;
      else
        now_[static_cast<size_t>(r)] = c.end_us;
      res_.ranks[static_cast<size_t>(r)].comms.push_back(std::move(c));
    }
  }

  // Point-to-point between adjacent stages: every rank of stage `from` sends `mb` to the rank
  // with the same tp and dp index in stage `to`, which receives it.
  void p2p(int from, int to, double mb) {
    int per = topo_.tp * topo_.dp;
    for (int j = 0; j < per; ++j) {
      int a = from * per + j, b = to * per + j;
      int g = topo_.pp_group[static_cast<size_t>(a)];
      int seq = seq_[static_cast<size_t>(g)]++;
      double oa = uniform(a, 8.0, 25.0), ob = uniform(b, 8.0, 25.0);
      double ra = now_[static_cast<size_t>(a)] + oa, rb = now_[static_cast<size_t>(b)] + ob;
      double start = std::max(ra, rb);
      LinkTransfer x = transfer(a, b, from, to, mb, 1);
      auto make = [&](int r, CommKind kind, double ready, double overhead) {
        CommRecord c;
        c.group = g;
        c.seq = seq;
        c.step = step_;
        c.kind = kind;
        c.start_us = now_[static_cast<size_t>(r)];
        double tail = uniform(r, 1.0, 4.0);
        c.end_us = start + x.time_ms * 1000.0 + tail;
        c.transit_ms = x.time_ms;
        c.sync_ms = (start - ready) / 1000.0;
        c.wait_ms = c.sync_ms;
        c.idle_ms = (overhead + tail) / 1000.0;
        c.links.push_back(x);
        now_[static_cast<size_t>(r)] = c.end_us;
        res_.ranks[static_cast<size_t>(r)].comms.push_back(std::move(c));
      };
      make(a, CommKind::kSend, ra, oa);
      make(b, CommKind::kReceive, rb, ob);
    }
  }

  void tp_collective(int p, CommKind kind, double mb) {
    for (int g : stage_tp_[static_cast<size_t>(p)]) collective(g, kind, mb);
  }

  void forward(int p) {
    if (p > 0) p2p(p - 1, p, kActivationMb / topo_.tp);
    if (p == 0) kernels(p, {kEmbedding});
    for (int l = 0; l < opts_.layers_per_stage; ++l) {
      kernels(p, {kLayerNorm});
      tp_collective(p, CommKind::kAllGather, kActivationMb);
      kernels(p, {kMatMulQkv, kFlashAttention, kMatMulProj});
      tp_collective(p, CommKind::kReduceScatter, kActivationMb);
      kernels(p, {kAdd, kLayerNorm});
      tp_collective(p, CommKind::kAllGather, kActivationMb);
      kernels(p, {kMatMulFc1, kFastGelu, kMatMulFc2});
      tp_collective(p, CommKind::kReduceScatter, kActivationMb);
      kernels(p, {kAdd});
    }
    if (p == topo_.pp - 1) kernels(p, {kMatMulLmHead, kCast, kCrossEntropy});
  }

  void backward(int p, bool last_microbatch) {
    if (p < topo_.pp - 1) p2p(p + 1, p, kActivationMb / topo_.tp);
    if (p == topo_.pp - 1) kernels(p, {kCrossEntropy, kMatMulLmHead, kMatMulLmHead});
    for (int l = opts_.layers_per_stage - 1; l >= 0; --l) {
      tp_collective(p, CommKind::kAllGather, kActivationMb);
      kernels(p, {kMatMulFc2, kMatMulFc2, kFastGeluGrad, kMatMulFc1, kMatMulFc1});
      tp_collective(p, CommKind::kReduceScatter, kActivationMb);
      kernels(p, {kLayerNormGrad, kInplaceAdd});
      tp_collective(p, CommKind::kAllGather, kActivationMb);
      kernels(p, {kMatMulProj, kMatMulProj, kFlashAttentionGrad, kMatMulQkv, kMatMulQkv});
      tp_collective(p, CommKind::kReduceScatter, kActivationMb);
      kernels(p, {kLayerNormGrad, kInplaceAdd});
      // Gradients of the upper half of the stage are ready: reduce them across DP while the
      // lower layers still compute (overlapped communication).
      if (last_microbatch && l == opts_.layers_per_stage - 1 && topo_.dp > 1)
        for (int g : stage_dp_[static_cast<size_t>(p)])
          collective(g, CommKind::kAllReduce, grad_mb_ / 2, &dp_async_end_);
    }
  }

  // After the last backward pass of a stage (its gradients sent on): DP allreduce of the rest of
  // the gradients, wait for the overlapped one, grad norm, optimizer.
  void finish_step(int p) {
    if (topo_.dp > 1) {
      for (int g : stage_dp_[static_cast<size_t>(p)])
        collective(g, CommKind::kAllReduce, grad_mb_ / 2);
      for (int r : stage_ranks(p))
        now_[static_cast<size_t>(r)] =
            std::max(now_[static_cast<size_t>(r)], dp_async_end_[static_cast<size_t>(r)]);
    }
    kernels(p, {kLpNorm});
    tp_collective(p, CommKind::kAllReduce, kGradNormMb);
    kernels(p, {kMul, kApplyAdamW, kCast});
  }

  const GeneratorOptions& opts_;
  const Topology& topo_;
  SimulationResult res_;
  std::vector<std::mt19937_64> rng_;
  std::vector<double> now_;           // per rank: when its stream is free
  std::vector<double> dp_async_end_;  // per rank: end of the overlapped DP allreduce
  std::vector<double> compute_factor_;
  std::vector<double> host_gap_;  // per rank: extra idle before each kernel launch, us
  std::vector<std::vector<double>> kernel_factor_;
  std::map<std::pair<int, int>, double> link_factor_;
  std::vector<int> seq_;
  std::vector<std::vector<int>> stage_tp_, stage_dp_;
  double grad_mb_ = 0;
  int step_ = 0;
};

}  // namespace

SimulationResult simulate(const GeneratorOptions& opts, const Topology& topo) {
  return Sim(opts, topo).run();
}

}  // namespace cs::generator
