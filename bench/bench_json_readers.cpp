// Throughput of the JSON readers (readers/communication, readers/matrix) on large realistic files.
//
// Generates once, into /tmp/clusterscope_bench_json/, a communication.json (~120 MB: 24 steps x
// 3,000 ops, every transport, Size Distribution entries) and a communication_matrix.json
// (~60 MB), then reports bytes/s of reading them. Target: communication.json >= 1 GB/s on one
// core. Run: bench_json_readers --benchmark_filter=Comm

#include <benchmark/benchmark.h>
#include <sys/stat.h>

#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

#include <simdjson.h>

#include "bench/bench_main.h"
#include "io/json/json_writer.h"
#include "readers/communication.h"
#include "readers/matrix.h"

namespace {

using cs::io::JsonStyle;
using cs::io::JsonWriter;
using cs::io::Num;

const std::string kDir = "/tmp/clusterscope_bench_json";
constexpr int kSteps = 24;
constexpr int kOpsPerStep = 3000;

// A value with all the digits a producer's float arithmetic leaves: 0.0202498125000001.
double noisy(std::mt19937_64& rng, double scale) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  return u(rng) * scale;
}

void write_comm_op(JsonWriter& w, std::mt19937_64& rng, double ts) {
  static const char* kTimeKeys[] = {"Start Timestamp(us)",      "Elapse Time(ms)",
                                    "Transit Time(ms)",         "Wait Time(ms)",
                                    "Synchronization Time(ms)", "Idle Time(ms)",
                                    "Wait Time Ratio",          "Synchronization Time Ratio"};
  static const char* kTransports[] = {"RDMA", "HCCS", "PCIE", "SDMA", "SIO"};
  static const char* kSizes[] = {"0.003072", "0.002944", "0.002752", "4.194304", "16.777216"};
  w.begin_object();
  w.key("Communication Time Info");
  w.begin_object();
  for (int i = 0; i < 8; ++i) {
    w.key(kTimeKeys[i]);
    if (i == 0) {
      w.value(ts);
    } else if (i >= 6) {
      w.value(static_cast<double>(static_cast<int>(noisy(rng, 10000))) / 10000.0);
    } else {
      w.value(noisy(rng, 150.0));
    }
  }
  w.end_object();
  w.key("Communication Bandwidth Info");
  w.begin_object();
  for (int t = 0; t < 5; ++t) {
    w.key(kTransports[t]);
    w.begin_object();
    bool zero = t == 0 && (rng() % 2);
    w.key("Transit Size(MB)");
    zero ? w.value(int64_t{0}) : w.value(noisy(rng, 64.0));
    w.key("Transit Time(ms)");
    zero ? w.value(int64_t{0}) : w.value(noisy(rng, 4.0));
    w.key("Bandwidth(GB/s)");
    zero ? w.value(int64_t{0}) : w.value(static_cast<double>(rng() % 250000) / 10000.0);
    w.key("Large Packet Ratio");
    w.value(zero ? Num::integer(0) : Num::real(0.0));
    w.key("Size Distribution");
    w.begin_object();
    if (!zero && t != 3) {
      int n = 1 + static_cast<int>(rng() % 4);
      for (int k = 0; k < n; ++k) {
        w.key(kSizes[k]);
        w.begin_array();
        w.value(static_cast<int64_t>(rng() % 64));
        w.value(noisy(rng, 0.05));
        w.end_array();
      }
    }
    w.end_object();
    w.end_object();
  }
  w.end_object();
  w.end_object();
}

bool exists(const std::string& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 && st.st_size > 0;
}

std::string comm_path() {
  std::string path = kDir + "/communication.json";
  if (exists(path)) return path;
  ::mkdir(kDir.c_str(), 0755);
  std::string tmp = path + ".tmp";
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  {
    JsonWriter w(f, JsonStyle::msprof());
    std::mt19937_64 rng(42);
    double ts = 1695054582608213.0;
    w.begin_object();
    for (int s = 0; s < kSteps; ++s) {
      w.key("step" + std::to_string(s + 1));
      w.begin_object();
      for (int sec = 0; sec < 2; ++sec) {
        w.key(sec == 0 ? "collective" : "p2p");
        w.begin_object();
        int n = sec == 0 ? kOpsPerStep * 9 / 10 : kOpsPerStep / 10;
        for (int i = 0; i < n; ++i) {
          std::string name = sec == 0 ? "hcom_allReduce__" : "hcom_send__";
          name += std::to_string(100 + s) + "_" + std::to_string(i) + "_1@" +
                  std::to_string(13681369207305868844ULL - static_cast<uint64_t>(i % 7));
          w.key(name);
          ts += noisy(rng, 2000.0);
          write_comm_op(w, rng, ts);
        }
        if (sec == 0) {
          w.key("Total Op Info");
          write_comm_op(w, rng, 0.0);
        }
        w.end_object();
      }
      w.end_object();
    }
    w.end_object();
  }
  std::fclose(f);
  std::rename(tmp.c_str(), path.c_str());
  return path;
}

std::string matrix_path() {
  std::string path = kDir + "/communication_matrix.json";
  if (exists(path)) return path;
  ::mkdir(kDir.c_str(), 0755);
  std::string tmp = path + ".tmp";
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  {
    JsonWriter w(f, JsonStyle::msprof());
    std::mt19937_64 rng(7);
    static const char* kTypes[] = {"allreduce", "allgather", "reduce", "broadcast", "alltoall"};
    static const char* kKinds[] = {"top1", "middle", "bottom1", "bottom2", "bottom3", "total"};
    w.begin_object();
    for (int s = 0; s < kSteps; ++s) {
      w.key("step" + std::to_string(s + 1));
      w.begin_object();
      w.key("collective");
      w.begin_object();
      for (int g = 0; g < 40; ++g) {
        for (const char* type : kTypes) {
          for (const char* kind : kKinds) {
            w.key(std::string(type) + "-" + kind + "@" +
                  std::to_string(6297232067196334501ULL + g));
            w.begin_object();
            for (int l = 0; l < 8; ++l) {
              w.key("3-" + std::to_string(l));
              w.begin_object();
              w.key("Transport Type");
              w.value(l == 3 ? "LOCAL" : "HCCS");
              w.key("Transit Size(MB)");
              w.value(noisy(rng, 64.0));
              w.key("Transit Time(ms)");
              w.value(noisy(rng, 4.0));
              w.key("Bandwidth(GB/s)");
              w.value(static_cast<double>(rng() % 250000) / 10000.0);
              w.key("Bandwidth(Utilization)");
              w.value(static_cast<double>(rng() % 10000) / 10000.0);
              w.key("Large Packet Ratio");
              w.value(0.0);
              w.key("Op Name");
              w.value("hcom_" + std::string(type) + "__" + std::to_string(g) + "_1");
              w.end_object();
            }
            w.end_object();
          }
        }
      }
      w.end_object();
      w.key("p2p");
      w.begin_object();
      w.end_object();
      w.end_object();
    }
    w.end_object();
  }
  std::fclose(f);
  std::rename(tmp.c_str(), path.c_str());
  return path;
}

size_t file_size(const std::string& p) {
  struct stat st {};
  ::stat(p.c_str(), &st);
  return static_cast<size_t>(st.st_size);
}

simdjson::padded_string load(const std::string& path) {
  simdjson::padded_string text;
  if (simdjson::padded_string::load(path).get(text)) std::abort();
  return text;
}

// Visits every value below `v`: objects (and their keys), arrays, numbers parsed as doubles.
simdjson::error_code walk_values(simdjson::ondemand::value v, double& sum, size_t& keys) {
  using simdjson::ondemand::json_type;
  json_type t;
  if (auto e = v.type().get(t)) return e;
  if (t == json_type::object) {
    simdjson::ondemand::object o;
    if (auto e = v.get_object().get(o)) return e;
    for (auto fr : o) {
      simdjson::ondemand::field f;
      if (auto e = std::move(fr).get(f)) return e;
      keys += f.key().raw()[0] != 0;
      if (auto e = walk_values(f.value(), sum, keys)) return e;
    }
  } else if (t == json_type::array) {
    simdjson::ondemand::array a;
    if (auto e = v.get_array().get(a)) return e;
    for (auto er : a) {
      simdjson::ondemand::value x;
      if (auto e = std::move(er).get(x)) return e;
      if (auto e = walk_values(x, sum, keys)) return e;
    }
  } else if (t == json_type::number) {
    double d = 0;
    if (auto e = v.get_double().get(d)) return e;
    sum += d;
  }
  return simdjson::SUCCESS;
}

void BM_CommunicationJson(benchmark::State& state) {
  const std::string path = comm_path();
  size_t ops = 0;
  for (auto _ : state) {
    cs::readers::CommunicationFile f;
    cs::io::Diagnostics diag;
    if (!cs::readers::read_communication_json(path, f, diag) || diag.has_errors()) {
      state.SkipWithError("read failed");
      break;
    }
    ops = 0;
    for (const auto& s : f.steps) ops += s.collective.size() + s.p2p.size();
    benchmark::DoNotOptimize(f);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * file_size(path)));
  state.counters["MB"] = static_cast<double>(file_size(path)) / 1e6;
  state.counters["ops"] = static_cast<double>(ops);
}
BENCHMARK(BM_CommunicationJson)->Unit(benchmark::kMillisecond)->MinTime(3.0);

// The same parse from text already in memory: the reader without the file read.
void BM_CommunicationJsonInMemory(benchmark::State& state) {
  const std::string path = comm_path();
  const simdjson::padded_string text = load(path);
  for (auto _ : state) {
    cs::readers::CommunicationFile f;
    cs::io::Diagnostics diag;
    if (!cs::readers::parse_communication_json(std::string_view(text.data(), text.size()), path, f,
                                               diag)) {
      state.SkipWithError("parse failed");
      break;
    }
    benchmark::DoNotOptimize(f);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
}
BENCHMARK(BM_CommunicationJsonInMemory)->Unit(benchmark::kMillisecond)->MinTime(3.0);

// Reference, not a reader: simdjson on-demand visiting every key and value of the same text and
// parsing every number, storing nothing. What any on-demand reader of this file can reach on
// this CPU, before it builds a single output struct.
void BM_SimdjsonWalkOnly(benchmark::State& state) {
  const simdjson::padded_string text = load(comm_path());
  simdjson::ondemand::parser parser;
  for (auto _ : state) {
    simdjson::ondemand::document doc;
    simdjson::ondemand::value root;
    double sum = 0;
    size_t keys = 0;
    if (parser.iterate(text).get(doc) || doc.get_value().get(root) ||
        walk_values(root, sum, keys)) {
      state.SkipWithError("walk failed");
      break;
    }
    benchmark::DoNotOptimize(sum);
    benchmark::DoNotOptimize(keys);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
}
BENCHMARK(BM_SimdjsonWalkOnly)->Unit(benchmark::kMillisecond)->MinTime(3.0);

// Reference: reading the file into a padded buffer, nothing else (page cache to memory).
void BM_ReadFileOnly(benchmark::State& state) {
  const std::string path = comm_path();
  for (auto _ : state) {
    simdjson::padded_string text = load(path);
    benchmark::DoNotOptimize(text.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * file_size(path)));
}
BENCHMARK(BM_ReadFileOnly)->Unit(benchmark::kMillisecond)->MinTime(3.0);

void BM_CommunicationMatrixJson(benchmark::State& state) {
  const std::string path = matrix_path();
  size_t links = 0;
  for (auto _ : state) {
    cs::readers::MatrixFile f;
    cs::io::Diagnostics diag;
    if (!cs::readers::read_communication_matrix_json(path, f, diag) || diag.has_errors()) {
      state.SkipWithError("read failed");
      break;
    }
    links = 0;
    for (const auto& s : f.steps)
      for (const auto& op : s.collective) links += op.links.size();
    benchmark::DoNotOptimize(f);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * file_size(path)));
  state.counters["MB"] = static_cast<double>(file_size(path)) / 1e6;
  state.counters["links"] = static_cast<double>(links);
}
BENCHMARK(BM_CommunicationMatrixJson)->Unit(benchmark::kMillisecond)->MinTime(3.0);

}  // namespace

int main(int argc, char** argv) {
  return cs::bench::run_benchmarks(argc, argv);
}
