#include "timeline/merge_trace.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <unordered_map>

#include "io/json_input.h"
#include "io/json_validate.h"
#include "readers/kineto_trace.h"
#include "timeline/merge_timestamp.h"

namespace cs::report {

namespace od = simdjson::ondemand;

namespace {

constexpr size_t kChunkBytes = size_t{1} << 20;
constexpr const char* kSkipHint =
    "this rank was left out of the merge; regenerate or repair the file (is it complete?)";

struct RawField {
  std::string_view key;    // as written, without quotes
  std::string_view value;  // raw JSON text
};

// One event object, as views into the input text.
struct RawEvent {
  std::vector<RawField> fields;
  int ph = -1, name = -1, pid = -1, ts = -1, id = -1, bind_id = -1, args = -1;

  void clear() {
    fields.clear();
    ph = name = pid = ts = id = bind_id = args = -1;
  }
  // The contents of a string field (without quotes), "" when absent or not a string.
  std::string_view str(int i) const {
    if (i < 0) return {};
    std::string_view v = fields[static_cast<size_t>(i)].value;
    if (v.size() < 2 || v.front() != '"') return {};
    return v.substr(1, v.size() - 2);
  }
  std::string_view raw(int i) const {
    return i < 0 ? std::string_view() : fields[static_cast<size_t>(i)].value;
  }
};

std::string_view trim_right(std::string_view s) {
  while (!s.empty() &&
         (s.back() == ' ' || s.back() == '\n' || s.back() == '\r' || s.back() == '\t'))
    s.remove_suffix(1);
  return s;
}

// The raw JSON text of `v` (objects and arrays whole), consuming it.
simdjson::error_code raw_value(od::value v, std::string_view& out) {
  od::json_type t;
  if (auto e = v.type().get(t)) return e;
  if (t == od::json_type::object) {
    od::object o;
    if (auto e = v.get_object().get(o)) return e;
    return o.raw_json().get(out);
  }
  if (t == od::json_type::array) {
    od::array a;
    if (auto e = v.get_array().get(a)) return e;
    return a.raw_json().get(out);
  }
  out = trim_right(v.raw_json_token());
  return simdjson::SUCCESS;
}

// Fields of a small JSON object given as text (an event's args), raw key -> raw value.
bool split_object(od::parser& parser, std::string_view text,
                  std::vector<std::pair<std::string, std::string>>& out) {
  out.clear();
  simdjson::padded_string copy(text);
  od::document doc;
  if (parser.iterate(copy).get(doc)) return false;
  od::object obj;
  if (doc.get_object().get(obj)) return false;
  for (auto f : obj) {
    od::field fld;
    if (std::move(f).get(fld)) return false;
    std::string_view key = io::raw_key(fld), val;
    if (raw_value(fld.value(), val)) return false;
    out.emplace_back(std::string(key), std::string(val));
  }
  return true;
}

bool is_quoted(std::string_view v) {
  return v.size() >= 2 && v.front() == '"';
}

void append_int(std::string& out, int64_t v) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

// Walks the events of a trace document; reports the first structural error.
class EventWalker {
 public:
  EventWalker(simdjson::padded_string_view json, const std::string& source, io::Diagnostics& diag)
      : json_(json), source_(source), diag_(diag) {}

  // on_event(const RawEvent&) for each event object; on_top(std::string_view key, od::value)
  // for each top-level member other than traceEvents (object form only).
  template <class OnEvent, class OnTop>
  bool walk(TraceScan* facts, OnEvent&& on_event, OnTop&& on_top) {
    od::parser& parser = io::thread_json_parser();
    od::document doc;
    if (auto err = parser.iterate(json_).get(doc)) return fail(nullptr, err, "not valid JSON");
    od::json_type top;
    if (auto err = doc.type().get(top)) return fail(&doc, err, "not valid JSON");
    if (top == od::json_type::array) {
      od::array arr;
      if (auto err = doc.get_array().get(arr)) return fail(&doc, err, "cannot read the array");
      return walk_array(arr, doc, facts, on_event);
    }
    if (top != od::json_type::object) {
      diag_.error(source_, 1, "not a Chrome trace: the top level is neither an array nor an object",
                  std::string("expected trace_view.json or a PyTorch profiler trace; ") + kSkipHint,
                  0);
      return false;
    }
    if (facts) facts->object_form = true;
    od::object obj;
    if (auto err = doc.get_object().get(obj)) return fail(&doc, err, "cannot read the object");
    bool found = false;
    for (auto f : obj) {
      od::field fld;
      if (auto err = std::move(f).get(fld)) return fail(&doc, err, "top-level object is malformed");
      std::string_view key;
      if (auto err = fld.unescaped_key().get(key)) return fail(&doc, err, "bad key");
      if (key == "traceEvents") {
        found = true;
        od::array arr;
        if (auto err = fld.value().get_array().get(arr))
          return fail(&doc, err, "\"traceEvents\" is not an array");
        if (!walk_array(arr, doc, facts, on_event)) return false;
      } else {
        if (auto err = on_top(key, fld.value()))
          return fail(&doc, err, "top-level member is malformed");
      }
    }
    if (!found) {
      diag_.error(source_, 0, "no \"traceEvents\" array: not a Chrome/PyTorch profiler trace",
                  kSkipHint, 0);
      return false;
    }
    return true;
  }

 private:
  template <class OnEvent>
  bool walk_array(od::array arr, od::document& doc, TraceScan* facts, OnEvent&& on_event) {
    for (auto elem : arr) {
      od::value v;
      if (auto err = elem.get(v)) return fail(&doc, err, "events array is malformed");
      od::object obj;
      if (auto err = v.get_object().get(obj)) {
        if (err != simdjson::INCORRECT_TYPE) return fail(&doc, err, "event is malformed");
        if (facts) {
          if (facts->skipped == 0)
            warn(doc, "an element of the events array is not an object", "it was left out");
          ++facts->skipped;
        }
        continue;
      }
      ev_.clear();
      for (auto f : obj) {
        od::field fld;
        if (auto err = std::move(f).get(fld)) return fail(&doc, err, "event is malformed");
        RawField rf;
        rf.key = io::raw_key(fld);
        if (auto err = raw_value(fld.value(), rf.value))
          return fail(&doc, err, "event is malformed");
        const int idx = static_cast<int>(ev_.fields.size());
        ev_.fields.push_back(rf);
        classify(rf.key, idx);
      }
      on_event(static_cast<const RawEvent&>(ev_));
    }
    return true;
  }

  void classify(std::string_view key, int idx) {
    switch (key.size()) {
      case 2:
        if (key == "ph")
          ev_.ph = idx;
        else if (key == "ts")
          ev_.ts = idx;
        else if (key == "id")
          ev_.id = idx;
        break;
      case 3:
        if (key == "pid") ev_.pid = idx;
        break;
      case 4:
        if (key == "name")
          ev_.name = idx;
        else if (key == "args")
          ev_.args = idx;
        break;
      case 7:
        if (key == "bind_id") ev_.bind_id = idx;
        break;
      default:
        break;
    }
  }

  int64_t offset(od::document* doc) {
    const char* p = nullptr;
    if (!doc || doc->current_location().get(p)) return static_cast<int64_t>(json_.length());
    return p - json_.data();
  }

  bool fail(od::document* doc, simdjson::error_code err, const std::string& what) {
    const int64_t off = offset(doc);
    io::TextLocator loc(std::string_view(json_.data(), json_.length()));
    diag_.error(source_, loc.line_of(off), what + ": " + io::json_error_what(err), kSkipHint, off);
    return false;
  }

  void warn(od::document& doc, const std::string& what, const std::string& hint) {
    const int64_t off = offset(&doc);
    io::TextLocator loc(std::string_view(json_.data(), json_.length()));
    diag_.warn(source_, loc.line_of(off), what, hint, off);
  }

  simdjson::padded_string_view json_;
  const std::string& source_;
  io::Diagnostics& diag_;
  RawEvent ev_;
};

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
          if (name.find(align) != std::string_view::npos && io::parse_us_to_ns(ev.raw(ev.ts), ns) &&
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

}  // namespace cs::report
