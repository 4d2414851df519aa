// communication_matrix.json of one rank (docs/formats.md §3).
#include <algorithm>
#include <map>
#include <utility>
#include <vector>

#include "generator/job/writers.h"
#include "io/json/json_writer.h"
#include "io/py_format.h"

namespace cs::generator {

namespace {

using io::JsonWriter;

struct LinkUse {
  const CommRecord* op;
  const LinkTransfer* link;
  double bandwidth;  // GB/s
};

double large_ratio(const LinkTransfer& l) {
  double threshold = l.transport == Transport::kRdma ? 0.5 : 32.0;
  return l.packet_mb > threshold ? 1.0 : 0.0;
}

// `op_name` null: no "Op Name" (CANN's flat layout leaves it out).
void write_link(JsonWriter& w, Transport t, double size, double time, double large,
                const std::string* op_name) {
  double bw = time > 0 ? size / time : 0.0;
  double nominal = nominal_bandwidth_gbps(t);
  w.begin_object();
  w.key("Transport Type");
  w.value(transport_name(t));
  w.key("Transit Size(MB)");
  w.value(size);
  w.key("Transit Time(ms)");
  w.value(time);
  w.key("Bandwidth(GB/s)");
  w.value(io::py_round(bw, 4));
  w.key("Bandwidth(Utilization)");
  w.value(nominal > 0 ? io::py_round(bw / nominal, 4) : 0.0);
  w.key("Large Packet Ratio");
  w.value(io::py_round(large, 4));
  if (op_name) {
    w.key("Op Name");
    w.value(*op_name);
  }
  w.end_object();
}

// All keys of one (op type, group): top1, middle, bottom1..3 chosen per link by bandwidth,
// then the total over all ops.
void write_group(JsonWriter& w, const WriteContext& ctx, const std::string& type,
                 const std::string& hash, const std::vector<const CommRecord*>& ops) {
  std::map<std::pair<int, int>, std::vector<LinkUse>> per_link;  // sorted by (src, dst)
  for (const CommRecord* op : ops)
    for (const auto& l : op->links)
      per_link[{l.src_local, l.dst_local}].push_back(
          {op, &l, l.time_ms > 0 ? l.size_mb() / l.time_ms : 0.0});
  for (auto& [k, uses] : per_link)
    std::stable_sort(uses.begin(), uses.end(),
                     [](const LinkUse& a, const LinkUse& b) { return a.bandwidth > b.bandwidth; });

  static const std::pair<const char*, int> kPicks[] = {
      {"top1", 0}, {"middle", -1}, {"bottom1", -2}, {"bottom2", -3}, {"bottom3", -4}};
  for (const auto& [label, pick] : kPicks) {
    w.key(type + "-" + label + "@" + hash);
    w.begin_object();
    for (const auto& [k, uses] : per_link) {
      int n = static_cast<int>(uses.size());
      int i = pick == 0 ? 0 : pick == -1 ? n / 2 : std::max(0, n + pick + 1);
      const LinkUse& u = uses[static_cast<size_t>(i)];
      w.key(std::to_string(k.first) + "-" + std::to_string(k.second));
      const std::string name = comm_op_name(ctx.topo, *u.op);
      write_link(w, u.link->transport, u.link->size_mb(), u.link->time_ms, large_ratio(*u.link),
                 &name);
    }
    w.end_object();
  }
  w.key(type + "-total@" + hash);
  w.begin_object();
  for (const auto& [k, uses] : per_link) {
    double size = 0, time = 0, large = 0, packets = 0;
    for (const auto& u : uses) {
      size += u.link->size_mb();
      time += u.link->time_ms;
      large += large_ratio(*u.link) * u.link->packets;
      packets += u.link->packets;
    }
    w.key(std::to_string(k.first) + "-" + std::to_string(k.second));
    const std::string none;
    write_link(w, uses.front().link->transport, size, time, packets > 0 ? large / packets : 0.0,
               &none);
  }
  w.end_object();
}

void write_category(JsonWriter& w, const WriteContext& ctx,
                    const std::vector<const CommRecord*>& ops) {
  // (op type, group) in order of first appearance.
  std::vector<std::pair<std::string, int>> order;
  std::map<std::pair<std::string, int>, std::vector<const CommRecord*>> by_key;
  for (const CommRecord* c : ops) {
    if (c->kind == CommKind::kReceive) continue;  // the sender reports the p2p link
    std::pair<std::string, int> key{comm_matrix_type(c->kind), c->group};
    auto& v = by_key[key];
    if (v.empty()) order.push_back(key);
    v.push_back(c);
  }
  w.begin_object();
  for (const auto& key : order)
    write_group(w, ctx, key.first, ctx.topo.groups[static_cast<size_t>(key.second)].hash,
                by_key[key]);
  w.end_object();
}

}  // namespace

std::string render_matrix_json(const WriteContext& ctx, int /*rank*/, const RankTimeline& tl) {
  return render_steps_json(tl, 800, [&](JsonWriter& w, const std::vector<const CommRecord*>& ops) {
    write_category(w, ctx, ops);
  });
}

std::string render_msprof_matrix_json(const WriteContext& ctx, int /*rank*/,
                                      const RankTimeline& tl) {
  std::string out;
  out.reserve(tl.comms.size() * 600 + 64);
  JsonWriter w(&out, io::JsonStyle::python());
  w.begin_object();
  std::map<std::pair<int, int>, std::pair<const LinkTransfer*, std::pair<double, double>>> total;
  for (const auto& c : tl.comms) {
    if (c.kind == CommKind::kReceive) continue;  // the sender reports the p2p link
    w.key(comm_op_key(ctx.topo, c));
    w.begin_object();
    for (const auto& l : c.links) {
      w.key(std::to_string(l.src_local) + "-" + std::to_string(l.dst_local));
      write_link(w, l.transport, l.size_mb(), l.time_ms, large_ratio(l), nullptr);
      auto& t =
          total.try_emplace({l.src_local, l.dst_local}, &l, std::pair{0.0, 0.0}).first->second;
      t.second.first += l.size_mb();
      t.second.second += l.time_ms;
    }
    w.end_object();
  }
  if (!total.empty()) {  // the rank's summary per link, which msprof-analyze skips
    w.key("Total Op Info");
    w.begin_object();
    for (const auto& [k, t] : total) {
      w.key(std::to_string(k.first) + "-" + std::to_string(k.second));
      write_link(w, t.first->transport, t.second.first, t.second.second, large_ratio(*t.first),
                 nullptr);
    }
    w.end_object();
  }
  w.end_object();
  return out;
}

}  // namespace cs::generator
