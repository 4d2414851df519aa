#pragma once
// The Kineto/Chrome trace event parser: reads every event of the events array into a Trace
// (events, flows, process and thread names), skipping events it cannot use with one warning each
// (file, line, byte offset). Internal to readers/kineto_trace.cpp.

#include <charconv>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "io/decimal.h"
#include "io/int_range.h"
#include "io/json/json_input.h"
#include "readers/kineto_json_scan.h"

namespace cs::readers::kineto {

class EventParser {
 public:
  EventParser(const simdjson::padded_string& json, const std::string& source, Trace& out,
              io::Diagnostics& diag)
      : json_(json),
        source_(source),
        out_(out),
        diag_(diag),
        lines_(std::string_view(json.data(), json.size())),
        readable_(json.data() + json.size() + simdjson::SIMDJSON_PADDING) {}

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
      Scratch s(rare_);
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
    diag_.error(source_, lines_.line_of(off), what + ": " + io::json_error_what(err),
                io::json_error_hint(err) + " (events before this point were kept)", off);
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

  // A JSON number as a double. simdjson 3.0.1's get_double() is wrong for tokens of more than
  // 19 significant digits (0.1234567890123456789012 -> 0.0017...): those are parsed from the text.
  simdjson_inline static simdjson::error_code exact_double(od::value v, double& out) {
    const std::string_view tok = v.raw_json_token();
    if (simdjson_likely(tok.size() <= 19)) return v.get_double().get(out);
    io::Num n;
    if (io::read_long_float(tok, n) != io::NumRead::kOk)
      return v.get_double().get(out);  // its error
    out = n.v;
    return simdjson::SUCCESS;
  }

  // A number (-> i, is_int) or a string (-> s). `readable`: the end of the JSON's padding.
  simdjson_inline static simdjson::error_code number_or_string(od::value v, std::string_view& s,
                                                               int64_t& i, bool& is_int,
                                                               const char* readable) {
    const std::string_view tok = v.raw_json_token();
    if (!tok.empty() && tok[0] == '"') return string_of(v, s);
    if (plain_int(tok, readable, i)) {
      is_int = true;
      return simdjson::SUCCESS;
    }
    od::json_type t;
    if (auto e = v.type().get(t)) return e;
    if (t == od::json_type::string) return v.get_string().get(s);
    is_int = true;
    if (v.get_int64().get(i) == simdjson::SUCCESS) return simdjson::SUCCESS;
    double d;
    if (auto e = exact_double(v, d)) return e;
    // 1e300 or -1e19 does not fit an int64: refused, never converted.
    if (!io::double_to_int64(d, i)) return simdjson::NUMBER_OUT_OF_RANGE;
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

  simdjson::error_code int_arg(od::value v, int64_t& out) const {
    std::string_view s;
    bool is_int = false;
    if (auto e = number_or_string(v, s, out, is_int, readable_)) {
      if (e != simdjson::NUMBER_OUT_OF_RANGE) return e;
      out = -1;  // an id beyond int64: unknown, as a string that is not a number
      return simdjson::SUCCESS;
    }
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
            e = int_arg(v, s.rare().coll.in_nelems);
            s.rare().has_coll = true;
          }
          break;
        case 'T':
          if (key_is(k, "Task Type")) e = string_of(v, s.rare().task_type);
          break;
        case 's':
          if (key_is(k, "stream id")) e = int_arg(v, s.rare().stream_id);
          break;
        case 'n':
          if (key_is(k, "name")) e = raw_or_string(v, s.rare().arg_name);
          break;
        case 'l':
          if (key_is(k, "labels")) e = raw_or_string(v, s.rare().arg_labels);
          break;
        case 'C':
          if (key_is(k, "Collective name")) {
            e = raw_or_string(v, s.rare().coll_name);
            s.rare().has_coll = true;
          }
          break;
        case 'O':
          if (key_is(k, "Out msg nelems")) {
            e = int_arg(v, s.rare().coll.out_nelems);
            s.rare().has_coll = true;
          }
          break;
        case 'G':
          if (key_is(k, "Group size")) {
            e = int_arg(v, s.rare().coll.group_size);
            s.rare().has_coll = true;
          }
          break;
        case 'd':
          if (key_is(k, "dtype")) {
            e = raw_or_string(v, s.rare().dtype);
            s.rare().has_coll = true;
          }
          break;
        case 'P':
          if (key_is(k, "Process Group Name")) {
            e = raw_or_string(v, s.rare().pg_name);
            s.rare().has_coll = true;
          } else if (key_is(k, "Process Group Ranks")) {
            e = raw_or_string(v, s.rare().pg_ranks);
            s.rare().has_coll = true;
          }
          break;
        default:
          break;
      }
      if (e) return e;
    }
    return simdjson::SUCCESS;
  }

  // A pid / tid / flow id: a number, or a string kept in the rare fields (`field` of them).
  simdjson::error_code id_field(od::value v, Scratch& s, int64_t& i, bool& is_int,
                                std::string_view RareFields::*field) const {
    std::string_view str;
    const simdjson::error_code e = number_or_string(v, str, i, is_int, readable_);
    if (str.data() != nullptr) s.rare().*field = str;
    return e;
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
          if (key_is(k, "ph")) {
            std::string_view ph;
            e = string_of(v, ph);
            s.ph = ph.empty() ? '\0' : ph[0];
          } else if (key_is(k, "pid")) {
            e = id_field(v, s, s.pid, s.has_pid_i, &RareFields::pid_s);
          }
          break;
        case 'c':
          if (key_is(k, "cat")) e = string_of(v, s.cat);
          break;
        case 'n':
          if (key_is(k, "name")) e = string_of(v, s.name);
          break;
        case 't':
          if (key_is(k, "ts")) {
            const std::string_view tok = v.raw_json_token();
            const char c = tok.empty() ? '\0' : tok[0];
            if (c == '"') {
              e = string_of(v, s.ts_raw);
            } else if (c == '-' || io::is_digit(c)) {
              s.ts_raw = tok;  // a number: parse_us_to_ns reads it exactly
            } else {
              od::json_type t;
              e = v.type().get(t);  // not a string nor a number: say why
              if (!e) e = simdjson::INCORRECT_TYPE;
            }
          } else if (key_is(k, "tid")) {
            e = id_field(v, s, s.tid, s.has_tid_i, &RareFields::tid_s);
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
              e = exact_double(v, s.dur);
            }
            s.has_dur = !e;
          }
          break;
        case 'i':
          if (key_is(k, "id")) {
            int64_t i = 0;
            e = id_field(v, s, i, s.has_id_i, &RareFields::id_s);
            s.id = static_cast<uint64_t>(i);
          }
          break;
        case 'b':
          if (key_is(k, "bp")) {
            std::string_view bp;
            e = string_of(v, bp);
            s.bp_enclosing = bp == "e";
          }
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

  // parse_us_to_ns, reading 8 digits at a time when the text is in the (padded) JSON buffer.
  bool us_to_ns(std::string_view t, int64_t& ns) const {
    const auto at = reinterpret_cast<uintptr_t>(t.data());
    const auto base = reinterpret_cast<uintptr_t>(json_.data());
    const bool in_json = at >= base && at + t.size() <= base + json_.size();
    return io::parse_us_to_ns_in(t, in_json ? readable_ : t.data() + t.size(), ns);
  }

  int64_t id_of(std::string_view s, bool has_int, int64_t i) {
    if (has_int) return i;
    return -1 - static_cast<int64_t>(out_.strings.intern(s));
  }

  // StringPool::intern behind a small direct-mapped cache keyed by the length and the end bytes:
  // a hit (the few categories and names of a trace repeat all the time) is one compare, no hash.
  uint32_t intern_cached(std::string_view s) {
    if (s.empty()) return out_.strings.intern(s);
    const size_t slot = (s.size() * 31 + static_cast<unsigned char>(s.front()) * 7 +
                         static_cast<unsigned char>(s.back())) %
                        kCacheSlots;
    CacheEntry& c = cache_[slot];
    if (c.id != io::kNoString && std::string_view(c.text) == s) return c.id;
    c.id = out_.strings.intern(s);
    c.text = out_.strings.str(c.id);  // stays valid: the pool never moves its strings
    return c.id;
  }

  uint32_t intern_or_none(std::string_view s) {
    return s.data() == nullptr ? io::kNoString : intern_cached(s);
  }

  EventKind kind_of(uint32_t cat) {
    if (cat == io::kNoString) return EventKind::kOther;
    while (cat_kinds_.size() <= cat) cat_kinds_.push_back(-1);
    if (cat_kinds_[cat] < 0)
      cat_kinds_[cat] = static_cast<int>(kind_from_category(out_.strings.str(cat)));
    return static_cast<EventKind>(cat_kinds_[cat]);
  }

  void emit(Scratch& s, od::document& doc) {
    const char ph = s.ph;
    const RareFields& r = s.rare_or_empty();
    const int64_t pid = id_of(r.pid_s, s.has_pid_i, s.pid);
    const int64_t tid = id_of(r.tid_s, s.has_tid_i, s.tid);
    switch (ph) {
      case 'X':
      case 'i':
      case 'I': {
        TraceEvent e;
        if (!us_to_ns(s.ts_raw, e.ts_ns)) {
          skip(doc, s.ts_raw.empty() ? "event has no ts" : "event ts is not a number");
          return;
        }
        e.phase = ph == 'X' ? 'X' : 'i';
        if (ph == 'X') {
          // dur in us; as ns it must fit an int64 (about 292 years).
          if (!s.has_dur || !std::isfinite(s.dur) || s.dur < 0 || s.dur >= 9.2e15) {
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
        if (s.input_dims.data()) e.input_dims = intern_cached(s.input_dims);
        if (r.task_type.data()) e.task_type = out_.strings.intern(r.task_type);
        if (r.stream_id >= 0) out_.task_streams.emplace(pid, r.stream_id);
        if (r.has_coll) {
          CollectiveArgs c = r.coll;
          c.collective_name = intern_or_none(r.coll_name);
          c.dtype = intern_or_none(r.dtype);
          c.pg_name = intern_or_none(r.pg_name);
          c.pg_ranks = intern_or_none(r.pg_ranks);
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
        if (!us_to_ns(s.ts_raw, f.ts_ns)) {
          skip(doc, "flow event has no valid ts");
          return;
        }
        f.phase = ph;
        f.pid = pid;
        f.tid = tid;
        f.cat = intern_or_none(s.cat);
        f.bind_enclosing = s.bp_enclosing;
        if (s.has_id_i) {
          f.id = s.id;
        } else if (!r.id_s.empty()) {
          const std::string_view id = r.id_s;
          uint64_t n = 0;
          auto res = std::from_chars(id.data(), id.data() + id.size(), n);
          f.id = (res.ec == std::errc() && res.ptr == id.data() + id.size())
                     ? n
                     : std::hash<std::string_view>{}(id);
        } else {
          skip(doc, "flow event has no id");
          return;
        }
        out_.flows.push_back(f);
        return;
      }
      case 'M': {
        if (s.name == "process_name")
          out_.process_names[pid] = std::string(r.arg_name);
        else if (s.name == "thread_name")
          out_.thread_names[{pid, tid}] = std::string(r.arg_name);
        else if (s.name == "process_labels")
          out_.process_labels[pid] = std::string(r.arg_labels);
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
  io::Diagnostics& diag_;
  io::TextLocator lines_;
  std::vector<int> cat_kinds_;
  struct CacheEntry {
    std::string_view text;
    uint32_t id = io::kNoString;
  };
  static constexpr size_t kCacheSlots = 64;
  CacheEntry cache_[kCacheSlots];  // see intern_cached
  RareFields rare_;                // storage of Scratch::rare()
  const char* readable_;           // end of the JSON's padding: number parsing may read up to it
};

}  // namespace cs::readers::kineto
