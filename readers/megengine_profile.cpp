#include "readers/megengine_profile.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <unordered_map>

#include "io/json/gzip_input.h"
#include "io/json/json_input.h"

namespace cs::readers {

namespace dom = simdjson::dom;

namespace {

// A JSON number as a double (integers too); false when it is none.
bool number(dom::element e, double& out) {
  if (e.is_double()) return e.get_double().get(out) == simdjson::SUCCESS;
  if (e.is_int64()) {
    int64_t i;
    if (e.get_int64().get(i)) return false;
    out = static_cast<double>(i);
    return true;
  }
  if (e.is_uint64()) {
    uint64_t u;
    if (e.get_uint64().get(u)) return false;
    out = static_cast<double>(u);
    return true;
  }
  return false;
}

// "{1,3,224,224}, {64,3,7,7}" from [[1,3,224,224],[64,3,7,7]]; "" when not an array of arrays.
std::string shapes_text(dom::element e) {
  dom::array outer;
  if (e.get_array().get(outer)) return {};
  std::string s;
  for (dom::element shape : outer) {
    dom::array dims;
    if (shape.get_array().get(dims)) return {};
    if (!s.empty()) s += ", ";
    s += '{';
    bool first = true;
    for (dom::element d : dims) {
      double v;
      if (!number(d, v)) return {};
      if (!first) s += ',';
      first = false;
      char buf[32];
      auto r = std::to_chars(buf, buf + sizeof buf, static_cast<int64_t>(v));
      s.append(buf, r.ptr);
    }
    s += '}';
  }
  return s;
}

// Member `key` of `parent`; false when absent or `parent` is no object.
bool member(dom::element parent, std::string_view key, dom::element& out) {
  return parent[key].get(out) == simdjson::SUCCESS;
}

// The longest end − start (or kern − start) over the entries of {"<node>": {start, kern, end}}.
// False when no entry has the numbers.
bool longest(dom::object per_node, const char* end_key, double& out) {
  bool any = false;
  for (dom::key_value_pair kv : per_node) {
    dom::element s, e;
    double start, end;
    if (!member(kv.value, "start", s) || !member(kv.value, end_key, e) || !number(s, start) ||
        !number(e, end) || !std::isfinite(end - start) || end < start)
      continue;
    out = any ? std::max(out, end - start) : end - start;
    any = true;
  }
  return any;
}

std::string text_of(dom::element e) {
  std::string_view s;
  if (e.get_string().get(s) == simdjson::SUCCESS) return std::string(s);
  double v;
  if (number(e, v)) {
    char buf[32];
    auto r = std::to_chars(buf, buf + sizeof buf, static_cast<int64_t>(v));
    return std::string(buf, r.ptr);
  }
  return {};
}

int64_t id_number(const std::string& id) {
  int64_t v = INT64_MAX;
  std::from_chars(id.data(), id.data() + id.size(), v);
  return v;
}

}  // namespace

bool parse_megengine_profile(const simdjson::padded_string& json, const std::string& source,
                             MegEngineProfile& out, io::Diagnostics& diag) {
  dom::parser parser;
  dom::element doc;
  if (auto err = parser.parse(json).get(doc)) {
    io::report_json_error(json, source, err, diag);
    return false;
  }
  dom::object graph, ops, vars, prof;
  if (doc["graph_exec"].get_object().get(graph) || graph["operator"].get_object().get(ops)) {
    diag.error(source, 0, "no graph_exec.operator object",
               "this is not a MegEngine static-graph profile; pass the JSON that "
               "trace(profiling=True).get_profile() or load_and_run --profile wrote");
    return false;
  }
  if (doc["profiler"].get_object().get(prof)) {
    diag.error(source, 0, "no profiler object (device and host times)",
               "the graph was dumped without profiling; run it with profiling on");
    return false;
  }
  const bool have_vars = graph["var"].get_object().get(vars) == simdjson::SUCCESS;
  size_t bad = 0;
  std::unordered_map<std::string, size_t> index;
  for (auto [key, value] : ops) {
    dom::object o;
    if (value.get_object().get(o)) {
      ++bad;
      continue;
    }
    MegEngineOperator op;
    op.id = std::string(key);
    dom::element e;
    if (member(value, "name", e)) op.name = text_of(e);
    if (member(value, "type", e)) op.type = text_of(e);
    dom::array inputs;
    if (have_vars && o["input"].get_array().get(inputs) == simdjson::SUCCESS) {
      bool known = true;
      std::string dtypes;
      for (dom::element v : inputs) {
        std::string_view dtype;
        if (vars[text_of(v)]["mem_plan"]["layout"]["dtype"].get_string().get(dtype)) {
          known = false;
          break;
        }
        dtypes += (dtypes.empty() ? "" : ";") + std::string(dtype);
      }
      if (known) op.in_dtypes = std::move(dtypes);
    }
    index.emplace(op.id, out.ops.size());
    out.ops.push_back(std::move(op));
  }
  // device / host: {"<opr id>": {"<node or thread>": {start, kern, end}}}.
  for (const char* side : {"device", "host"}) {
    dom::object per_op;
    if (prof[side].get_object().get(per_op)) continue;
    const bool device = side[0] == 'd';
    for (auto [key, value] : per_op) {
      auto it = index.find(std::string(key));
      dom::object nodes;
      if (it == index.end()) continue;
      if (value.get_object().get(nodes)) {
        ++bad;
        continue;
      }
      MegEngineOperator& op = out.ops[it->second];
      double t;
      if (!longest(nodes, "end", t)) {
        ++bad;
        continue;
      }
      (device ? op.device_s : op.host_s) = t;
      if (longest(nodes, "kern", t)) (device ? op.device_kern_s : op.host_kern_s) = t;
    }
  }
  dom::object footprints;
  if (prof["opr_footprint"].get_object().get(footprints) == simdjson::SUCCESS) {
    for (auto [key, value] : footprints) {
      auto it = index.find(std::string(key));
      if (it == index.end()) continue;
      MegEngineOperator& op = out.ops[it->second];
      double v;
      dom::element e;
      if (member(value, "computation", e) && number(e, v) && v > 0) op.computation = v;
      if (member(value, "memory", e) && number(e, v) && v >= 0) op.memory = v;
      if (member(value, "in_shapes", e)) op.in_shapes = shapes_text(e);
      if (member(value, "out_shapes", e)) op.out_shapes = shapes_text(e);
    }
  }
  if (bad)
    diag.warn(source, 0,
              std::to_string(bad) +
                  " operator entries are malformed (not an object, no numeric start/end, or "
                  "end before start)",
              "they were left out; check the file is complete");
  std::stable_sort(out.ops.begin(), out.ops.end(),
                   [](const auto& a, const auto& b) { return id_number(a.id) < id_number(b.id); });
  for (const auto& op : out.ops) {
    if (op.device_s >= 0) out.total_device_s += op.device_s;
    if (op.host_s >= 0) out.total_host_s += op.host_s;
  }
  return true;
}

bool read_megengine_profile(const std::string& path, MegEngineProfile& out, io::Diagnostics& diag) {
  simdjson::padded_string json;
  if (!io::load_json_maybe_gzip(path, json, diag)) return false;
  return parse_megengine_profile(json, path, out, diag);
}

}  // namespace cs::readers
