#include <charconv>
#include <cstdint>
#include <unordered_map>

#include "io/json/json_validate.h"
#include "timeline/merge_timestamp.h"
#include "timeline/merge_trace.h"
#include "timeline/trace_event_walker.h"

// The second pass of `merge` over one rank's trace: every event streamed out again, renumbered
// and shifted (timeline/merge_trace.h, rewrite_trace).

namespace cs::timeline {

namespace {

constexpr size_t kChunkBytes = size_t{1} << 20;

void append_int(std::string& out, int64_t v) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

}  // namespace

bool rewrite_trace(simdjson::padded_string_view json, const std::string& source,
                   const TraceScan& scan, const RankPlan& plan,
                   const std::function<void(std::string_view)>& sink, RewriteStats& stats,
                   io::Diagnostics& diag) {
  stats = RewriteStats{};
  std::unordered_map<std::string_view, size_t> index;
  for (size_t i = 0; i < scan.processes.size(); ++i) index.emplace(scan.processes[i].pid, i);
  std::unordered_map<std::string_view, int64_t> flow_ids;
  const std::string label = rank_label(plan.rank);
  // A process name: "rank N · " + the name's string contents, when they are valid JSON text.
  auto append_name = [&](std::string& to, std::string_view contents) {
    to += '"' + label;
    if (io::is_valid_json_string_contents(contents)) {
      to += contents;
    } else {
      to += "(name not valid JSON)";
      ++stats.invalid_fields;
    }
    to += '"';
  };
  // "rank N · pid <pid>" for a process the input does not name.
  auto append_pid_name = [&](std::string& to, std::string_view pid) {
    std::string contents = "pid ";
    if (is_quoted(pid)) {
      contents += pid.substr(1, pid.size() - 2);
    } else if (io::is_valid_json_value(pid)) {
      contents += pid;  // a number
    } else {
      contents += '?';
    }
    append_name(to, contents);
  };
  std::string val;  // one field's value, checked before it is written
  const int64_t flow_base = int64_t{plan.rank} * kFlowIdStride;
  std::string out;
  out.reserve(kChunkBytes + 65536);

  // Metadata the viewer needs to name and order every process.
  for (size_t i = 0; i < scan.processes.size(); ++i) {
    const TraceProcess& p = scan.processes[i];
    if (!p.has_name) {
      out += ",\n{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":";
      append_int(out, plan.new_pid[i]);
      out += ",\"tid\":0,\"args\":{\"name\":";
      append_pid_name(out, p.pid);
      out += "}}";
      ++stats.added_metadata;
    }
    if (!p.has_sort) {
      out += ",\n{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":";
      append_int(out, plan.new_pid[i]);
      out += ",\"tid\":0,\"args\":{\"sort_index\":";
      append_int(out, plan.new_pid[i]);
      out += "}}";
      ++stats.added_metadata;
    }
  }

  od::parser small;
  std::vector<std::pair<std::string, std::string>> args;
  size_t last_index = 0;
  std::string_view last_pid;
  EventWalker walker(json, source, diag);
  const bool ok = walker.walk(
      nullptr,
      [&](const RawEvent& ev) {
        ++stats.events;
        const std::string_view ph = ev.str(ev.ph);
        const bool flow = ph == "s" || ph == "f" || ph == "t";
        const bool meta = ph == "M";
        size_t proc = SIZE_MAX;
        if (ev.pid >= 0) {
          std::string_view pid = ev.raw(ev.pid);
          if (pid.data() != last_pid.data() && pid != last_pid) {
            auto it = index.find(pid);
            if (it != index.end()) {
              last_pid = pid;
              last_index = it->second;
            }
          }
          if (pid == last_pid) proc = last_index;
        }
        out += ",\n{";
        bool first = true;
        for (size_t i = 0; i < ev.fields.size(); ++i) {
          const RawField& f = ev.fields[i];
          const int fi = static_cast<int>(i);
          // Every field is rendered apart and checked: one that is not valid JSON (NaN, a bad
          // string or escape, deep nesting) is left out, never copied.
          if (!io::is_valid_json_string_contents(f.key)) {
            ++stats.invalid_fields;
            continue;
          }
          val.clear();
          if (fi == ev.pid && proc != SIZE_MAX) {
            append_int(val, plan.new_pid[proc]);
          } else if (fi == ev.ts) {
            if (!shift_timestamp(f.value, plan.shift_ns, val)) val = f.value;
          } else if ((fi == ev.id && flow) || fi == ev.bind_id) {
            auto [it, added] = flow_ids.emplace(f.value, 0);
            if (added) it->second = flow_base + static_cast<int64_t>(flow_ids.size());
            append_int(val, it->second);
          } else if (fi == ev.args && meta && proc != SIZE_MAX &&
                     (ev.str(ev.name) == "process_name" ||
                      ev.str(ev.name) == "process_sort_index") &&
                     split_object(small, f.value, args)) {
            const bool naming = ev.str(ev.name) == "process_name";
            const char* key = naming ? "name" : "sort_index";
            bool seen = false, any = false;
            val += '{';
            for (size_t k = 0; k < args.size(); ++k) {
              const bool mine = args[k].first == key && !seen;
              if (!io::is_valid_json_string_contents(args[k].first) ||
                  (!mine && !io::is_valid_json_value(args[k].second))) {
                ++stats.invalid_fields;
                continue;
              }
              if (any) val += ',';
              any = true;
              val += '"' + args[k].first + "\":";
              if (mine) {
                seen = true;
                if (naming) {
                  std::string_view v = args[k].second;
                  append_name(val, is_quoted(v) ? v.substr(1, v.size() - 2) : v);
                } else {
                  append_int(val, plan.new_pid[proc]);
                }
              } else {
                val += args[k].second;
              }
            }
            if (!seen) {
              if (any) val += ',';
              val += '"';
              val += key;
              val += "\":";
              if (naming) {
                append_pid_name(val, scan.processes[proc].pid);
              } else {
                append_int(val, plan.new_pid[proc]);
              }
            }
            val += '}';
          } else {
            val = f.value;
          }
          if (!io::is_valid_json_value(val)) {
            ++stats.invalid_fields;
            continue;
          }
          if (!first) out += ',';
          first = false;
          out += '"';
          out += f.key;
          out += "\":";
          out += val;
        }
        out += '}';
        if (out.size() >= kChunkBytes) {
          sink(out);
          out.clear();
        }
      },
      [](std::string_view, od::value) { return simdjson::SUCCESS; });
  if (!out.empty()) sink(out);
  stats.flow_ids = flow_ids.size();
  if (stats.invalid_fields > 0)
    diag.warn(source, 0,
              std::to_string(stats.invalid_fields) +
                  " event field(s) were not valid JSON (NaN/Infinity, a broken string or escape, "
                  "a raw control character, nesting over " +
                  std::to_string(io::kMaxJsonCopyDepth) + " levels) and were left out",
              "the rest of each event was merged; regenerate the file to keep those fields");
  return ok;
}

}  // namespace cs::timeline
