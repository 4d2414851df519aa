// ascend_pytorch_profiler_{rank}.db of one rank: the simulated timeline in torch_npu's DB export
// tables. Every string column is an id into STRING_IDS, times are absolute nanoseconds. The
// kernels and hcom ops are those of kernel_details.csv at the same nanoseconds (so text and DB
// give the same durations), each with its host side: a framework op in PYTORCH_API linked by
// CONNECTION_IDS to its CANN launch in CANN_API, linked by connectionId to the device task. Each
// step starts with a MEMCPY_ASYNC task (the input batch), as real jobs have.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "generator/db_export/db_writers.h"
#include "generator/db_export/profiler_db_schema.h"
#include "generator/db_export/sqlite_writer.h"
#include "generator/db_export/write_memory_tables.h"
#include "generator/db_export/write_mfu_flops.h"
#include "generator/db_export/write_mstx_comm.h"
#include "generator/db_export/write_mstx_modules.h"
#include "generator/db_export/write_mstx_passes.h"
#include "generator/db_export/write_p2p_notify.h"
#include "generator/job/host_model.h"
#include "generator/job/intervals.h"
#include "generator/job/kernel_catalog.h"
#include "generator/job/memory_model.h"
#include "generator/job/write_moe.h"
#include "generator/job/writers.h"

namespace cs::generator {

namespace {

constexpr int kComputeStream = 2;
constexpr int kHcclStream = 56;
constexpr int kCopyStream = 3;
constexpr int64_t kInputCopyNs = 35000;
constexpr double kInputCopyLeadUs = 11.0;  // the copy's launch ends 2 µs before the step

// The framework API torch_npu records for a collective.
const char* hccl_api_name(CommKind k) {
  switch (k) {
    case CommKind::kAllReduce:
      return "HcclAllreduce";
    case CommKind::kAllGather:
      return "HcclAllGather";
    case CommKind::kReduceScatter:
      return "HcclReduceScatter";
    case CommKind::kSend:
      return "HcclSend";
    case CommKind::kReceive:
      return "HcclRecv";
  }
  return "Hccl";
}

// Writes the rows of one rank; the ids (connection, task, framework op) run in event order.
class ProfilerDbWriter {
 public:
  ProfilerDbWriter(SqliteFile& db, const WriteContext& ctx, int rank)
      : ctx_(ctx),
        rank_(rank),
        pid_(100000 +
             static_cast<int64_t>((static_cast<uint64_t>(rank) * 7919u + ctx.opts.seed * 104729u) %
                                  800000u)),
        tid_(pid_ * (int64_t{1} << 32) + pid_),
        task_(db.insert("TASK", 12)),
        compute_(db.insert("COMPUTE_TASK_INFO", 14)),
        comm_op_(db.insert("COMMUNICATION_OP", 13)),
        comm_task_(db.insert("COMMUNICATION_TASK_INFO", 14)),
        cann_(db.insert("CANN_API", 7)),
        pytorch_(db.insert("PYTORCH_API", 12)),
        connections_(db.insert("CONNECTION_IDS", 2)),
        lead_(launch_lead_us(ctx.opts, rank)) {
    if (ctx.opts.mstx_comm) mstx_comm_.emplace(db.insert("MSTX_EVENTS", 11));  // --mstx-comm
  }

  int64_t ns(double rel_us) const { return abs_ns(ctx_.base_us, rel_us); }

  // The host side of a device event launched at `launch` (relative us) for `op_dur` us:
  // PYTORCH_API op, CONNECTION_IDS link and CANN_API launch. Returns the connection id.
  int64_t host_side(std::string_view op, double launch, double op_dur, int api_type,
                    std::string_view api) {
    const int64_t conn = next_conn_++;
    const int64_t fw = next_fw_++;
    pytorch_.row({ns(launch), ns(launch + op_dur), tid_, fw, ids_.id(op), std::nullopt,
                  std::nullopt, std::nullopt, std::nullopt, std::nullopt, kApiTypeOp, 0});
    connections_.row({fw, conn});
    cann_.row({ns(launch + 0.1 * op_dur), ns(launch + 0.9 * op_dur), api_type, tid_, conn,
               ids_.id(api), 0});
    return conn;
  }

  void kernel(const KernelEvent& e, double gap_us) {
    MoeSpec moe;
    const KernelSpec& k = recorded_kernel(ctx_, rank_, e, moe);
    const double op_dur = host_op_duration_us(gap_us);
    const int64_t conn =
        host_side(framework_op_name(k.type), e.start_us - lead_, op_dur, kApiTypeNode, "launch");
    const int64_t start = ns(e.start_us);
    const int64_t end = start + std::llround(static_cast<double>(e.dur_us) * 1000.0);
    host_ops_.push_back({ns(e.start_us - lead_), ns(e.start_us - lead_ + op_dur), next_fw_ - 1,
                         e.start_us, std::string(framework_op_name(k.type)), std::string(k.type),
                         start, end, false});
    if (ctx_.opts.mfu_flops)  // write_mfu_flops.h
      if (const auto flops = recorded_flops(k, ctx_.topo.tp))
        flops_calls_.push_back({host_ops_.back().start_ns, host_ops_.back().end_ns, e.start_us,
                                *flops, flops_call_name(k)});
    if (e.step < links_.size()) {
      StepLinks& l = links_[e.step];
      const HostLaunch h{conn, ns(e.start_us - lead_), ns(e.start_us - lead_ + op_dur)};
      if (l.first_kernel.conn < 0) l.first_kernel = h;
      l.last_kernel = h;
      l.tail_starts[l.kernels++ % kTail] = h.start_ns;
    }
    const int64_t gid = next_task_++;
    task_.row({start, end, rank_ % kDevicesPerNode, conn, gid, pid_, ids_.id(device_task_type(k)),
               kNoValue, kComputeStream, next_task_id_++, kNoValue, 0});
    // Shapes keep the quotes kernel_details.csv's cells hold after CSV unquoting.
    compute_.row({ids_.id(k.name), gid, k.block_dim, k.mix_block_dim, ids_.id(core_name(k.core)),
                  ids_.id(k.type), ids_.id(k.input_formats), ids_.id(k.input_dtypes),
                  ids_.id(quoted(k.input_shapes)), ids_.id(k.output_formats),
                  ids_.id(k.output_dtypes), ids_.id(quoted(k.output_shapes)), ids_.id("N/A"),
                  std::llround(static_cast<double>(e.wait_us) * 1000.0)});
  }

  void communication(const CommRecord& c) {
    const Group& g = ctx_.topo.groups[static_cast<size_t>(c.group)];
    const std::string name = comm_op_name(ctx_.topo, c);
    const int64_t conn =
        host_side(hccl_api_name(c.kind), c.start_us - lead_, 8.0, kApiTypeNode, "launch");
    const int64_t op_id = next_op_id_++;
    const int64_t name_id = ids_.id(name), group_id = ids_.id(g.id);
    double bytes = 0;
    for (const auto& l : c.links)
      if (l.transport != Transport::kLocal) bytes += l.size_mb() * 1e6;
    // The duration as kernel_details.csv rounds it (the end may differ from ns(end_us) by 1 ns).
    const int64_t start = ns(c.start_us);
    const int64_t end = start + std::llround((c.end_us - c.start_us) * 1000.0);
    host_ops_.push_back({ns(c.start_us - lead_), ns(c.start_us - lead_ + 8.0), next_fw_ - 1,
                         c.start_us, hccl_api_name(c.kind), comm_op_stem(c.kind), start, end,
                         true});
    comm_op_.row({name_id, start, end, conn, group_id, op_id, 0, 0, kDataTypeBf16,
                  ids_.id(g.ring ? "RING" : "MESH"),
                  static_cast<int64_t>(std::llround(bytes / 2.0)), ids_.id(comm_op_stem(c.kind)),
                  std::llround(c.wait_ms * 1e6)});
    // One device task per link: the transfer ends with the op.
    for (const auto& l : c.links) {
      const bool rdma = l.transport == Transport::kRdma;
      const bool local = l.transport == Transport::kLocal;
      const int64_t task_start = std::max<int64_t>(start, end - std::llround(l.time_ms * 1e6));
      const int64_t gid = next_task_++;
      task_.row({task_start, end, rank_ % kDevicesPerNode, conn, gid, pid_,
                 ids_.id(rdma ? "RDMA_SEND" : "SDMA"), kNoValue, kHcclStream, next_task_id_++,
                 kNoValue, 0});
      comm_task_.row({name_id, gid,
                      ids_.id(rdma    ? "RDMASend"
                              : local ? "Reduce_Inline"
                                      : "Memcpy"),
                      0, group_id, 0, rdma ? kRdmaSendPayload : kRdmaInvalid, l.src_local,
                      l.dst_local,
                      rdma    ? kTransportRdma
                      : local ? kTransportLocal
                              : kTransportSdma,
                      static_cast<int64_t>(std::llround(l.size_mb() * 1e6)), kDataTypeBf16,
                      rdma    ? kLinkRoce
                      : local ? kLinkOnChip
                              : kLinkHccs,
                      op_id});
    }
    if (mstx_comm_) {  // write_mstx_comm.h
      MstxCommSink sink{*mstx_comm_, task_,      ids_,
                        next_conn_,  next_task_, next_task_id_,
                        tid_,        pid_,       rank_ % kDevicesPerNode};
      sink.next_range += op_id;
      std::string stem = comm_op_stem(c.kind);
      stem.pop_back();
      write_mstx_comm_op(sink,
                         {stem.c_str(), g.id, static_cast<int64_t>(std::llround(bytes / 2.0)),
                          start, end, ns(c.start_us - lead_), ns(c.start_us - lead_ + 8.0)},
                         kHcclStream);
    }
    if (ctx_.opts.notify_tasks && is_p2p(c.kind) && !c.links.empty()) {  // write_p2p_notify.h
      NotifyTaskSink sink{task_, comm_task_, ids_, next_task_, next_task_id_};
      const int64_t transfer =
          std::max<int64_t>(start, end - std::llround(c.links.front().time_ms * 1e6));
      write_p2p_notify_tasks(sink, c,
                             {start, end, transfer, conn, op_id, name_id, group_id,
                              rank_ % kDevicesPerNode, kHcclStream, pid_});
    }
  }

  // The input batch's host-to-device copy at the start of a step (MEMCPY_ASYNC), launched
  // just before the step so that it never nests with the step's DataLoader.
  void input_copy(double start_us) {
    const double launch = start_us - kInputCopyLeadUs;
    const int64_t conn = host_side("aten::copy_", launch, 8.0, kApiTypeAcl, "aclrtMemcpyAsync");
    links_.push_back({});
    links_.back().input_copy = {conn, ns(launch), ns(launch + 8.0)};
    const int64_t start = ns(start_us);
    task_.row({start, start + kInputCopyNs, rank_ % kDevicesPerNode, conn, next_task_++, pid_,
               ids_.id("MEMCPY_ASYNC"), kNoValue, kCopyStream, next_task_id_++, kNoValue, 0});
  }

  // The DataLoader on the host at the start of step `span` (host_model.h), as trace_view.json
  // draws it: from the step start to the simulation's end of data loading, before the step's
  // first operator. `first_kernel_us` < 0: the step has no kernel.
  void data_loader(const StepSpan& span, double first_kernel_us) {
    const double end = data_loader_end_us(span, first_kernel_us, lead_);
    if (end <= span.start_us) return;
    pytorch_.row({ns(span.start_us), ns(end), tid_, std::nullopt, ids_.id(kDataLoaderOp),
                  std::nullopt, std::nullopt, std::nullopt, std::nullopt, std::nullopt, kApiTypeOp,
                  0});
  }

  // A device event's host launch: its connection id and the framework op's host span (ns).
  struct HostLaunch {
    int64_t conn = -1, start_ns = 0, end_ns = 0;
  };
  // Per step, the launches the mstx marks and range are tied to.
  static constexpr size_t kTail = 4;  // the kernels of the "optimizer" range
  struct StepLinks {
    HostLaunch input_copy, first_kernel, last_kernel;
    size_t kernels = 0;
    int64_t tail_starts[kTail] = {};  // launch starts of the last kTail kernels, as a ring
    // The launch start of the kTail-th kernel from the end (the first kernel when fewer).
    int64_t tail_start() const {
      return kernels < kTail ? first_kernel.start_ns : tail_starts[kernels % kTail];
    }
  };

  // The mstx ranges of each forward/backward pass (--mstx-passes; write_mstx_passes.h).
  void mstx_passes(SqliteFile& db, const RankTimeline& tl) {
    Insert mstx = db.insert("MSTX_EVENTS", 11);
    MstxPassSink sink{mstx,
                      task_,
                      ids_,
                      next_conn_,
                      next_task_,
                      next_task_id_,
                      tid_,
                      pid_,
                      rank_ % kDevicesPerNode,
                      [this](double us) { return ns(us); },
                      lead_};
    pipeline::DualPipeVSchedule schedule;
    if (ctx_.opts.pp_schedule == PpSchedule::kDualPipeV) {  // the blocks of the rank's stage
      schedule = pipeline::dualpipev_schedule(ctx_.topo.pp, ctx_.opts.microbatches);
      sink.blocks = &schedule.blocks[static_cast<size_t>(rank_ / (ctx_.topo.tp * ctx_.topo.dp))];
    }
    write_mstx_passes(sink, tl);
  }

  // The mstx module ranges over the framework ops and their forward/backward links
  // (--mstx-modules; write_mstx_modules.h).
  // With --nsys-sqlite the modules are named as a Qwen2 model's, those of the GPU twin.
  void mstx_modules(SqliteFile& db, const RankTimeline& tl) {
    Insert mstx = db.insert("MSTX_EVENTS", 11);
    MstxModuleSink sink{mstx, connections_, ids_, next_conn_, tid_, 2000000};
    write_mstx_modules(sink, host_ops_, tl,
                       ctx_.opts.nsys_sqlite.empty() ? kGptModules : kQwenNpuModules);
  }
  // The framework ops in launch order (moved out: the writer is done with them).
  std::vector<HostOpSpan> take_host_ops() { return std::move(host_ops_); }

  // The recorded FLOPs of the forward matmuls and attentions (--mfu-flops; write_mfu_flops.h).
  void mfu_flops(SqliteFile& db, const RankTimeline& tl) {
    Insert mstx = db.insert("MSTX_EVENTS", 11);
    write_mfu_flops(mstx, ids_, flops_calls_, tl, tid_, 3000000);
  }

  StringIdTable& ids() { return ids_; }
  int64_t tid() const { return tid_; }
  const std::vector<StepLinks>& step_links() const { return links_; }

 private:
  static std::string quoted(std::string_view s) { return "\"" + std::string(s) + "\""; }
  static const char* device_task_type(const KernelSpec& k) {
    switch (k.core) {
      case Core::kAiCore:
        return "KERNEL_AICORE";
      case Core::kAiVectorCore:
        return "KERNEL_AIVEC";
      case Core::kMixAic:
        return "MIX_AIC";
      case Core::kMixAiv:
        return "MIX_AIV";
      case Core::kAiCpu:
        return "KERNEL_AICPU";
    }
    return "KERNEL_AICORE";
  }

  const WriteContext& ctx_;
  int rank_;
  int64_t pid_, tid_;
  StringIdTable ids_;
  Insert task_, compute_, comm_op_, comm_task_, cann_, pytorch_, connections_;
  int64_t next_conn_ = 1, next_fw_ = 0, next_task_ = 0, next_op_id_ = 1;
  int64_t next_task_id_ = 1000;
  double lead_;  // how far ahead of its device event an operator starts (host_model.h)
  std::vector<StepLinks> links_;
  std::vector<HostOpSpan> host_ops_;    // kernels' and collectives' framework ops, launch order
  std::optional<Insert> mstx_comm_;     // MSTX_EVENTS, for --mstx-comm's markers
  std::vector<FlopsCall> flops_calls_;  // --mfu-flops
};

// The mstx annotations a training script with `mstx.mark(msg, stream)` / `mstx.range_start(msg,
// stream)` leaves, per step: marks "dataloader_start" (tied to the input copy task) and
// "dataloader_stop" (tied to the first kernel), recorded on the host inside the step, and a range
// "optimizer" over the launches of the step's last four kernels, tied to the last one's device
// task. eventType 3 (marker_ex) and 2 (start/end); the connectionId joins TASK (device time) and,
// through CONNECTION_IDS, PYTORCH_API.
void write_mstx_annotations(Insert& mstx, ProfilerDbWriter& w, const RankTimeline& tl) {
  const int64_t mark_start = w.ids().id("dataloader_start");
  const int64_t mark_stop = w.ids().id("dataloader_stop");
  const int64_t range = w.ids().id("optimizer");
  int64_t range_id = static_cast<int64_t>(w.step_links().size()) + 1;  // after the "step N" ranges
  for (size_t s = 0; s < w.step_links().size() && s < tl.steps.size(); ++s) {
    const auto& l = w.step_links()[s];
    if (l.first_kernel.conn < 0) continue;
    // The host records the marks inside the step (the launches it ties them to may run ahead).
    const int64_t step_start = w.ns(tl.steps[s].start_us);
    for (const auto& [msg, at] :
         {std::pair{mark_start, l.input_copy}, {mark_stop, l.first_kernel}}) {
      const int64_t t = std::max(at.start_ns, step_start + (msg == mark_stop ? 1000 : 500));
      mstx.row({t, t, kMstxMarkerEx, kNoValue, kNoValue, msg, w.tid(), w.tid(), 65535, at.conn, 0});
    }
    mstx.row({l.tail_start(), l.last_kernel.end_ns, kMstxStartEnd, range_id++, kNoValue, range,
              w.tid(), w.tid(), 65535, l.last_kernel.conn, 0});
  }
}

// AICORE_FREQ (--slow-freq): the frequency at every step start, 1800 MHz, a slow rank's from its
// second step on.
void write_aicore_freq(SqliteFile& db, const WriteContext& ctx, int rank, const RankTimeline& tl,
                       const ProfilerDbWriter& w) {
  if (ctx.opts.slow_freq.empty()) return;
  db.exec("CREATE TABLE AICORE_FREQ (deviceId INTEGER,timestampNs NUMERIC,freq INTEGER);");
  int mhz = 1800;
  for (const auto& f : ctx.opts.slow_freq)
    if (f.rank == rank) mhz = f.mhz;
  Insert freq = db.insert("AICORE_FREQ", 3);
  for (size_t s = 0; s < tl.steps.size(); ++s)
    freq.row({rank % kDevicesPerNode, w.ns(tl.steps[s].start_us), s == 0 ? 1800 : mhz});
}

// META_DATA, RANK_DEVICE_MAP, HOST_INFO, NPU_INFO, SESSION_TIME_INFO, STEP_TIME, one
// MSTX_EVENTS range per step ("step N", host side only) and the mstx annotations above.
void write_rank_tables(SqliteFile& db, const WriteContext& ctx, int rank, const RankTimeline& tl,
                       ProfilerDbWriter& w) {
  {
    Insert meta = db.insert("META_DATA", 2);
    meta.row({"SCHEMA_VERSION_MICRO", "0"});
    meta.row({"SCHEMA_VERSION_MINOR", "0"});
    meta.row({"SCHEMA_VERSION_MAJOR", "1"});
    meta.row({"SCHEMA_VERSION", "1.0.0"});
    meta.row({"distributed_args", render_distributed_args_json(ctx, rank)});
    meta.row({"parallel_group_info", render_parallel_group_info_json(ctx, rank)});
    if (ctx.opts.pp_schedule == PpSchedule::kDualPipeV)  // as MindSpeed announces its schedule
      meta.row({"pp_info", "{\"microbatch_num\": " + std::to_string(ctx.opts.microbatches) +
                               ", \"pp_type\": \"dualpipev\"}"});
  }
  db.insert("RANK_DEVICE_MAP", 2).row({rank, rank % kDevicesPerNode});
  db.insert("HOST_INFO", 2)
      .row({std::to_string(1000003 * static_cast<uint64_t>(Topology::node(rank)) + 17),
            node_host(rank)});
  db.insert("NPU_INFO", 2).row({rank % kDevicesPerNode, ctx.opts.chip_name()});
  if (tl.steps.empty()) return;
  db.insert("SESSION_TIME_INFO", 2)
      .row({w.ns(tl.steps.front().start_us - 1000.0), w.ns(tl.steps.back().end_us + 1000.0)});
  Insert steps = db.insert("STEP_TIME", 3);
  Insert mstx = db.insert("MSTX_EVENTS", 11);
  for (size_t s = 0; s < tl.steps.size(); ++s) {
    const StepSpan& sp = tl.steps[s];
    const int64_t id = static_cast<int64_t>(s) + 1;
    steps.row({id, w.ns(sp.start_us), w.ns(sp.end_us)});
    mstx.row({w.ns(sp.start_us), w.ns(sp.end_us), kMstxStartEnd, id, kNoValue,
              w.ids().id("step " + std::to_string(id)), w.tid(), w.tid(), 65535, kNoValue, 0});
  }
  write_mstx_annotations(mstx, w, tl);
  write_aicore_freq(db, ctx, rank, tl, w);
}

// OVERLAP_ANALYSIS, as torch_npu writes it beside the tasks (seen in real DB exports): per step,
// the merged Computing (type 0) and Communication (1) spans, Communication not overlapped by
// computing (2) and Free (3: the step's span minus both), the same spans as trace_view.json's
// Overlap Analysis process and step_trace_time.csv's Free.
void write_overlap_analysis(SqliteFile& db, const ProfilerDbWriter& w, int rank,
                            const RankTimeline& tl) {
  std::vector<std::vector<Interval>> compute(tl.steps.size()), comm(tl.steps.size());
  for (const auto& k : tl.kernels)
    if (k.step < tl.steps.size())
      compute[k.step].push_back({k.start_us, k.start_us + static_cast<double>(k.dur_us)});
  for (const auto& c : tl.comms)
    if (static_cast<size_t>(c.step) < tl.steps.size())
      comm[static_cast<size_t>(c.step)].push_back({c.start_us, c.end_us});
  Insert ins = db.insert("OVERLAP_ANALYSIS", 5);
  int64_t id = 1;
  for (size_t s = 0; s < tl.steps.size(); ++s) {
    const auto cp = merged(std::move(compute[s])), cm = merged(std::move(comm[s]));
    std::vector<Interval> busy = cp;
    busy.insert(busy.end(), cm.begin(), cm.end());
    const auto lanes = {cp, cm, minus(cm, cp),
                        minus({{tl.steps[s].start_us, tl.steps[s].end_us}}, merged(busy))};
    int64_t type = 0;
    for (const auto& lane : lanes) {
      for (const auto& [lo, hi] : lane)
        ins.row({id++, rank % kDevicesPerNode, w.ns(lo), w.ns(hi), type});
      ++type;
    }
  }
}

}  // namespace

bool write_profiler_db(const std::string& path, const WriteContext& ctx, int rank,
                       const RankTimeline& tl, io::Diagnostics& diag,
                       std::vector<HostOpSpan>* host_ops) {
  SqliteFile db;
  if (!db.create(path, diag)) return false;
  create_profiler_tables(db);
  write_enum_tables(db);
  {
    ProfilerDbWriter w(db, ctx, rank);
    for (const auto& sp : tl.steps) w.input_copy(sp.start_us + 1.0);
    std::vector<double> first_kernel(tl.steps.size(), -1.0);
    for (const auto& k : tl.kernels)
      if (k.step < first_kernel.size() && first_kernel[k.step] < 0)
        first_kernel[k.step] = k.start_us;
    for (size_t s = 0; s < tl.steps.size(); ++s) w.data_loader(tl.steps[s], first_kernel[s]);
    // Kernels and hcom ops merged by start time, as kernel_details.csv lists them.
    size_t ki = 0, ci = 0;
    while (ki < tl.kernels.size() || ci < tl.comms.size()) {
      const bool take_kernel =
          ci >= tl.comms.size() ||
          (ki < tl.kernels.size() && tl.kernels[ki].start_us <= tl.comms[ci].start_us);
      if (take_kernel) {
        const KernelEvent& e = tl.kernels[ki++];
        const bool next_same_step = ki < tl.kernels.size() && tl.kernels[ki].step == e.step;
        w.kernel(e, next_same_step ? tl.kernels[ki].start_us - e.start_us : 20.0);
      } else {
        w.communication(tl.comms[ci++]);
      }
    }
    write_rank_tables(db, ctx, rank, tl, w);
    if (ctx.opts.mstx_passes) w.mstx_passes(db, tl);
    if (ctx.opts.mstx_modules || !ctx.opts.nsys_sqlite.empty()) w.mstx_modules(db, tl);
    if (ctx.opts.mfu_flops) w.mfu_flops(db, tl);
    if (ctx.opts.writes_memory())  // generator/job/memory_model.h
      write_memory_tables(db, w.ids(), simulate_memory(ctx, rank, tl));
    write_overlap_analysis(db, w, rank, tl);
    w.ids().write(db);
    if (host_ops) *host_ops = w.take_host_ops();
  }
  db.exec(
      "CREATE INDEX TaskIndex ON TASK (startNs,globalTaskId);"
      "CREATE INDEX CommunicationTaskIndex ON COMMUNICATION_TASK_INFO (globalTaskId);");
  if (ctx.opts.mstx_comm)  // the op detail is not recorded (write_mstx_comm.h)
    db.exec("DROP TABLE COMMUNICATION_OP; DROP TABLE COMMUNICATION_TASK_INFO;");
  return db.finish(diag);
}

}  // namespace cs::generator
