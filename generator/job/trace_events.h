#pragma once
// The events of a generated Chrome trace (a top-level JSON array, `ts` strings with 3 decimals,
// `dur` numbers), in the key order of the producer imitated: torch_npu's trace_view.json writes
// "ph" first, CANN msprof's msprof_*.json writes it after the times ("tid" for metadata).
//
//   std::string s;
//   TraceEvents o{s, base_us, TraceEvents::kPhFirst};
//   o.meta(1, 0, "process_name", "Python");
//   o.x("aten::mm", 1, 7, 10.0, 2.5, "cpu_op", "");  // then the caller closes the array

#include <cstdint>
#include <string>
#include <string_view>

#include "generator/job/writers.h"

namespace cs::generator {

struct TraceEvents {
  enum PhPlace { kPhFirst, kPhAfterTimes };
  std::string& s;
  int64_t base_us;
  PhPlace ph_place;
  bool first = true;

  // Starts the next event ("[" before the first one).
  void begin() {
    s += first ? "[\n" : ",\n";
    first = false;
  }
  // A metadata event (process_name, thread_name) naming `name`.
  void meta(int64_t pid, int64_t tid, std::string_view what, std::string_view name) {
    begin();
    s += ph_place == kPhFirst ? "{\"ph\": \"M\", \"name\": \"" : "{\"name\": \"";
    s += what;
    s += "\", \"pid\": " + std::to_string(pid) + ", \"tid\": " + std::to_string(tid);
    if (ph_place == kPhAfterTimes) s += ", \"ph\": \"M\"";
    s += ", \"args\": {\"name\": \"";
    s += name;
    s += "\"}}";
  }
  // An X event at `start` µs after base_us; `cat` and `args` (the inside of the args object) are
  // left out when empty.
  void x(std::string_view name, int64_t pid, int64_t tid, double start, double dur,
         std::string_view cat, std::string_view args) {
    begin();
    s += ph_place == kPhFirst ? "{\"ph\": \"X\", \"name\": \"" : "{\"name\": \"";
    s += name;
    s += "\", \"pid\": " + std::to_string(pid) + ", \"tid\": " + std::to_string(tid);
    ts(start);
    s += ", \"dur\": ";
    append_num3(s, dur);
    if (ph_place == kPhAfterTimes) s += ", \"ph\": \"X\"";
    if (!cat.empty()) {
      s += ", \"cat\": \"";
      s += cat;
      s += '"';
    }
    if (!args.empty()) {
      s += ", \"args\": {";
      s += args;
      s += '}';
    }
    s += '}';
  }
  // One end of a flow arrow (ph "s" or "f"; "ph" always first, as torch_npu writes flows).
  void flow(char ph, std::string_view name, std::string_view cat, uint64_t id, int64_t pid,
            int64_t tid, double at) {
    begin();
    s += "{\"ph\": \"";
    s += ph;
    s += "\", \"bp\": \"e\", \"name\": \"";
    s += name;
    s += "\", \"id\": " + std::to_string(id) + ", \"pid\": " + std::to_string(pid) +
         ", \"tid\": " + std::to_string(tid);
    ts(at);
    s += ", \"cat\": \"";
    s += cat;
    s += "\"}";
  }

 private:
  void ts(double rel_us) {
    s += ", \"ts\": \"";
    append_abs_us(s, base_us, rel_us);
    s += '"';
  }
};

}  // namespace cs::generator
