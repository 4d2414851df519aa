#include "memory/rank_memory.h"

namespace cs::memory {

namespace {

template <typename T, typename F>
void put_list(io::ByteWriter& w, const std::vector<T>& v, F&& put_one) {
  w.put<uint32_t>(static_cast<uint32_t>(v.size()));
  for (const T& x : v) put_one(x);
}

template <typename T, typename F>
void get_list(io::ByteReader& r, std::vector<T>& v, F&& get_one) {
  v.resize(r.get<uint32_t>());
  for (T& x : v) get_one(x);
}

}  // namespace

void RankMemory::pack(io::ByteWriter& w) const {
  w.str(series);
  for (int64_t x : {peak_allocated, peak_reserved, peak_app_reserved, peak_time_ns, peak_step,
                    reserved_at_peak, capacity, live_bytes_at_peak, blocks, never_released,
                    never_released_bytes, records, static_graph_peak, static_graph_total})
    w.put(x);
  w.str(peak_operator);
  put_list(w, live_at_peak, [&](const LiveBlock& b) {
    w.str(b.op);
    w.put(b.bytes);
    w.put(b.alloc_ns);
  });
  put_list(w, holders, [&](const HolderBytes& h) {
    w.str(h.op);
    w.put(h.bytes);
    w.put(h.blocks);
  });
  put_list(w, steps, [&](const StepMemory& s) {
    w.put(s.step);
    w.put(s.peak_allocated);
    w.put(s.min_allocated);
    w.put(s.peak_reserved);
  });
  put_list(w, operators, [&](const OperatorAlloc& o) {
    w.str(o.op);
    w.put(o.calls);
    w.put(o.bytes);
    w.put(o.max_block);
  });
  put_list(w, components, [&](const ComponentPeak& c) {
    w.str(c.kind);
    w.str(c.name);
    w.put(c.peak_reserved);
  });
  put_list(w, curve, [&](const CurveBucket& b) {
    w.put(b.start_ns);
    w.put(b.min_allocated);
    w.put(b.max_allocated);
    w.put(b.max_reserved);
  });
}

RankMemory RankMemory::unpack(io::ByteReader& r) {
  RankMemory m;
  m.series = r.str();
  for (int64_t* x :
       {&m.peak_allocated, &m.peak_reserved, &m.peak_app_reserved, &m.peak_time_ns, &m.peak_step,
        &m.reserved_at_peak, &m.capacity, &m.live_bytes_at_peak, &m.blocks, &m.never_released,
        &m.never_released_bytes, &m.records, &m.static_graph_peak, &m.static_graph_total})
    *x = r.get<int64_t>();
  m.peak_operator = r.str();
  get_list(r, m.live_at_peak, [&](LiveBlock& b) {
    b.op = r.str();
    b.bytes = r.get<int64_t>();
    b.alloc_ns = r.get<int64_t>();
  });
  get_list(r, m.holders, [&](HolderBytes& h) {
    h.op = r.str();
    h.bytes = r.get<int64_t>();
    h.blocks = r.get<int64_t>();
  });
  get_list(r, m.steps, [&](StepMemory& s) {
    s.step = r.get<int64_t>();
    s.peak_allocated = r.get<int64_t>();
    s.min_allocated = r.get<int64_t>();
    s.peak_reserved = r.get<int64_t>();
  });
  get_list(r, m.operators, [&](OperatorAlloc& o) {
    o.op = r.str();
    o.calls = r.get<int64_t>();
    o.bytes = r.get<int64_t>();
    o.max_block = r.get<int64_t>();
  });
  get_list(r, m.components, [&](ComponentPeak& c) {
    c.kind = r.str();
    c.name = r.str();
    c.peak_reserved = r.get<int64_t>();
  });
  get_list(r, m.curve, [&](CurveBucket& b) {
    b.start_ns = r.get<int64_t>();
    b.min_allocated = r.get<int64_t>();
    b.max_allocated = r.get<int64_t>();
    b.max_reserved = r.get<int64_t>();
  });
  return m;
}

}  // namespace cs::memory
