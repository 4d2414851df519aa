// Throughput of the compare path: Kineto trace parsing (MB/s of uncompressed JSON, one core), the
// same trace read from .json.gz (inflate + parse, and inflate alone), and the exact LCS alignment
// of two 100,000-op sequences.
//
//   build-*/bench/bench_compare --benchmark_counters_tabular=true
// The synthetic trace is written once to /tmp/cs_bench_kineto.json (~200 MB) and
// /tmp/cs_bench_kineto.json.gz. bytes_per_second counts uncompressed JSON.
#include <benchmark/benchmark.h>

#include <sys/stat.h>
#include <zlib.h>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "bench/bench_main.h"
#include "compare/lcs.h"
#include "io/json/gzip_input.h"
#include "readers/kineto_trace.h"

namespace {

const char* kTracePath = "/tmp/cs_bench_kineto.json";

// A Kineto-like trace: cpu_op / cuda_runtime / kernel triples with flows and kernel args, the
// shape and key order torch.profiler writes.
void ensure_trace(size_t target_bytes) {
  struct stat st {};
  if (stat(kTracePath, &st) == 0 && static_cast<size_t>(st.st_size) >= target_bytes) return;
  std::FILE* f = std::fopen(kTracePath, "wb");
  if (!f) return;
  std::fputs(
      "{\"schemaVersion\": 1, \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": 0, "
      "\"world_size\": 8}, \"traceEvents\": [\n",
      f);
  std::mt19937 rng(1);
  const char* ops[] = {"aten::mm", "aten::add", "aten::layer_norm", "aten::softmax", "aten::copy_"};
  size_t written = 0;
  long long ts = 1682725898236567LL;
  char buf[2048];
  for (long long i = 0; written < target_bytes; ++i) {
    const char* op = ops[rng() % 5];
    int n = std::snprintf(
        buf, sizeof buf,
        "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"%s\", \"pid\": 4037, \"tid\": 4037, "
        "\"ts\": %lld.%03d, \"dur\": 68.%03d, \"args\": {\"External id\": %lld, \"Ev Idx\": %lld, "
        "\"Input Dims\": [[2048, 1024], [1024, 4096]], \"Input type\": [\"float\", \"float\"], "
        "\"Sequence number\": %lld, \"Fwd thread id\": 1}},\n"
        "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 4037, "
        "\"tid\": 4037, \"ts\": %lld.%03d, \"dur\": 18.0, \"args\": {\"External id\": %lld, "
        "\"cbid\": 211, \"correlation\": %lld}},\n"
        "{\"ph\": \"s\", \"id\": %lld, \"pid\": 4037, \"tid\": 4037, \"ts\": %lld.%03d, \"cat\": "
        "\"ac2g\", \"name\": \"ac2g\"},\n"
        "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"void cutlass::Kernel<cutlass_80_tensorop_"
        "s1688gemm_128x128_32x3_nn_align4>(cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4::"
        "Params)\", \"pid\": 0, \"tid\": 7, \"ts\": %lld.%03d, \"dur\": 10.%03d, \"args\": "
        "{\"External id\": %lld, \"queued\": 0, \"device\": 0, \"context\": 1, \"stream\": 7, "
        "\"correlation\": %lld, \"registers per thread\": 27, \"shared memory\": 0, \"blocks per "
        "SM\": 22.222221, \"warps per SM\": 177.77777, \"grid\": [2400, 1, 1], \"block\": [256, 1, "
        "1], \"est. achieved occupancy %%\": 100}},\n"
        "{\"ph\": \"f\", \"id\": %lld, \"pid\": 0, \"tid\": 7, \"ts\": %lld.%03d, \"cat\": "
        "\"ac2g\", "
        "\"name\": \"ac2g\", \"bp\": \"e\"},\n",
        op, ts, int(i % 1000), int(i % 997), i, i, i, ts + 2, int(i % 1000), i, i, i, ts + 2,
        int(i % 1000), ts + 50, int(i % 1000), int(i % 991), i, i, i, ts + 50, int(i % 1000));
    std::fwrite(buf, 1, static_cast<size_t>(n), f);
    written += static_cast<size_t>(n);
    ts += 100;
  }
  std::fputs(
      "{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": 0, \"tid\": 0, \"args\": "
      "{\"name\": \"GPU 0\"}}]}\n",
      f);
  std::fclose(f);
}

void BM_KinetoParse(benchmark::State& state) {
  ensure_trace(200u << 20);
  simdjson::padded_string json;
  cs::io::Diagnostics diag;
  if (!cs::io::load_json_maybe_gzip(kTracePath, json, diag)) {
    state.SkipWithError("cannot load the synthetic trace");
    return;
  }
  size_t events = 0;
  for (auto _ : state) {
    cs::readers::Trace t;
    cs::io::Diagnostics d;
    if (!cs::readers::parse_kineto_trace(json, kTracePath, t, d))
      state.SkipWithError("parse failed");
    events = t.events.size() + t.flows.size();
    benchmark::DoNotOptimize(t.events.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * json.size()));
  state.counters["events"] = static_cast<double>(events);
  state.counters["MB"] = static_cast<double>(json.size()) / 1e6;
}
BENCHMARK(BM_KinetoParse)->Unit(benchmark::kMillisecond)->MinTime(2.0);

const char* kTraceGzPath = "/tmp/cs_bench_kineto.json.gz";

// The synthetic trace gzip-compressed at the default level (what torch.profiler's handler writes).
bool ensure_trace_gz() {
  ensure_trace(200u << 20);
  struct stat js {
  }, gs{};
  if (stat(kTraceGzPath, &gs) == 0 && stat(kTracePath, &js) == 0 && gs.st_mtime >= js.st_mtime &&
      gs.st_size > 0)
    return true;
  std::FILE* in = std::fopen(kTracePath, "rb");
  gzFile out = gzopen(kTraceGzPath, "wb6");
  if (!in || !out) {
    if (in) std::fclose(in);
    if (out) gzclose(out);
    return false;
  }
  std::vector<char> buf(1 << 20);
  bool ok = true;
  for (size_t n; ok && (n = std::fread(buf.data(), 1, buf.size(), in)) > 0;)
    ok = gzwrite(out, buf.data(), static_cast<unsigned>(n)) == static_cast<int>(n);
  std::fclose(in);
  return gzclose(out) == Z_OK && ok;
}

// read_kineto_trace on the .json.gz: file read, inflate and parse, as the compare command does.
void BM_KinetoReadGz(benchmark::State& state) {
  if (!ensure_trace_gz()) {
    state.SkipWithError("cannot write the gzip trace");
    return;
  }
  uint64_t bytes = 0;
  for (auto _ : state) {
    cs::readers::Trace t;
    cs::io::Diagnostics d;
    if (!cs::readers::read_kineto_trace(kTraceGzPath, t, d)) state.SkipWithError("read failed");
    bytes = t.bytes;
    benchmark::DoNotOptimize(t.events.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
}
BENCHMARK(BM_KinetoReadGz)->Unit(benchmark::kMillisecond)->MinTime(2.0);

// The gzip part alone: read the .json.gz and inflate it into simdjson's padded buffer.
void BM_KinetoInflateGz(benchmark::State& state) {
  if (!ensure_trace_gz()) {
    state.SkipWithError("cannot write the gzip trace");
    return;
  }
  size_t bytes = 0;
  for (auto _ : state) {
    simdjson::padded_string json;
    cs::io::Diagnostics d;
    if (!cs::io::load_json_maybe_gzip(kTraceGzPath, json, d)) state.SkipWithError("inflate failed");
    bytes = json.size();
    benchmark::DoNotOptimize(json.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
}
BENCHMARK(BM_KinetoInflateGz)->Unit(benchmark::kMillisecond)->MinTime(2.0);

// Two 100,000-op sequences like two versions of one model: a vocabulary of 400 op names, 2% of
// ops deleted, 2% inserted, 1% renamed.
void BM_LcsAlign100k(benchmark::State& state) {
  const size_t n = static_cast<size_t>(state.range(0));
  std::mt19937 rng(3);
  std::vector<uint32_t> a(n), b;
  for (auto& x : a) x = rng() % 400;
  for (size_t i = 0; i < n && b.size() < n; ++i) {
    const unsigned r = rng() % 100;
    if (r < 2) continue;
    if (r < 4) b.push_back(rng() % 400);
    b.push_back(r == 4 ? 400 + rng() % 50 : a[i]);
  }
  size_t matched = 0;
  for (auto _ : state) {
    auto pairs = cs::compare::lcs_align(a, b);
    matched = pairs.size();
    benchmark::DoNotOptimize(pairs.data());
  }
  state.counters["matched"] = static_cast<double>(matched);
}
BENCHMARK(BM_LcsAlign100k)->Arg(100000)->Unit(benchmark::kMillisecond)->Iterations(3);

// Worst case for the bit-parallel rows: unrelated random sequences over 4 symbols (every row
// touches every word, no common prefix or suffix to trim).
void BM_LcsAlignRandom(benchmark::State& state) {
  const size_t n = static_cast<size_t>(state.range(0));
  std::mt19937 rng(5);
  std::vector<uint32_t> a(n), b(n);
  for (auto& x : a) x = rng() % 4;
  for (auto& x : b) x = rng() % 4;
  for (auto _ : state) {
    auto pairs = cs::compare::lcs_align(a, b);
    benchmark::DoNotOptimize(pairs.data());
  }
}
BENCHMARK(BM_LcsAlignRandom)->Arg(100000)->Unit(benchmark::kMillisecond)->Iterations(2);

}  // namespace

int main(int argc, char** argv) {
  return cs::bench::run_benchmarks(argc, argv);
}
