#include "gpu/gpu_codec.h"

#include <cstring>
#include <stdexcept>
#include <string>

namespace cs::gpu {

namespace {

void put_i(std::vector<char>& o, int64_t v) {
  const char* p = reinterpret_cast<const char*>(&v);
  o.insert(o.end(), p, p + sizeof v);
}
void put_s(std::vector<char>& o, const std::string& s) {
  put_i(o, static_cast<int64_t>(s.size()));
  o.insert(o.end(), s.begin(), s.end());
}

struct Reader {
  const std::vector<char>& b;
  size_t at = 0;
  int64_t i() {
    if (at + 8 > b.size()) throw std::runtime_error("GPU rank summary: truncated buffer");
    int64_t v;
    std::memcpy(&v, b.data() + at, 8);
    at += 8;
    return v;
  }
  std::string s() {
    const int64_t n = i();
    if (n < 0 || static_cast<uint64_t>(n) > b.size() - at)
      throw std::runtime_error("GPU rank summary: bad string length");
    std::string v(b.data() + at, static_cast<size_t>(n));
    at += static_cast<size_t>(n);
    return v;
  }
  size_t count() {
    const int64_t n = i();
    if (n < 0 || static_cast<uint64_t>(n) > b.size())
      throw std::runtime_error("GPU rank summary: bad count");
    return static_cast<size_t>(n);
  }
};

}  // namespace

void encode_summary(const GpuRankSummary& s, std::vector<char>& o) {
  put_i(o, s.rank);
  put_i(o, s.world_size);
  put_s(o, s.path);
  put_s(o, s.backend);
  put_i(o, s.trace_rank);
  put_i(o, s.name_rank);
  put_i(o, s.parsed);
  put_i(o, static_cast<int64_t>(s.messages.size()));
  for (const auto& m : s.messages) put_s(o, m);
  put_i(o, s.kernel_count);
  put_i(o, static_cast<int64_t>(s.steps.size()));
  for (const auto& st : s.steps) {
    put_s(o, st.step);
    for (int64_t v : {st.window_ns, st.computing_ns, st.communication_ns, st.overlapped_ns,
                      st.comm_not_overlapped_ns, st.memory_ns, st.free_ns, st.kernel_sum_ns})
      put_i(o, v);
  }
  put_i(o, static_cast<int64_t>(s.collectives.size()));
  for (const auto& c : s.collectives) {
    put_s(o, c.type);
    put_s(o, c.group);
    put_s(o, c.group_ranks);
    put_s(o, c.step);
    for (int64_t v :
         {c.seq, c.start_ns, c.dur_ns, c.bytes, c.group_size, static_cast<int64_t>(c.from_cpu_op)})
      put_i(o, v);
  }
  put_i(o, static_cast<int64_t>(s.kernels.size()));
  for (const auto& k : s.kernels) {
    put_s(o, k.name);
    put_i(o, k.count);
    put_i(o, k.total_ns);
    put_i(o, k.communication);
  }
}

void decode_summaries(const std::vector<char>& buf, std::vector<GpuRankSummary>& out) {
  Reader r{buf};
  while (r.at < buf.size()) {
    GpuRankSummary s;
    s.rank = static_cast<int>(r.i());
    s.world_size = static_cast<int>(r.i());
    s.path = r.s();
    s.backend = r.s();
    s.trace_rank = static_cast<int>(r.i());
    s.name_rank = static_cast<int>(r.i());
    s.parsed = r.i() != 0;
    s.messages.resize(r.count());
    for (auto& m : s.messages) m = r.s();
    s.kernel_count = r.i();
    s.steps.resize(r.count());
    for (auto& st : s.steps) {
      st.step = r.s();
      for (int64_t* v : {&st.window_ns, &st.computing_ns, &st.communication_ns, &st.overlapped_ns,
                         &st.comm_not_overlapped_ns, &st.memory_ns, &st.free_ns, &st.kernel_sum_ns})
        *v = r.i();
    }
    s.collectives.resize(r.count());
    for (auto& c : s.collectives) {
      c.type = r.s();
      c.group = r.s();
      c.group_ranks = r.s();
      c.step = r.s();
      c.seq = r.i();
      c.start_ns = r.i();
      c.dur_ns = r.i();
      c.bytes = r.i();
      c.group_size = r.i();
      c.from_cpu_op = r.i() != 0;
    }
    s.kernels.resize(r.count());
    for (auto& k : s.kernels) {
      k.name = r.s();
      k.count = r.i();
      k.total_ns = r.i();
      k.communication = r.i() != 0;
    }
    out.push_back(std::move(s));
  }
}

}  // namespace cs::gpu
