// The recipes' table writer (msprof_analyze/recipes/frame_writers.h, pandas' to_sql): a table
// shaped like ClusterCommunicationMatrix written into a new database file, in rows and bytes per
// second.
//
//   bench_frame_writer --benchmark_filter=Direct
//
// Direct: the table written straight in SQLite's file format (io/sqlite). ThroughSQLite: the same
// table with one mixed column (texts and integers), which SQLite itself writes (its memdb path).
// The file is written to $TMPDIR (default /tmp) and removed after each iteration.

#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "bench_main.h"
#include "io/diagnostics.h"
#include "msprof_analyze/recipes/frame_writers.h"

namespace {

using cs::frame::Cell;
using cs::frame::Frame;

// `rows` rows of a communication matrix: step, rank, op and link names, transport, sizes, times
// and bandwidths (whole and fractional doubles). `mixed`: the last column holds texts and ints.
Frame matrix_like(int64_t rows, bool mixed) {
  Frame f;
  auto& step = f.add("step");
  auto& rank = f.add("rank_id");
  auto& op = f.add("hccl_op_name");
  auto& group = f.add("group_name");
  auto& link = f.add("src_rank-dst_rank");
  auto& transport = f.add("transport_type");
  auto& size = f.add("transit_size");
  auto& time = f.add("transit_time");
  auto& bw = f.add("bandwidth");
  auto& extra = f.add("op_name");
  for (int64_t r = 0; r < rows; ++r) {
    step.push_back(Cell::text("step" + std::to_string(r % 4)));
    rank.push_back(Cell::integer(r % 256));
    op.push_back(Cell::text("hcom_allReduce__" + std::to_string(r % 997) + "_1_1"));
    group.push_back(Cell::text(std::to_string(1000000007LL * (r % 64))));
    link.push_back(Cell::text(std::to_string(r % 8) + "-" + std::to_string((r + 1) % 8)));
    transport.push_back(Cell::text(r % 3 ? "HCCS" : "RDMA"));
    size.push_back(Cell::real(static_cast<double>(r % 4096) * 2.0));
    time.push_back(Cell::real(0.001 * static_cast<double>(r % 10007) + 0.0005));
    bw.push_back(Cell::real(static_cast<double>(r % 777) / 3.0));
    if (mixed && r % 2)
      extra.push_back(Cell::integer(r));
    else
      extra.push_back(Cell::text("allReduce-top" + std::to_string(r % 5)));
  }
  return f;
}

void write_table(benchmark::State& state, bool mixed) {
  const Frame f = matrix_like(state.range(0), mixed);
  const char* tmp = std::getenv("TMPDIR");
  const std::string path =
      std::string(tmp ? tmp : "/tmp") + "/bench_frame_writer_" + std::to_string(::getpid()) + ".db";
  int64_t bytes = 0;
  for (auto _ : state) {
    ::unlink(path.c_str());
    cs::io::Diagnostics diag;
    if (!cs::recipes::write_frame_sqlite(f, path, "ClusterCommunicationMatrix", diag)) {
      state.SkipWithError("write_frame_sqlite failed");
      break;
    }
    state.PauseTiming();
    bytes += static_cast<int64_t>(std::filesystem::file_size(path));
    state.ResumeTiming();
  }
  ::unlink(path.c_str());
  state.SetItemsProcessed(state.iterations() * state.range(0));
  state.SetBytesProcessed(bytes);
}

void BM_Direct(benchmark::State& state) {
  write_table(state, false);
}
void BM_ThroughSQLite(benchmark::State& state) {
  write_table(state, true);
}

BENCHMARK(BM_Direct)->Arg(170000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ThroughSQLite)->Arg(170000)->Unit(benchmark::kMillisecond);

}  // namespace

int main(int argc, char** argv) {
  return cs::bench::run_benchmarks(argc, argv);
}
