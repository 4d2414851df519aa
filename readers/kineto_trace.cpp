#include "readers/kineto_trace.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "io/int_range.h"
#include "io/json/gzip_input.h"
#include "io/json/json_input.h"
#include "readers/kineto_event_parser.h"

namespace cs::readers {

namespace od = simdjson::ondemand;

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
  return io::parse_us_to_ns_in(t, t.data() + t.size(), ns);
}

namespace {

using kineto::EventParser;
using kineto::key_is;

simdjson::error_code parse_distributed_info(od::value v, DistributedInfo& d) {
  od::object o;
  if (auto e = v.get_object().get(o)) return e;
  d.present = true;
  bool range_error = false;
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
      if (fv.get_int64().get(r) == simdjson::SUCCESS && !io::int64_to_int(r, d.rank))
        range_error = true;
    } else if (key_is(k, "world_size")) {
      int64_t w;
      if (fv.get_int64().get(w) == simdjson::SUCCESS && !io::int64_to_int(w, d.world_size))
        range_error = true;
    }
  }
  // A rank must be in [0, world_size); both unknown otherwise.
  if (range_error || d.rank < -1 || (d.world_size != -1 && d.world_size <= 0) ||
      (d.world_size > 0 && d.rank >= d.world_size)) {
    d.rank = d.world_size = -1;
    return simdjson::NUMBER_OUT_OF_RANGE;
  }
  return simdjson::SUCCESS;
}

}  // namespace

bool parse_chrome_trace(const simdjson::padded_string& json, const std::string& source,
                        std::string_view events_key, Trace& out, io::Diagnostics& diag) {
  od::parser& parser = io::thread_json_parser();
  out.bytes = json.size();
  // Room for the events up front: growing by doubling copies them and touches twice the memory
  // (page faults are a tenth of the parse). Profiler events take 170-600 bytes of JSON; pages
  // reserved and never written cost no memory.
  out.events.reserve(out.events.size() + json.size() / 256);
  out.flows.reserve(out.flows.size() + json.size() / 2048);
  od::document doc;
  if (auto err = parser.iterate(json).get(doc)) {
    diag.error(source, 0, "not valid JSON: " + io::json_error_what(err), io::json_error_hint(err),
               0);
    return false;
  }
  EventParser ep(json, source, out, diag);
  const char* want = events_key.empty() ? "a JSON array of events" : "a JSON object";
  od::json_type top;
  if (auto err = doc.type().get(top)) return ep.fatal(doc, err, "cannot read the document");
  // Chrome's JSON Array Format ([ ... ] without traceEvents) holds the same events.
  if (events_key.empty() || top == od::json_type::array) {
    if (top != od::json_type::array) {
      diag.error(source, 1, std::string("top level is not ") + want,
                 "expected a trace_view.json ([{...}, ...]); pass the right file", 0);
      return false;
    }
    od::array arr;
    if (auto err = doc.get_array().get(arr)) return ep.fatal(doc, err, "cannot read the array");
    const bool ok = ep.parse_array(arr, doc);
    if (!events_key.empty() && ok && out.events.empty() && out.flows.empty() &&
        out.process_names.empty()) {
      diag.error(source, 1, "a JSON array with no trace events",
                 "expected a PyTorch profiler trace ({\"traceEvents\": [...]} or [{\"ph\": ...}, "
                 "...]); pass the right file",
                 0);
      return false;
    }
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
        diag.warn(source, 0,
                  "distributedInfo is malformed or out of range (0 <= rank < world_size "
                  "expected)",
                  "rank and world size are unknown");
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
                        io::Diagnostics& diag) {
  return parse_chrome_trace(json, source, "traceEvents", out, diag);
}

bool read_kineto_trace(const std::string& path, Trace& out, io::Diagnostics& diag) {
  simdjson::padded_string json;
  if (!io::load_json_maybe_gzip(path, json, diag)) return false;
  return parse_kineto_trace(json, path, out, diag);
}

}  // namespace cs::readers
