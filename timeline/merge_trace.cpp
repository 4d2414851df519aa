#include "timeline/merge_trace.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <numeric>
#include <unordered_map>

#include "io/json/json_input.h"
#include "readers/kineto_trace.h"
#include "timeline/merge_timestamp.h"
#include "timeline/trace_event_walker.h"

// The first pass of `merge` over one rank's trace (scan_trace) and the rank's plan (plan_rank);
// the second pass, rewrite_trace, is in merge_rewrite.cpp.

namespace cs::timeline {

namespace {

bool is_align_phase(std::string_view ph) {
  return ph == "X" || ph == "B" || ph == "i" || ph == "I" || ph == "b" || ph == "n";
}

simdjson::error_code read_top_fact(std::string_view key, od::value v, TraceScan& out) {
  if (key == "baseTimeNanoseconds") {
    int64_t b;
    if (v.get_int64().get(b) == simdjson::SUCCESS) out.base_time_ns = b;
  } else if (key == "distributedInfo") {
    od::object o;
    if (v.get_object().get(o)) return simdjson::SUCCESS;  // not an object: ignored
    for (auto f : o) {
      od::field fld;
      if (auto e = std::move(f).get(fld)) return e;
      if (io::raw_key(fld) == "rank") {
        int64_t r;
        if (fld.value().get_int64().get(r) == simdjson::SUCCESS && r >= 0 && r < (1 << 30))
          out.distributed_rank = static_cast<int>(r);
      }
    }
  }
  return simdjson::SUCCESS;
}

}  // namespace

std::string rank_label(int rank) {
  return "rank " + std::to_string(rank) + " \u00b7 ";
}

bool scan_trace(simdjson::padded_string_view json, const std::string& source,
                std::string_view align, TraceScan& out, io::Diagnostics& diag) {
  out = TraceScan{};
  std::unordered_map<std::string_view, size_t> index;  // raw pid -> process
  od::parser small;
  std::vector<std::pair<std::string, std::string>> args;
  auto process_of = [&](std::string_view pid) -> TraceProcess& {
    auto [it, added] = index.emplace(pid, out.processes.size());
    if (added) {
      out.processes.emplace_back();
      out.processes.back().pid = std::string(pid);
    }
    return out.processes[it->second];
  };
  EventWalker walker(json, source, diag);
  return walker.walk(
      &out,
      [&](const RawEvent& ev) {
        ++out.events;
        if (ev.pid >= 0) {
          TraceProcess& p = process_of(ev.raw(ev.pid));
          if (ev.str(ev.ph) == "M" && ev.args >= 0) {
            std::string_view name = ev.str(ev.name);
            if (name == "process_name" && split_object(small, ev.raw(ev.args), args)) {
              for (auto& [k, v] : args)
                if (k == "name") {
                  p.has_name = true;
                  p.name = is_quoted(v) ? v.substr(1, v.size() - 2) : v;
                }
            } else if (name == "process_sort_index" && split_object(small, ev.raw(ev.args), args)) {
              for (auto& [k, v] : args)
                if (k == "sort_index") {
                  double d = 0;
                  auto r = std::from_chars(v.data(), v.data() + v.size(), d);
                  if (r.ec == std::errc()) {
                    p.has_sort = true;
                    p.sort_index = d;
                  }
                }
            }
          }
        }
        if (!align.empty() && ev.ts >= 0 && ev.name >= 0 && is_align_phase(ev.str(ev.ph))) {
          std::string_view name = ev.str(ev.name);
          int64_t ns;
          if (name.find(align) != std::string_view::npos &&
              readers::parse_us_to_ns(ev.raw(ev.ts), ns) &&
              (!out.align_found || ns < out.align_ns)) {
            out.align_found = true;
            out.align_ns = ns;
            out.align_event = std::string(name);
          }
        }
      },
      [&](std::string_view key, od::value v) { return read_top_fact(key, v, out); });
}

RankPlan plan_rank(const TraceScan& scan, int rank, int64_t shift_ns) {
  RankPlan plan;
  plan.rank = rank;
  plan.shift_ns = shift_ns;
  std::vector<size_t> order(scan.processes.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const TraceProcess& pa = scan.processes[a];
    const TraceProcess& pb = scan.processes[b];
    if (pa.has_sort != pb.has_sort) return pa.has_sort;
    return pa.has_sort && pa.sort_index < pb.sort_index;
  });
  plan.new_pid.resize(order.size());
  for (size_t pos = 0; pos < order.size(); ++pos)
    plan.new_pid[order[pos]] = int64_t{rank} * kPidStride + static_cast<int64_t>(pos);
  return plan;
}

}  // namespace cs::timeline
