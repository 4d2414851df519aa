// communication.json of one rank (docs/formats.md §2).
#include <array>
#include <vector>

#include "generator/job/writers.h"
#include "io/json/json_writer.h"
#include "io/py_format.h"

namespace cs::generator {

std::string comm_op_name(const Topology& topo, const CommRecord& c) {
  const Group& g = topo.groups[static_cast<size_t>(c.group)];
  return std::string(comm_op_stem(c.kind)) + "_" + g.hash_tail + "_" + std::to_string(c.seq) + "_1";
}

std::string comm_op_key(const Topology& topo, const CommRecord& c) {
  return comm_op_name(topo, c) + "@" + topo.groups[static_cast<size_t>(c.group)].hash;
}

namespace {

using io::JsonWriter;
using io::Num;

// Transport blocks in producer order; SDMA = HCCS + PCIE + SIO.
enum Block { kRdma, kHccs, kPcie, kSdma, kSio, kBlockCount };
constexpr std::array<const char*, kBlockCount> kBlockNames = {"RDMA", "HCCS", "PCIE", "SDMA",
                                                              "SIO"};

struct BlockSum {
  double size_mb = 0, time_ms = 0;
  int packets = 0, large = 0;
  std::vector<std::pair<double, std::pair<int, double>>> dist;  // packet MB -> (count, ms)

  void add(const LinkTransfer& l, double large_threshold_mb) {
    size_mb += l.size_mb();
    time_ms += l.time_ms;
    packets += l.packets;
    if (l.packet_mb > large_threshold_mb) large += l.packets;
    for (auto& d : dist)
      if (d.first == l.packet_mb) {
        d.second.first += l.packets;
        d.second.second += l.time_ms;
        return;
      }
    dist.push_back({l.packet_mb, {l.packets, l.time_ms}});
  }
};

struct TimeSum {
  double start_us = -1, elapse = 0, transit = 0, wait = 0, sync = 0, idle = 0;
  void add(const CommRecord& c) {
    if (start_us < 0) start_us = c.start_us;
    elapse += (c.end_us - c.start_us) / 1000.0;
    transit += c.transit_ms;
    wait += c.wait_ms;
    sync += c.sync_ms;
    idle += c.idle_ms;
  }
};

double ratio(double a, double b) {
  return a + b < 1e-15 ? 0.0 : io::py_round(a / (a + b), 4);
}

void add_links(std::array<BlockSum, kBlockCount>& b, const CommRecord& c) {
  for (const auto& l : c.links) {
    if (l.transport == Transport::kRdma) b[kRdma].add(l, 0.5);
    if (l.transport == Transport::kHccs) b[kHccs].add(l, 32.0);
  }
}

void write_time_info(JsonWriter& w, int64_t base_us, const TimeSum& t) {
  w.key("Communication Time Info");
  w.begin_object();
  w.key("Start Timestamp(us)");
  w.value(static_cast<double>(base_us) + t.start_us);
  w.key("Elapse Time(ms)");
  w.value(t.elapse);
  w.key("Transit Time(ms)");
  w.value(t.transit);
  w.key("Wait Time(ms)");
  w.value(t.wait);
  w.key("Synchronization Time(ms)");
  w.value(t.sync);
  w.key("Idle Time(ms)");
  w.value(t.idle);
  w.key("Wait Time Ratio");
  w.value(ratio(t.wait, t.transit));
  w.key("Synchronization Time Ratio");
  w.value(ratio(t.sync, t.transit));
  w.end_object();
}

void write_block(JsonWriter& w, const BlockSum& b, bool summary_only) {
  w.begin_object();
  if (b.packets == 0) {  // an unused transport: Python ints, as the producer writes them
    for (const char* k :
         {"Transit Size(MB)", "Transit Time(ms)", "Bandwidth(GB/s)", "Large Packet Ratio"}) {
      w.key(k);
      w.value(Num::integer(0));
    }
    w.key("Size Distribution");
    w.begin_object();
    w.end_object();
    w.end_object();
    return;
  }
  w.key("Transit Size(MB)");
  w.value(b.size_mb);
  w.key("Transit Time(ms)");
  w.value(b.time_ms);
  w.key("Bandwidth(GB/s)");
  w.value(b.time_ms > 0 ? io::py_round(b.size_mb / b.time_ms, 4) : 0.0);
  w.key("Large Packet Ratio");
  if (summary_only)
    w.value(Num::integer(0));
  else
    w.value(io::py_round(static_cast<double>(b.large) / b.packets, 4));
  w.key("Size Distribution");
  w.begin_object();
  if (!summary_only) {
    for (const auto& d : b.dist) {
      w.key(io::py_repr(d.first));
      w.begin_array();
      w.value(Num::integer(d.second.first));
      w.value(d.second.second);
      w.end_array();
    }
  }
  w.end_object();
  w.end_object();
}

void write_bandwidth_info(JsonWriter& w, std::array<BlockSum, kBlockCount>& b) {
  BlockSum& sdma = b[kSdma];
  sdma = BlockSum{};
  for (Block x : {kHccs, kPcie, kSio}) {
    sdma.size_mb += b[x].size_mb;
    sdma.time_ms += b[x].time_ms;
    sdma.packets += b[x].packets;
  }
  w.key("Communication Bandwidth Info");
  w.begin_object();
  for (int i = 0; i < kBlockCount; ++i) {
    w.key(kBlockNames[static_cast<size_t>(i)]);
    write_block(w, b[static_cast<size_t>(i)], i == kSdma);
  }
  w.end_object();
}

void write_ops(JsonWriter& w, const WriteContext& ctx, const std::vector<const CommRecord*>& ops) {
  w.begin_object();
  TimeSum total_t;
  std::array<BlockSum, kBlockCount> total_b{};
  for (const CommRecord* c : ops) {
    w.key(comm_op_key(ctx.topo, *c));
    w.begin_object();
    TimeSum t;
    t.add(*c);
    total_t.add(*c);
    write_time_info(w, ctx.base_us, t);
    std::array<BlockSum, kBlockCount> b{};
    add_links(b, *c);
    add_links(total_b, *c);
    write_bandwidth_info(w, b);
    w.end_object();
  }
  if (!ops.empty()) {
    w.key("Total Op Info");
    w.begin_object();
    write_time_info(w, ctx.base_us, total_t);
    write_bandwidth_info(w, total_b);
    w.end_object();
  }
  w.end_object();
}

}  // namespace

std::string render_communication_json(const WriteContext& ctx, int /*rank*/,
                                      const RankTimeline& tl) {
  return render_steps_json(tl, 1400, [&](JsonWriter& w, const std::vector<const CommRecord*>& ops) {
    write_ops(w, ctx, ops);
  });
}

std::string render_msprof_communication_json(const WriteContext& ctx, int /*rank*/,
                                             const RankTimeline& tl) {
  std::vector<const CommRecord*> ops;
  ops.reserve(tl.comms.size());
  for (const auto& c : tl.comms) ops.push_back(&c);
  std::string out;
  out.reserve(tl.comms.size() * 1400 + 64);
  JsonWriter w(&out, io::JsonStyle::python());
  write_ops(w, ctx, ops);  // every op instance of every step, then "Total Op Info"
  return out;
}

}  // namespace cs::generator
