#include "io/kineto_trace.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "io/gzip_input.h"
#include "io/json_input.h"

namespace cs::io {

namespace od = simdjson::ondemand;

uint32_t StringPool::intern(std::string_view s) {
  auto it = index_.find(s);
  if (it != index_.end()) return it->second;
  const auto id = static_cast<uint32_t>(strings_.size());
  strings_.emplace_back(s);
  index_.emplace(std::string_view(strings_.back()), id);
  return id;
}

uint32_t StringPool::find(std::string_view s) const {
  auto it = index_.find(s);
  return it == index_.end() ? kNoString : it->second;
}

EventKind kind_from_category(std::string_view cat) {
  if (cat == "kernel") return EventKind::kKernel;
  if (cat == "cpu_op" || cat == "operator" || cat == "Operator") return EventKind::kCpuOp;
  if (cat == "cuda_runtime" || cat == "cuda_driver" || cat == "Runtime") return EventKind::kRuntime;
  if (cat == "user_annotation") return EventKind::kUserAnnotation;
  if (cat == "gpu_user_annotation") return EventKind::kGpuUserAnnotation;
  if (cat == "gpu_memcpy" || cat == "Memcpy") return EventKind::kMemcpy;
  if (cat == "gpu_memset" || cat == "Memset") return EventKind::kMemset;
  if (cat == "cuda_sync") return EventKind::kSync;
  if (cat == "python_function") return EventKind::kPythonFunction;
  if (cat == "Kernel") return EventKind::kKernel;
  return EventKind::kOther;
}

bool parse_us_to_ns(std::string_view t, int64_t& ns) {
  while (!t.empty() && (t.back() == ' ' || t.back() == '\n' || t.back() == '\r' ||
                        t.back() == '\t' || t.back() == ','))
    t.remove_suffix(1);
  while (!t.empty() && (t.front() == ' ' || t.front() == '"')) t.remove_prefix(1);
  if (!t.empty() && t.back() == '"') t.remove_suffix(1);
  if (t.empty()) return false;
  // One pass for an exponent ('e' or 'E': c | 0x20 == 'e'); find_first_of("eE") costs a
  // memchr per character, a tenth of the whole parse.
  bool has_exponent = false;
  for (char c : t) {
    if ((c | 0x20) == 'e') {
      has_exponent = true;
      break;
    }
  }
  if (has_exponent) {
    double d = 0;
    auto r = std::from_chars(t.data(), t.data() + t.size(), d);
    if (r.ec != std::errc() || r.ptr != t.data() + t.size() || !std::isfinite(d)) return false;
    if (std::fabs(d) > 9.2e15) return false;
    ns = std::llround(d * 1000.0);
    return true;
  }
  size_t i = 0;
  bool neg = false;
  if (t[0] == '-' || t[0] == '+') {
    neg = t[0] == '-';
    i = 1;
  }
  int64_t whole = 0;
  size_t digits = 0;
  for (; i < t.size() && t[i] >= '0' && t[i] <= '9'; ++i, ++digits) {
    if (whole > (INT64_MAX / 1000 - 9) / 10) return false;  // ns would overflow
    whole = whole * 10 + (t[i] - '0');
  }
  int64_t frac = 0;
  int fdigits = 0;
  bool round_up = false;
  if (i < t.size() && t[i] == '.') {
    ++i;
    for (; i < t.size() && t[i] >= '0' && t[i] <= '9'; ++i, ++digits) {
      if (fdigits < 3) {
        frac = frac * 10 + (t[i] - '0');
        ++fdigits;
      } else if (fdigits == 3) {
        round_up = t[i] >= '5';
        ++fdigits;
      }
    }
  }
  if (i != t.size() || digits == 0) return false;
  for (int k = std::min(fdigits, 3); k < 3; ++k) frac *= 10;
  int64_t v = whole * 1000 + frac + (round_up ? 1 : 0);
  ns = neg ? -v : v;
  return true;
}

namespace {

// A key of an on-demand field compared without unescaping: raw points just after the quote.
template <size_t N>
inline bool key_is(const char* raw, const char (&lit)[N]) {
  return std::memcmp(raw, lit, N - 1) == 0 && raw[N - 1] == '"';
}

// Everything one event may carry; filled in file order, interpreted at the end.
struct Scratch {
  std::string_view ph, cat, name, bp;
  std::string_view pid_s, tid_s, id_s;
  std::string_view ts_raw;
  bool has_pid_i = false, has_tid_i = false, has_id_i = false, has_dur = false;
  int64_t pid = 0, tid = 0;
  uint64_t id = 0;
  double dur = 0;
  // args
  int64_t correlation = -1, external_id = -1;
  std::string_view input_dims, task_type, arg_name, arg_labels;
  CollectiveArgs coll;
  std::string_view coll_name, dtype, pg_name, pg_ranks;
  bool has_coll = false;
};

class EventParser {
 public:
  EventParser(const simdjson::padded_string& json, const std::string& source, Trace& out,
              Diagnostics& diag)
      : json_(json),
        source_(source),
        out_(out),
        diag_(diag),
        lines_(std::string_view(json.data(), json.size())) {}

  // Parses every element of the events array. False on a structural error (reported).
  bool parse_array(od::array arr, od::document& doc) {
    for (auto elem : arr) {
      od::value v;
      if (auto err = elem.get(v)) return fatal(doc, err, "events array is malformed");
      ++out_.total_events;
      od::object obj;
      if (v.get_object().get(obj)) {
        skip(doc, "an event is not a JSON object");
        continue;
      }
      Scratch s;
      if (auto err = read_fields(obj, s)) {
        if (err == simdjson::INCORRECT_TYPE || err == simdjson::NUMBER_ERROR ||
            err == simdjson::NUMBER_OUT_OF_RANGE) {
          skip(doc,
               std::string("event field has an unexpected type: ") + simdjson::error_message(err));
          continue;
        }
        return fatal(doc, err, "event is malformed");
      }
      emit(s, doc);
    }
    return true;
  }

  bool fatal(od::document& doc, simdjson::error_code err, const std::string& what) {
    const int64_t off = offset(doc);
    diag_.error(source_, lines_.line_of(off), what + ": " + json_error_what(err),
                json_error_hint(err) + " (events before this point were kept)", off);
    return false;
  }

 private:
  int64_t offset(od::document& doc) {
    const char* p = nullptr;
    if (doc.current_location().get(p)) return static_cast<int64_t>(json_.size());
    return p - json_.data();
  }

  void skip(od::document& doc, const std::string& what) {
    ++out_.skipped_events;
    const int64_t off = offset(doc);
    diag_.warn(source_, lines_.line_of(off), what, "the event was skipped", off);
  }

  static simdjson::error_code number_or_string(od::value v, std::string_view& s, int64_t& i,
                                               bool& is_int) {
    od::json_type t;
    if (auto e = v.type().get(t)) return e;
    if (t == od::json_type::string) return v.get_string().get(s);
    is_int = true;
    if (v.get_int64().get(i) == simdjson::SUCCESS) return simdjson::SUCCESS;
    double d;
    if (auto e = v.get_double().get(d)) return e;
    i = static_cast<int64_t>(d);
    return simdjson::SUCCESS;
  }

  static simdjson::error_code raw_or_string(od::value v, std::string_view& out) {
    od::json_type t;
    if (auto e = v.type().get(t)) return e;
    if (t == od::json_type::string) return v.get_string().get(out);
    if (t == od::json_type::array) {
      od::array a;
      if (auto e = v.get_array().get(a)) return e;
      return a.raw_json().get(out);
    }
    if (t == od::json_type::object) {
      od::object o;
      if (auto e = v.get_object().get(o)) return e;
      return o.raw_json().get(out);
    }
    out = v.raw_json_token();
    while (!out.empty() &&
           (out.back() == ' ' || out.back() == '\n' || out.back() == '\r' || out.back() == '\t'))
      out.remove_suffix(1);
    return simdjson::SUCCESS;
  }

  static simdjson::error_code int_arg(od::value v, int64_t& out) {
    std::string_view s;
    bool is_int = false;
    if (auto e = number_or_string(v, s, out, is_int)) return e;
    if (!is_int) {
      auto r = std::from_chars(s.data(), s.data() + s.size(), out);
      if (r.ec != std::errc()) out = -1;
    }
    return simdjson::SUCCESS;
  }

  simdjson::error_code read_args(od::object args, Scratch& s) {
    for (auto f : args) {
      od::field fld;
      if (auto e = std::move(f).get(fld)) return e;
      const char* k = fld.key().raw();
      od::value v = fld.value();
      simdjson::error_code e = simdjson::SUCCESS;
      switch (k[0]) {
        case 'c':
          if (key_is(k, "correlation")) e = int_arg(v, s.correlation);
          break;
        case 'E':
          if (key_is(k, "External id")) e = int_arg(v, s.external_id);
          break;
        case 'I':
          if (key_is(k, "Input Dims") || key_is(k, "Input Shapes")) {
            e = raw_or_string(v, s.input_dims);
          } else if (key_is(k, "In msg nelems")) {
            e = int_arg(v, s.coll.in_nelems);
            s.has_coll = true;
          }
          break;
        case 'T':
          if (key_is(k, "Task Type")) e = v.get_string().get(s.task_type);
          break;
        case 'n':
          if (key_is(k, "name")) e = raw_or_string(v, s.arg_name);
          break;
        case 'l':
          if (key_is(k, "labels")) e = raw_or_string(v, s.arg_labels);
          break;
        case 'C':
          if (key_is(k, "Collective name")) {
            e = raw_or_string(v, s.coll_name);
            s.has_coll = true;
          }
          break;
        case 'O':
          if (key_is(k, "Out msg nelems")) {
            e = int_arg(v, s.coll.out_nelems);
            s.has_coll = true;
          }
          break;
        case 'G':
          if (key_is(k, "Group size")) {
            e = int_arg(v, s.coll.group_size);
            s.has_coll = true;
          }
          break;
        case 'd':
          if (key_is(k, "dtype")) {
            e = raw_or_string(v, s.dtype);
            s.has_coll = true;
          }
          break;
        case 'P':
          if (key_is(k, "Process Group Name")) {
            e = raw_or_string(v, s.pg_name);
            s.has_coll = true;
          } else if (key_is(k, "Process Group Ranks")) {
            e = raw_or_string(v, s.pg_ranks);
            s.has_coll = true;
          }
          break;
        default:
          break;
      }
      if (e) return e;
    }
    return simdjson::SUCCESS;
  }

  simdjson::error_code read_fields(od::object obj, Scratch& s) {
    for (auto f : obj) {
      od::field fld;
      if (auto e = std::move(f).get(fld)) return e;
      const char* k = fld.key().raw();
      od::value v = fld.value();
      simdjson::error_code e = simdjson::SUCCESS;
      switch (k[0]) {
        case 'p':
          if (key_is(k, "ph"))
            e = v.get_string().get(s.ph);
          else if (key_is(k, "pid"))
            e = number_or_string(v, s.pid_s, s.pid, s.has_pid_i);
          break;
        case 'c':
          if (key_is(k, "cat")) e = v.get_string().get(s.cat);
          break;
        case 'n':
          if (key_is(k, "name")) e = v.get_string().get(s.name);
          break;
        case 't':
          if (key_is(k, "ts")) {
            od::json_type t;
            e = v.type().get(t);
            if (!e) {
              if (t == od::json_type::string)
                e = v.get_string().get(s.ts_raw);
              else if (t == od::json_type::number)
                s.ts_raw = v.raw_json_token();
              else
                e = simdjson::INCORRECT_TYPE;
            }
          } else if (key_is(k, "tid")) {
            e = number_or_string(v, s.tid_s, s.tid, s.has_tid_i);
          }
          break;
        case 'd':
          if (key_is(k, "dur")) {
            od::json_type t;
            e = v.type().get(t);
            if (!e && t == od::json_type::string) {
              std::string_view ds;
              e = v.get_string().get(ds);
              if (!e) {
                auto r = std::from_chars(ds.data(), ds.data() + ds.size(), s.dur);
                if (r.ec != std::errc()) e = simdjson::NUMBER_ERROR;
              }
            } else if (!e) {
              e = v.get_double().get(s.dur);
            }
            s.has_dur = !e;
          }
          break;
        case 'i':
          if (key_is(k, "id")) {
            int64_t i = 0;
            e = number_or_string(v, s.id_s, i, s.has_id_i);
            s.id = static_cast<uint64_t>(i);
          }
          break;
        case 'b':
          if (key_is(k, "bp")) e = v.get_string().get(s.bp);
          break;
        case 'a':
          if (key_is(k, "args")) {
            od::object a;
            e = v.get_object().get(a);
            if (!e) e = read_args(a, s);
          }
          break;
        default:
          break;
      }
      if (e) return e;
    }
    return simdjson::SUCCESS;
  }

  int64_t id_of(std::string_view s, bool has_int, int64_t i) {
    if (has_int) return i;
    return -1 - static_cast<int64_t>(out_.strings.intern(s));
  }

  uint32_t intern_or_none(std::string_view s) {
    return s.data() == nullptr ? kNoString : out_.strings.intern(s);
  }

  EventKind kind_of(uint32_t cat) {
    if (cat == kNoString) return EventKind::kOther;
    while (cat_kinds_.size() <= cat) cat_kinds_.push_back(-1);
    if (cat_kinds_[cat] < 0)
      cat_kinds_[cat] = static_cast<int>(kind_from_category(out_.strings.str(cat)));
    return static_cast<EventKind>(cat_kinds_[cat]);
  }

  void emit(Scratch& s, od::document& doc) {
    const char ph = s.ph.empty() ? '\0' : s.ph[0];
    const int64_t pid = id_of(s.pid_s, s.has_pid_i, s.pid);
    const int64_t tid = id_of(s.tid_s, s.has_tid_i, s.tid);
    switch (ph) {
      case 'X':
      case 'i':
      case 'I': {
        TraceEvent e;
        if (!parse_us_to_ns(s.ts_raw, e.ts_ns)) {
          skip(doc, s.ts_raw.empty() ? "event has no ts" : "event ts is not a number");
          return;
        }
        e.phase = ph == 'X' ? 'X' : 'i';
        if (ph == 'X') {
          if (!s.has_dur || !std::isfinite(s.dur) || s.dur < 0) {
            skip(doc, "complete event (ph X) has no valid dur");
            return;
          }
          e.dur_us = s.dur;
          e.dur_ns = std::llround(s.dur * 1000.0);
        }
        e.pid = pid;
        e.tid = tid;
        e.name = intern_or_none(s.name);
        e.cat = intern_or_none(s.cat);
        e.kind = kind_of(e.cat);
        e.correlation = s.correlation;
        e.external_id = s.external_id;
        if (s.input_dims.data()) e.input_dims = out_.strings.intern(s.input_dims);
        if (s.task_type.data()) e.task_type = out_.strings.intern(s.task_type);
        if (s.has_coll) {
          CollectiveArgs c = s.coll;
          c.collective_name = intern_or_none(s.coll_name);
          c.dtype = intern_or_none(s.dtype);
          c.pg_name = intern_or_none(s.pg_name);
          c.pg_ranks = intern_or_none(s.pg_ranks);
          e.collective = static_cast<int32_t>(out_.collectives.size());
          out_.collectives.push_back(c);
        }
        out_.events.push_back(e);
        return;
      }
      case 's':
      case 'f':
      case 't': {
        FlowEvent f;
        if (!parse_us_to_ns(s.ts_raw, f.ts_ns)) {
          skip(doc, "flow event has no valid ts");
          return;
        }
        f.phase = ph;
        f.pid = pid;
        f.tid = tid;
        f.cat = intern_or_none(s.cat);
        f.bind_enclosing = s.bp == "e";
        if (s.has_id_i) {
          f.id = s.id;
        } else if (!s.id_s.empty()) {
          uint64_t n = 0;
          auto r = std::from_chars(s.id_s.data(), s.id_s.data() + s.id_s.size(), n);
          f.id = (r.ec == std::errc() && r.ptr == s.id_s.data() + s.id_s.size())
                     ? n
                     : std::hash<std::string_view>{}(s.id_s);
        } else {
          skip(doc, "flow event has no id");
          return;
        }
        out_.flows.push_back(f);
        return;
      }
      case 'M': {
        if (s.name == "process_name")
          out_.process_names[pid] = std::string(s.arg_name);
        else if (s.name == "thread_name")
          out_.thread_names[{pid, tid}] = std::string(s.arg_name);
        else if (s.name == "process_labels")
          out_.process_labels[pid] = std::string(s.arg_labels);
        return;
      }
      case '\0':
        skip(doc, "event has no ph");
        return;
      default:
        return;  // counters, async and other phases are not used
    }
  }

  const simdjson::padded_string& json_;
  const std::string& source_;
  Trace& out_;
  Diagnostics& diag_;
  TextLocator lines_;
  std::vector<int> cat_kinds_;
};

simdjson::error_code parse_distributed_info(od::value v, DistributedInfo& d) {
  od::object o;
  if (auto e = v.get_object().get(o)) return e;
  d.present = true;
  for (auto f : o) {
    od::field fld;
    if (auto e = std::move(f).get(fld)) return e;
    const char* k = fld.key().raw();
    od::value fv = fld.value();
    if (key_is(k, "backend")) {
      std::string_view b;
      if (fv.get_string().get(b) == simdjson::SUCCESS) d.backend = std::string(b);
    } else if (key_is(k, "rank")) {
      int64_t r;
      if (fv.get_int64().get(r) == simdjson::SUCCESS) d.rank = static_cast<int>(r);
    } else if (key_is(k, "world_size")) {
      int64_t w;
      if (fv.get_int64().get(w) == simdjson::SUCCESS) d.world_size = static_cast<int>(w);
    }
  }
  return simdjson::SUCCESS;
}

}  // namespace

bool parse_chrome_trace(const simdjson::padded_string& json, const std::string& source,
                        std::string_view events_key, Trace& out, Diagnostics& diag) {
  od::parser& parser = thread_json_parser();
  out.bytes = json.size();
  od::document doc;
  if (auto err = parser.iterate(json).get(doc)) {
    diag.error(source, 0, "not valid JSON: " + json_error_what(err), json_error_hint(err), 0);
    return false;
  }
  EventParser ep(json, source, out, diag);
  const char* want = events_key.empty() ? "a JSON array of events" : "a JSON object";
  od::json_type top;
  if (auto err = doc.type().get(top)) return ep.fatal(doc, err, "cannot read the document");
  if (events_key.empty()) {
    if (top != od::json_type::array) {
      diag.error(source, 1, std::string("top level is not ") + want,
                 "expected a trace_view.json ([{...}, ...]); pass the right file", 0);
      return false;
    }
    od::array arr;
    if (auto err = doc.get_array().get(arr)) return ep.fatal(doc, err, "cannot read the array");
    const bool ok = ep.parse_array(arr, doc);
    return ok || !out.events.empty();
  }
  if (top != od::json_type::object) {
    diag.error(source, 1, std::string("top level is not ") + want,
               "expected a PyTorch profiler trace ({\"traceEvents\": [...]}); pass the right file",
               0);
    return false;
  }
  od::object obj;
  if (auto err = doc.get_object().get(obj)) return ep.fatal(doc, err, "cannot read the object");
  bool found = false;
  bool ok = true;
  for (auto f : obj) {
    od::field fld;
    if (auto err = std::move(f).get(fld)) {
      ok = ep.fatal(doc, err, "top-level object is malformed");
      break;
    }
    std::string_view key;
    if (fld.unescaped_key().get(key)) continue;
    if (key == events_key) {
      found = true;
      od::array arr;
      if (auto err = fld.value().get_array().get(arr)) {
        ok = ep.fatal(doc, err, std::string(events_key) + " is not an array");
        break;
      }
      if (!ep.parse_array(arr, doc)) {
        ok = false;
        break;
      }
    } else if (key == "distributedInfo") {
      if (parse_distributed_info(fld.value(), out.distributed))
        diag.warn(source, 0, "distributedInfo is malformed", "rank and world size are unknown");
    } else if (key == "baseTimeNanoseconds") {
      int64_t b;
      if (fld.value().get_int64().get(b) == simdjson::SUCCESS) out.base_time_ns = b;
    }
  }
  if (ok && !found) {
    diag.error(source, 0, std::string("no \"") + std::string(events_key) + "\" array",
               "this JSON is not a PyTorch profiler trace; pass the trace written by "
               "torch.profiler (tensorboard_trace_handler)",
               0);
    return false;
  }
  return ok || !out.events.empty();
}

bool parse_kineto_trace(const simdjson::padded_string& json, const std::string& source, Trace& out,
                        Diagnostics& diag) {
  return parse_chrome_trace(json, source, "traceEvents", out, diag);
}

bool read_kineto_trace(const std::string& path, Trace& out, Diagnostics& diag) {
  simdjson::padded_string json;
  if (!load_json_maybe_gzip(path, json, diag)) return false;
  return parse_kineto_trace(json, path, out, diag);
}

}  // namespace cs::io
