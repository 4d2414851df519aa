// Reading back a rank's parked communication ops (load/rank_communication.h: ParkedFile::read),
// which the root does about six times a rank under `cluster` (the groups, the batches, the rank
// sums, slow transfers, lateness): ranks per second and packed bytes per second.
//
//   bench_parked_read
//
// ParkedRead/S/R: 64 ranks of 160 ops each (a 256-rank job's rank: 4 steps of collectives with
// two transports and a size bucket each, names like the generator's), S = 0 packed in memory,
// S = 1 spilled to a file; R = 0 a fresh scratch per rank (each read allocates every op's name and
// vectors), R = 1 one scratch reused rank after rank (unpacked in place).

#include <benchmark/benchmark.h>

#include <memory>
#include <string>
#include <vector>

#include "bench_main.h"
#include "load/rank_communication.h"
#include "runtime/spill_file.h"

namespace {

cs::readers::CommunicationFile rank_ops(uint32_t seed) {
  cs::readers::CommunicationFile f;
  for (int s = 0; s < 4; ++s) {
    cs::readers::CommStep step;
    step.step = "step" + std::to_string(s + 1);
    for (int o = 0; o < 40; ++o) {
      cs::readers::CommOp op;
      op.name = "hcom_allReduce__" + std::to_string(100 + o) + "_" + std::to_string(seed % 8) +
                "_1@1368136920730586" + std::to_string(1000 + o);
      op.has_time_info = op.has_bandwidth_info = true;
      for (int k = 0; k < cs::readers::kTimeFieldCount; ++k)
        op.time.set(k, cs::io::Num::real(0.125 * (o + k + seed)));
      for (const char* name : {"HCCS", "RDMA"}) {
        cs::readers::TransportInfo t;
        t.name = cs::readers::TransportName(name);
        for (int k = 0; k < cs::readers::kTransportFieldCount; ++k)
          t.set(k, cs::io::Num::real(0.5 * (o + k)));
        t.has_size_distribution = true;
        op.transports.push_back(t);
        op.add_bucket({"0.003072", cs::io::Num::integer(18), cs::io::Num::real(0.02 * o)});
      }
      step.collective.push_back(std::move(op));
    }
    f.steps.push_back(std::move(step));
  }
  return f;
}

void ParkedRead(benchmark::State& state) {
  const bool spill = state.range(0) != 0, reuse = state.range(1) != 0;
  auto file = cs::runtime::SpillFile::create();
  std::vector<cs::load::RankCommunication> ranks;
  size_t bytes = 0;
  for (uint32_t r = 0; r < 64; ++r) {
    cs::load::RankCommunication& c = ranks.emplace_back(rank_ops(r));
    std::vector<char> packed;
    c.packed_copy(packed);
    bytes += packed.size();
    if (spill)
      c.spill(file);
    else
      c.pack();
  }
  cs::readers::CommunicationFile kept;
  size_t ops = 0;
  for (auto _ : state) {
    for (const cs::load::RankCommunication& c : ranks) {
      cs::readers::CommunicationFile fresh;
      const cs::readers::CommunicationFile& f = c.read(reuse ? kept : fresh);
      ops += f.steps.size();
      benchmark::DoNotOptimize(f.steps.data());
    }
  }
  benchmark::DoNotOptimize(ops);
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * ranks.size()));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
}
BENCHMARK(ParkedRead)->Args({0, 0})->Args({0, 1})->Args({1, 0})->Args({1, 1});

}  // namespace

int main(int argc, char** argv) {
  return cs::bench::run_benchmarks(argc, argv);
}
