#include "memory/memory_kineto.h"

#include <simdjson.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "db/database.h"
#include "io/json/gzip_input.h"
#include "io/json/json_input.h"
#include "memory/memory_builder.h"
#include "memory/memory_db.h"
#include "memory/memory_text.h"

namespace cs::memory {

namespace fs = std::filesystem;
namespace dom = simdjson::dom;

namespace {

struct MemEvent {
  int64_t t = 0;
  int64_t allocated = 0, reserved = 0, bytes = 0;
  uint64_t addr = 0;
  int64_t tid = 0;
};

struct CpuOp {
  int64_t t0 = 0, t1 = 0;
  int64_t tid = 0;
  std::string_view name;
};

// Microseconds as nanoseconds; nullopt past kTimeLimitNs either way, so that the differences and
// sums taken later fit in int64.
std::optional<int64_t> to_ns(double us) {
  const double ns = us * 1000.0;
  if (!(std::fabs(ns) < static_cast<double>(kTimeLimitNs))) return std::nullopt;
  return std::llround(ns);
}

// A number field as int64 (ints and doubles alike); nullopt when absent or not a number.
std::optional<int64_t> int_field(dom::object o, const char* key) {
  dom::element e;
  if (o[key].get(e)) return std::nullopt;
  int64_t i = 0;
  if (!e.get_int64().get(i)) return i;
  uint64_t u = 0;
  if (!e.get_uint64().get(u)) return static_cast<int64_t>(u);
  double d = 0;
  if (!e.get_double().get(d) && std::isfinite(d) && std::fabs(d) < 9e18) return std::llround(d);
  return std::nullopt;
}

std::optional<double> double_field(dom::object o, const char* key) {
  dom::element e;
  double d = 0;
  if (o[key].get(e) || e.get_double().get(d)) {
    int64_t i = 0;
    if (!o[key].get(e) && !e.get_int64().get(i)) return static_cast<double>(i);
    return std::nullopt;
  }
  return d;
}

// A thread id as Kineto writes it: an int, or a string ("stream 7"), hashed.
int64_t tid_of(dom::object o) {
  if (auto t = int_field(o, "tid")) return *t;
  std::string_view s;
  if (!o["tid"].get_string().get(s)) return static_cast<int64_t>(std::hash<std::string_view>{}(s));
  return 0;
}

}  // namespace

std::optional<RankMemory> read_memory_kineto(const std::string& path, io::Diagnostics& diag) {
  simdjson::padded_string json;
  if (!io::load_json_maybe_gzip(path, json, diag)) return std::nullopt;
  dom::parser parser;
  dom::element root;
  if (auto err = parser.parse(json).get(root)) {
    diag.error(path, 0, "not a trace: " + io::json_error_what(err), io::json_error_hint(err));
    return std::nullopt;
  }
  dom::array events;
  if (root.get_array().get(events)) {
    if (root["traceEvents"].get_array().get(events)) return std::nullopt;
  }
  int64_t capacity = -1;
  dom::array props;
  if (!root["deviceProperties"].get_array().get(props))
    for (dom::element p : props) {
      dom::object po;
      if (!p.get_object().get(po))
        if (auto m = int_field(po, "totalGlobalMem"); m && *m > 0) capacity = *m;
    }
  std::vector<MemEvent> mem;
  std::vector<CpuOp> ops;
  std::vector<StepRange> steps;
  std::string series = "CUDA";
  for (dom::element e : events) {
    dom::object o;
    if (e.get_object().get(o)) continue;
    std::string_view name, ph, cat;
    if (o["name"].get_string().get(name)) continue;
    const auto ts = double_field(o, "ts");
    if (!ts) continue;
    if (name == "[memory]") {
      dom::object args;
      if (o["args"].get_object().get(args)) continue;
      const auto type = int_field(args, "Device Type");
      if (!type || *type == 0) continue;  // the host's memory
      if (*type != 1) series = "device";
      const auto a = int_field(args, "Total Allocated");
      const auto r = int_field(args, "Total Reserved");
      const auto b = int_field(args, "Bytes");
      const auto addr = int_field(args, "Addr");
      const auto t = to_ns(*ts);
      if (!a || !r || !b || !t) continue;
      mem.push_back({*t, *a, *r, *b, static_cast<uint64_t>(addr.value_or(0)), tid_of(o)});
      continue;
    }
    if (o["ph"].get_string().get(ph) || ph != "X") continue;
    const auto dur = double_field(o, "dur");
    if (!dur) continue;
    const auto t0 = to_ns(*ts);
    const auto t1 = to_ns(*ts + *dur);
    if (!t0 || !t1) continue;
    if (!o["cat"].get_string().get(cat) && cat == "cpu_op") {
      ops.push_back({*t0, *t1, tid_of(o), name});
    } else if (name.starts_with("ProfilerStep#") && cat == "user_annotation") {
      // the digits after '#'; a number past int64 is no step
      int64_t n = 0;
      bool fits = true;
      for (char c : name.substr(13)) {
        if (c < '0' || c > '9') continue;
        if (n > (INT64_MAX - 9) / 10) {
          fits = false;
          break;
        }
        n = n * 10 + (c - '0');
      }
      if (fits) steps.push_back({n, *t0, *t1});
    }
  }
  if (mem.empty()) return std::nullopt;
  std::stable_sort(mem.begin(), mem.end(),
                   [](const MemEvent& x, const MemEvent& y) { return x.t < y.t; });
  std::stable_sort(ops.begin(), ops.end(), [](const CpuOp& x, const CpuOp& y) {
    return x.t0 != y.t0 ? x.t0 < y.t0 : x.t1 > y.t1;
  });
  RankMemoryBuilder b(steps);
  for (const MemEvent& m : mem) b.record(series, m.t, m.allocated, m.reserved);
  if (!b.end_records()) return std::nullopt;
  if (capacity > 0) b.set_capacity(capacity);
  // The innermost cpu_op around t on thread tid: the latest-starting one that still covers t.
  auto op_at = [&](int64_t t, int64_t tid) -> std::string_view {
    auto it = std::upper_bound(ops.begin(), ops.end(), t,
                               [](int64_t v, const CpuOp& o) { return v < o.t0; });
    for (int k = 0; it != ops.begin() && k < 256; ++k) {
      --it;
      if (it->tid == tid && it->t1 >= t) return it->name;
    }
    return "unknown";
  };
  struct Open {
    int64_t t, bytes;
    std::string_view op;
  };
  std::unordered_map<uint64_t, Open> open;
  struct Done {
    std::string_view op;
    int64_t bytes, t0;
    std::optional<int64_t> t1;
  };
  std::vector<Done> done;
  for (const MemEvent& m : mem) {
    if (m.bytes > 0) {
      open[m.addr] = {m.t, m.bytes, op_at(m.t, m.tid)};
    } else if (auto it = open.find(m.addr); it != open.end()) {
      done.push_back({it->second.op, it->second.bytes, it->second.t, m.t});
      open.erase(it);
    }
  }
  std::vector<std::pair<uint64_t, Open>> left(open.begin(), open.end());
  std::sort(left.begin(), left.end(),
            [](const auto& x, const auto& y) { return x.first < y.first; });
  for (const auto& [addr, o] : left) done.push_back({o.op, o.bytes, o.t, std::nullopt});
  std::stable_sort(done.begin(), done.end(),
                   [](const Done& x, const Done& y) { return x.t0 < y.t0; });
  for (const Done& d : done) b.block(d.op, d.bytes, d.t0, d.t1);
  return b.finish();
}

std::optional<RankMemory> read_profile_memory(const std::string& path, io::Diagnostics& diag) {
  std::error_code ec;
  if (!fs::is_directory(path, ec)) return read_memory_kineto(path, diag);
  const fs::path out = fs::path(path) / "ASCEND_PROFILER_OUTPUT";
  const fs::path dir = fs::is_directory(out, ec) ? out : fs::path(path);
  if (auto m = read_memory_text(dir.string(), {}, diag)) return m;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string n = e.path().filename().string();
    if (!n.starts_with("ascend_pytorch_profiler") || !n.ends_with(".db")) continue;
    auto db = db::Database::open(e.path().string(), diag);
    if (!db) return std::nullopt;
    return read_memory_db(*db, {}, diag);
  }
  return std::nullopt;
}

}  // namespace cs::memory
