// The per-value encodings behind clusterscope's largest outputs, in bytes or values per second:
// an HDF5 chunk filtered (io/hdf5/hdf5_chunks.h: shuffle, then deflate level 1, as the per-op
// tables' chunks are), and Python's repr of the documents' floats (io/py_format.h).
//
//   bench_output_encoding --benchmark_filter=FilterChunk
//
// FilterChunk/8/S: a 1 MiB chunk of a number column (doubles like the tables' times: a few
// distinct magnitudes, noisy low digits). FilterChunk/29/S: a string column 29 bytes wide (op
// names, NUL-padded, a few distinct values), as communication_matrix's op_name. S = 0: zlib's
// default strategy (HDF5's own filter's bytes); S = 1: the run-length strategy the streamed
// per-op tables use (DeflateStrategy::kRunLength). "ratio" is raw bytes over filtered bytes.
// PyRepr/0: distinct values; PyRepr/1: values repeated as in cluster_communication.json (each
// of a small set, over and over: the per-thread memory of the last reprs answers them).

#include <benchmark/benchmark.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "bench_main.h"
#include "io/hdf5/hdf5_chunks.h"
#include "io/py_format.h"

namespace {

std::vector<unsigned char> column_chunk(size_t width) {
  constexpr size_t kBytes = size_t{1} << 20;
  std::vector<unsigned char> raw(kBytes / width * width, 0);
  std::mt19937_64 rng(7);
  const char* names[] = {"hcom_allReduce__184_0_1", "hcom_broadcast__184_1_1", "hcom_send__3_7_1"};
  for (size_t i = 0; i < raw.size() / width; ++i) {
    if (width == 8) {
      const double v =
          static_cast<double>(1 + rng() % 4) * 1000.0 + static_cast<double>(rng() % 100000) / 997.0;
      std::memcpy(raw.data() + i * 8, &v, 8);
    } else {
      const char* s = names[rng() % 3];
      std::memcpy(raw.data() + i * width, s, std::min(width, std::strlen(s)));
    }
  }
  return raw;
}

void FilterChunk(benchmark::State& state) {
  const size_t width = static_cast<size_t>(state.range(0));
  const auto strategy = state.range(1) != 0 ? cs::io::DeflateStrategy::kRunLength
                                            : cs::io::DeflateStrategy::kLikeHdf5;
  const std::vector<unsigned char> raw = column_chunk(width);
  size_t out = 0;
  for (auto _ : state) {
    std::vector<unsigned char> f = cs::io::filter_chunk(raw, width, true, 1, strategy);
    out = f.size();
    benchmark::DoNotOptimize(f.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * raw.size()));
  state.counters["ratio"] = static_cast<double>(raw.size()) / static_cast<double>(out);
}
BENCHMARK(FilterChunk)->Args({8, 0})->Args({8, 1})->Args({29, 0})->Args({29, 1});

void PyRepr(benchmark::State& state) {
  const bool repeated = state.range(0) != 0;
  std::mt19937_64 rng(11);
  std::vector<double> values(1 << 16);
  for (double& v : values)
    v = static_cast<double>(repeated ? rng() % 200 : rng() % 100000000) / 7.0 + 0.1;
  std::string out;
  for (auto _ : state) {
    out.clear();
    for (double v : values) cs::io::append_py_repr(out, v);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * values.size()));
}
BENCHMARK(PyRepr)->Arg(0)->Arg(1);

}  // namespace

int main(int argc, char** argv) {
  return cs::bench::run_benchmarks(argc, argv);
}
