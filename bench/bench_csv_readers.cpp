// Throughput of the CSV readers on a large realistic kernel_details.csv (the 46 columns of the
// real torch_npu sample in tests/data/ascend, its rows repeated with varied numbers), generated
// once in /tmp. Target: read_kernel_details_csv >= 400 MB/s on one core.
//
//   bench_csv_readers --benchmark_filter=KernelDetails
//   CS_BENCH_CSV_MB=200 bench_csv_readers     # size of the generated file (default 128 MB)

#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "bench/bench_main.h"
#include "io/csv/csv_reader.h"
#include "readers/kernel_details.h"

namespace {

namespace fs = std::filesystem;
using cs::io::CsvReader;
using cs::io::CsvRow;
using cs::io::Diagnostics;

// Writes one CSV field, quoting it when the producer would.
void put_field(std::string& out, std::string_view f, bool force_quotes = false) {
  bool quote = force_quotes || f.find_first_of(",\"\n") != std::string_view::npos;
  if (!quote) {
    out += f;
    return;
  }
  out += '"';
  for (char c : f) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
}

std::string fmt(double v, int decimals) {
  char b[64];
  std::snprintf(b, sizeof b, "%.*f", decimals, v);
  return b;
}

// The real sample, found from this source file's path (CMake compiles it by absolute path).
std::string sample_path() {
#ifdef CS_SOURCE_DIR
  return std::string(CS_SOURCE_DIR) + "/tests/data/ascend/kernel_details.csv";
#else
  return (fs::path(__FILE__).parent_path().parent_path() / "tests/data/ascend/kernel_details.csv")
      .string();
#endif
}

// The large file: rows of the real sample, with new task ids, a growing clock and jittered
// durations. Returns "" when the sample cannot be read.
std::string large_kernel_details() {
  size_t mb = 128;
  if (const char* e = std::getenv("CS_BENCH_CSV_MB")) mb = std::strtoul(e, nullptr, 10);
  fs::path path =
      fs::temp_directory_path() / ("cs_bench_kernel_details_" + std::to_string(mb) + "MB.csv");
  const uintmax_t want = uintmax_t{mb} << 20;
  std::error_code ec;
  if (fs::exists(path, ec) && fs::file_size(path, ec) >= want) return path.string();

  Diagnostics diag;
  CsvReader sample(sample_path(), diag);
  if (!sample.open()) return "";
  std::vector<std::vector<std::string>> rows;
  CsvRow row;
  while (sample.next(row)) rows.emplace_back(row.fields.begin(), row.fields.end());
  const auto& header = sample.header();
  const int c_task = sample.column("Task ID");
  const int c_start = sample.column("Start Time(us)");
  const int c_dur = sample.column("Duration(us)");
  const int c_wait = sample.column("Wait Time(us)");
  const int c_aicore = sample.column("aicore_time(us)");

  std::string tmp = path.string() + ".tmp";
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (f == nullptr) return "";
  std::string out;
  for (size_t i = 0; i < header.size(); ++i) {
    if (i) out += ',';
    put_field(out, header[i]);
  }
  out += '\n';
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> jitter(0.8, 1.25);
  double clock = 1736413971558972.912;
  uintmax_t written = 0;
  for (uint64_t n = 0; written + out.size() < want; ++n) {
    const auto& tpl = rows[n % rows.size()];
    double dur = std::stod(tpl[c_dur]) * jitter(rng);
    double wait = std::stod(tpl[c_wait]) * jitter(rng);
    for (size_t i = 0; i < tpl.size(); ++i) {
      if (i) out += ',';
      const int c = static_cast<int>(i);
      if (c == c_task) {
        out += std::to_string(10000 + n % 60000);
      } else if (c == c_start) {
        put_field(out, fmt(clock, 3) + "\t", true);
      } else if (c == c_dur) {
        out += fmt(dur, 3);
      } else if (c == c_wait) {
        out += fmt(wait, 3);
      } else if (c == c_aicore && tpl[i] != "0") {
        out += fmt(dur * 0.97, 3);
      } else {
        put_field(out, tpl[i]);
      }
    }
    out += '\n';
    clock += dur + wait;
    if (out.size() > (4u << 20)) {
      written += std::fwrite(out.data(), 1, out.size(), f);
      out.clear();
    }
  }
  written += std::fwrite(out.data(), 1, out.size(), f);
  std::fclose(f);
  fs::rename(tmp, path, ec);
  return ec ? "" : path.string();
}

const std::string& bench_file() {
  static const std::string path = large_kernel_details();
  return path;
}

// The CSV layer alone: split every row into fields.
void BM_CsvReaderRows(benchmark::State& state) {
  const std::string& path = bench_file();
  if (path.empty()) {
    state.SkipWithError("cannot generate the benchmark file");
    return;
  }
  int64_t bytes = 0;
  for (auto _ : state) {
    Diagnostics diag;
    CsvReader r(path, diag);
    if (!r.open()) {
      state.SkipWithError("cannot open");
      return;
    }
    CsvRow row;
    size_t fields = 0;
    while (r.next(row)) fields += row.size();
    benchmark::DoNotOptimize(fields);
    bytes += r.bytes_read();
    state.counters["rows"] = static_cast<double>(r.rows_read());
  }
  state.SetBytesProcessed(bytes);
}
BENCHMARK(BM_CsvReaderRows)->Unit(benchmark::kMillisecond);

// The full kernel_details reader: header lookup, numbers parsed, shapes unquoted, callback.
void BM_KernelDetails(benchmark::State& state) {
  const std::string& path = bench_file();
  if (path.empty()) {
    state.SkipWithError("cannot generate the benchmark file");
    return;
  }
  const auto size = static_cast<int64_t>(fs::file_size(path));
  for (auto _ : state) {
    Diagnostics diag;
    double total = 0;
    size_t shapes = 0;
    int64_t n = 0;
    bool ok = cs::readers::read_kernel_details_csv(
        path,
        [&](const cs::readers::KernelRecord& k) {
          total += k.duration_us;
          shapes += k.input_shapes.size();
          ++n;
        },
        diag);
    if (!ok || !diag.empty()) {
      state.SkipWithError("reader reported problems");
      return;
    }
    benchmark::DoNotOptimize(total);
    benchmark::DoNotOptimize(shapes);
    state.counters["rows"] = static_cast<double>(n);
  }
  state.SetBytesProcessed(size * state.iterations());
}
BENCHMARK(BM_KernelDetails)->Unit(benchmark::kMillisecond);

}  // namespace

int main(int argc, char** argv) {
  return cs::bench::run_benchmarks(argc, argv);
}
