#pragma once
// The event walk shared by `merge`'s two passes over one rank's trace (timeline/merge_trace.h):
// scan_trace() and rewrite_trace() both see each event object as a list of raw fields (views
// into the input text), with the fields they act on (ph, name, pid, ts, id, bind_id, args) found.
//
//   EventWalker walker(json, path, diag);
//   walker.walk(&scan, [&](const RawEvent& ev) { ... ev.str(ev.ph) ... },
//               [&](std::string_view key, od::value v) { return simdjson::SUCCESS; });

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <simdjson.h>

#include "io/diagnostics.h"
#include "io/json/json_input.h"
#include "timeline/merge_trace.h"

namespace cs::timeline {

namespace od = simdjson::ondemand;

// The hint of every error that leaves a rank out of the merge.
inline constexpr const char* kSkipHint =
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

// The raw JSON text of `v` (objects and arrays whole), consuming it.
simdjson::error_code raw_value(od::value v, std::string_view& out);

// Fields of a small JSON object given as text (an event's args), raw key -> raw value. False
// when the text is not a JSON object.
bool split_object(od::parser& parser, std::string_view text,
                  std::vector<std::pair<std::string, std::string>>& out);

// True when a raw JSON value is a string (starts with its quote).
inline bool is_quoted(std::string_view v) {
  return v.size() >= 2 && v.front() == '"';
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

  // Notes which of the fields the passes act on sits at index `idx` of the event.
  void classify(std::string_view key, int idx);
  // Byte offset of the walk in the text (the end when unknown).
  int64_t offset(od::document* doc);
  // One error naming the source, line and offset; returns false.
  bool fail(od::document* doc, simdjson::error_code err, const std::string& what);
  // One warning naming the source, line and offset.
  void warn(od::document& doc, const std::string& what, const std::string& hint);

  simdjson::padded_string_view json_;
  const std::string& source_;
  io::Diagnostics& diag_;
  RawEvent ev_;
};

}  // namespace cs::timeline
