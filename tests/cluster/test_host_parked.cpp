// The root of `cluster` parks every rank's host summary (load::RankHost) with its ops, matrix and
// operators: in the loader's spill file, or packed in memory once the file cannot be written. The
// host tables, the host findings and the slow-rank host causes read the summaries back one rank at
// a time (load::host_walk): they must be what the summaries held in memory give, bit for bit,
// whatever the mix of states, and a parked summary that cannot be read back is an error, never a
// rank without host data.

#include <gtest/gtest.h>
#include <sys/resource.h>

#include <algorithm>
#include <bit>
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <deque>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "analysis/host_cause.h"
#include "cluster/cluster_loader.h"
#include "cluster/cluster_mode.h"
#include "cluster/host_outputs.h"
#include "cluster/parked_table.h"
#include "cluster/table_sink.h"
#include "host/host_tables.h"
#include "io/byte_buffer.h"
#include "load/rank_data_codec.h"
#include "runtime/spill_file.h"
#include "support/mpi_session.h"

namespace cs::cluster {
namespace {

constexpr double kStepUs = 10'000;

// 40 ranks (ids 1, 3, 5, ...: not their positions) of random host summaries that make every host
// finding fire: two host-bound ranks (with job_bound, every rank: a host-bound job), a
// data-loading rank, a compile stall, MindSpore device queues found empty, ranks without a host
// timeline, one rank without host data at all.
std::vector<load::RankData> random_ranks(bool job_bound) {
  std::mt19937_64 rng(job_bound ? 29 : 17);
  std::uniform_real_distribution<double> u(0, 1);
  const char* names[] = {"aten::matmul",
                         "aten::add",
                         "aten::mul",
                         "aten::copy_",
                         "aten::layer_norm",
                         "aten::softmax",
                         "aten::index_select_backward_op",
                         "aten::to",
                         "aten::empty",
                         "Optimizer.step#AdamW.step",
                         "aten::scaled_dot_product_attention",
                         "aten::cat"};
  std::vector<load::RankData> ranks(40);
  for (size_t i = 0; i < ranks.size(); ++i) {
    load::RankData& d = ranks[i];
    d.entry.rank = 1 + 2 * static_cast<int>(i);
    if (i == 30) continue;  // no host data
    host::HostSummary& s = d.host.edit();
    s.has_timeline = i % 13 != 5;
    for (const char* name : names) {
      if (u(rng) < 0.25) continue;
      host::OpStats o;
      o.name = name;
      o.calls = 1 + static_cast<int64_t>(rng() % 500);
      o.host_self_us = 5 + 3000 * u(rng);
      o.host_total_us = o.host_self_us * (1 + u(rng));
      o.launches = rng() % 4 == 0 ? 0 : o.calls;
      o.device_self_us = o.launches > 0 ? 4000 * u(rng) : 0;
      for (auto& b : o.delay_hist) b = static_cast<int64_t>(rng() % 50);
      o.delay_sum_us = 40 * u(rng) * static_cast<double>(o.launches);
      o.delay_max_us = 900 * u(rng);
      s.ops.push_back(o);
    }
    std::sort(s.ops.begin(), s.ops.end(),
              [](const host::OpStats& a, const host::OpStats& b) { return a.name < b.name; });
    const bool bound = job_bound || i == 7 || i == 21;
    for (int step = 1; step <= 4; ++step) {
      host::StepFree f;
      f.step = step;
      f.step_us = kStepUs * (1 + 0.05 * u(rng));
      f.free_us = 1500 + 1000 * u(rng) + (bound ? 3500 : 0) + (i == 11 ? 2500 : 0);
      auto cause = [&](host::Cause c) -> double& { return f.cause_us[static_cast<size_t>(c)]; };
      cause(host::Cause::kDispatch) = (bound ? 3500 : 0) + 100 * u(rng);
      cause(host::Cause::kData) = (i == 11 ? 2500 : 0) + 60 * u(rng);
      cause(host::Cause::kCompile) = (i == 15 ? 1400 : 0) + 20 * u(rng);
      cause(host::Cause::kSync) = 30 * u(rng);
      cause(host::Cause::kGc) = 10 * u(rng);
      f.unattributed_us = f.free_us;
      for (double c : f.cause_us) f.unattributed_us -= c;
      f.data_host_us = 500 + 20 * u(rng) + (i == 11 ? 6000 : 0);
      s.steps.push_back(f);
    }
    if (i % 9 == 2) {
      s.queue_batches = 100 + static_cast<int64_t>(rng() % 50);
      s.queue_empty = 20 + static_cast<int64_t>(rng() % 40);
    }
    d.has_host = true;
  }
  return ranks;
}

// Slow-rank findings as analyze_slow_ranks leaves them before the host side: apply_host_side
// gives "host" ones their Free, turns a slow rank whose DataLoader stands out into "data", and
// leaves "compute" alone.
std::vector<analysis::SlowRankFinding> slow_findings() {
  std::vector<analysis::SlowRankFinding> f(4);
  f[0].rank = 3, f[0].cause = "host", f[0].evidence = "late";
  f[1].rank = 23, f[1].cause = "unknown", f[1].free_excess_ms = 0.5;  // position 11: data
  f[2].rank = 9, f[2].cause = "compute", f[2].evidence = "slow kernels";
  f[3].rank = 61, f[3].cause = "communication";  // position 30: no host data
  return f;
}

struct Outputs {
  std::optional<io::Table> host_ops, free_breakdown;
  io::Table rank_ops;
  std::string summary;
  std::vector<std::string> notes;
  std::vector<analysis::SlowRankFinding> findings;
};

// `park`: the drill-down and the kept tables wait in a spill file, as on the root of `cluster`.
Outputs outputs_of(const std::vector<load::RankData>& ranks, bool park = false) {
  Outputs o;
  {
    const auto spill = park ? runtime::SpillFile::create() : nullptr;
    TableSink sink(::testing::TempDir(), /*csv=*/false, nullptr, {"host_ops", "free_breakdown"});
    sink.park_kept_in(spill);
    HostOutputs h = host_outputs(ranks, sink, spill);
    EXPECT_EQ(h.rank_ops.parked(), park);
    sink.finish();
    if (const io::Table* t = sink.kept("host_ops")) o.host_ops = *t;
    if (const io::Table* t = sink.kept("free_breakdown")) o.free_breakdown = *t;
    o.rank_ops = h.rank_ops.get();
    o.summary = h.summary;
    for (const auto& n : h.notes.items()) o.notes.push_back(n.what);
  }
  o.findings = slow_findings();
  analysis::apply_host_side(o.findings, ranks);
  return o;
}

uint64_t bits(double x) {
  return std::bit_cast<uint64_t>(x);
}

void expect_same_table(const io::Table& a, const io::Table& b) {
  ASSERT_EQ(a.name, b.name);
  ASSERT_EQ(a.columns.size(), b.columns.size()) << a.name;
  ASSERT_EQ(a.rows(), b.rows()) << a.name;
  for (size_t c = 0; c < a.columns.size(); ++c) {
    const io::Column& x = a.columns[c];
    const io::Column& y = b.columns[c];
    EXPECT_EQ(x.name, y.name) << a.name;
    EXPECT_EQ(x.strings, y.strings) << a.name << "." << x.name;
    EXPECT_EQ(x.encoded, y.encoded) << a.name << "." << x.name;
    if (x.type == io::ColumnType::kString) {
      for (size_t r = 0; r < x.size(); ++r) {
        EXPECT_EQ(x.str(r), y.str(r)) << a.name << " row " << r;
      }
    }
    EXPECT_EQ(x.ints, y.ints) << a.name << "." << x.name;
    ASSERT_EQ(x.doubles.size(), y.doubles.size()) << a.name << "." << x.name;
    for (size_t r = 0; r < x.doubles.size(); ++r)
      EXPECT_EQ(bits(x.doubles[r]), bits(y.doubles[r])) << a.name << "." << x.name << " row " << r;
  }
}

void expect_same_outputs(const Outputs& a, const Outputs& b) {
  ASSERT_EQ(a.host_ops.has_value(), b.host_ops.has_value());
  ASSERT_EQ(a.free_breakdown.has_value(), b.free_breakdown.has_value());
  if (a.host_ops) expect_same_table(*a.host_ops, *b.host_ops);
  if (a.free_breakdown) expect_same_table(*a.free_breakdown, *b.free_breakdown);
  expect_same_table(a.rank_ops, b.rank_ops);
  EXPECT_EQ(a.summary, b.summary);
  EXPECT_EQ(a.notes, b.notes);
  ASSERT_EQ(a.findings.size(), b.findings.size());
  for (size_t i = 0; i < a.findings.size(); ++i) {
    const auto& x = a.findings[i];
    const auto& y = b.findings[i];
    EXPECT_EQ(x.rank, y.rank) << i;
    EXPECT_EQ(x.cause, y.cause) << i;
    EXPECT_EQ(x.evidence, y.evidence) << i;
    EXPECT_EQ(x.steps, y.steps) << i;
    EXPECT_EQ(bits(x.score), bits(y.score)) << i;
    EXPECT_EQ(bits(x.impact_ms_per_step), bits(y.impact_ms_per_step)) << i;
  }
}

// Something to compare: every table has rows and the findings fired.
void expect_findings_fire(const Outputs& o, bool job_bound) {
  ASSERT_TRUE(o.host_ops && o.free_breakdown);
  EXPECT_EQ(o.host_ops->rows(), 12u);
  EXPECT_EQ(o.free_breakdown->rows(), 39u * 4);
  EXPECT_GT(o.rank_ops.rows(), 39u * 5);
  EXPECT_NE(o.summary.find(job_bound ? "The job is host-bound" : "Host-bound rank(s) 15, 43"),
            std::string::npos)
      << o.summary;
  EXPECT_NE(o.summary.find("Data loading stalls the device"), std::string::npos) << o.summary;
  EXPECT_NE(o.summary.find("Run-time compilation"), std::string::npos) << o.summary;
  EXPECT_NE(o.summary.find("The data pipeline is the bottleneck"), std::string::npos) << o.summary;
  ASSERT_EQ(o.notes.size(), 1u);  // three ranks without a host timeline
  EXPECT_EQ(o.notes[0].rfind("3 rank(s) have no host timeline", 0), 0u) << o.notes[0];
  EXPECT_EQ(o.findings[0].cause, "host");
  EXPECT_NE(o.findings[0].evidence.find("of its Free"), std::string::npos);
  EXPECT_EQ(o.findings[1].cause, "data");
  if (!job_bound) {
    ASSERT_EQ(o.findings.size(), 6u);  // the two host-bound ranks added
    EXPECT_EQ(o.findings[4].rank, 15);
    EXPECT_EQ(o.findings[5].rank, 43);
  }
}

enum class State { kHeld, kPacked, kSpilled };

TEST(HostParked, TheParkedDrillDownAndKeptTablesAreTheHeldOnes) {
  const std::vector<load::RankData> ranks = random_ranks(false);
  const Outputs held = outputs_of(ranks);
  expect_findings_fire(held, false);
  expect_same_outputs(held, outputs_of(ranks, /*park=*/true));
}

TEST(HostParked, TheDrillDownInChunksOfAnySizeJoinsToTheWholeTable) {
  const std::vector<load::RankData> ranks = random_ranks(false);
  std::vector<host::RankSummary> summaries;
  std::deque<host::HostSummary> scratch;  // stays put as it grows
  for (const load::RankData& d : ranks)
    if (d.has_host) summaries.push_back({d.rank(), &d.host.read(scratch.emplace_back())});
  const io::Table whole = host::host_rank_ops_table(summaries, 10);
  ASSERT_GT(whole.rows(), 100u);
  for (const bool park : {false, true})
    for (const size_t chunk : {size_t{1}, size_t{7}, size_t{64}, whole.rows()}) {
      SCOPED_TRACE("park " + std::to_string(park) + ", chunk " + std::to_string(chunk));
      ParkedTable p(park ? runtime::SpillFile::create() : nullptr);
      size_t chunks = 0;
      host::host_rank_ops_chunks(host::walk_of(summaries), 10, chunk, [&](io::Table t) {
        ++chunks;
        p.append(std::move(t));
      });
      if (chunk == 1) {
        EXPECT_GT(chunks, 30u);  // whole ranks: one chunk a rank
      }
      EXPECT_EQ(p.parked(), park);
      expect_same_table(p.get(), whole);
      EXPECT_EQ(p.get().columns[1].dict, whole.columns[1].dict);  // codes in first-seen order
      EXPECT_EQ(p.get().columns[1].codes, whole.columns[1].codes);
    }
}

TEST(HostParked, ParkedSummariesGiveTheHeldOutputsBitForBit) {
  for (const bool job_bound : {false, true}) {
    const std::vector<load::RankData> held = random_ranks(job_bound);
    const Outputs want = outputs_of(held);
    expect_findings_fire(want, job_bound);
    auto spill = runtime::SpillFile::create();
    const std::vector<std::vector<State>> mixes = {
        std::vector<State>(held.size(), State::kPacked),
        std::vector<State>(held.size(), State::kSpilled),
        {State::kSpilled, State::kHeld, State::kPacked},  // repeated over the ranks
        {State::kHeld, State::kSpilled, State::kSpilled, State::kPacked, State::kHeld},
    };
    for (size_t m = 0; m < mixes.size(); ++m) {
      SCOPED_TRACE("job_bound " + std::to_string(job_bound) + ", mix " + std::to_string(m));
      std::vector<load::RankData> ranks = held;
      for (size_t i = 0; i < ranks.size(); ++i) {
        const State s = mixes[m][i % mixes[m].size()];
        if (s == State::kPacked) ranks[i].host.pack();
        if (s == State::kSpilled) ranks[i].host.spill(spill);
      }
      expect_same_outputs(want, outputs_of(ranks));
      // Reading leaves every rank where it was.
      for (size_t i = 0; i < ranks.size(); ++i) {
        const State s = mixes[m][i % mixes[m].size()];
        EXPECT_EQ(ranks[i].host.spilled(), s == State::kSpilled) << i;
        EXPECT_EQ(ranks[i].host.packed(), s == State::kPacked) << i;
      }
    }
  }
}

// The wire format carries the summary length first, so the root keeps an arriving rank's summary
// packed without reading it; unpacked, it is the summary sent.
TEST(HostParked, WireFormatKeepsTheSummaryPacked) {
  const std::vector<load::RankData> held = random_ranks(false);
  for (const bool keep : {false, true}) {
    std::vector<load::RankData> ranks;
    for (const load::RankData& d : held) {
      io::ByteWriter w;
      load::pack_rank_data(d, w);
      io::ByteReader r(w.data());
      ranks.push_back(load::unpack_rank_data(r, keep));
      EXPECT_TRUE(r.done());
      EXPECT_EQ(ranks.back().host.packed(), keep);
      EXPECT_EQ(ranks.back().has_host, d.has_host);
    }
    expect_same_outputs(outputs_of(held), outputs_of(ranks));
  }
}

// A parked summary whose bytes are damaged is an error, never a rank without host data.
TEST(HostParked, DamagedSummaryIsAnErrorNotNoHost) {
  std::vector<load::RankData> ranks = random_ranks(false);
  std::vector<char> bytes;
  ranks[4].host.packed_copy(bytes);
  ranks[4].host.adopt_packed(runtime::PageBuffer(bytes.data(), bytes.size() / 2));
  host::HostSummary scratch;
  EXPECT_THROW(ranks[4].host.read(scratch), std::runtime_error);
  EXPECT_THROW(outputs_of(ranks), std::runtime_error);
}

// The loader's fallback (cluster_loader.cpp, SpillGuard) when the spill file fills up (here a file
// size limit, as on a full disk): the rank whose append failed and every rank after it are packed
// in memory, the ranks already in the file stay there. Same outputs.
TEST(HostParked, SpillThatFillsUpFallsBackToMemory) {
  const std::vector<load::RankData> held = random_ranks(false);
  const Outputs want = outputs_of(held);
  std::vector<load::RankData> ranks = held;
  auto spill = runtime::SpillFile::create();
  std::vector<char> one;
  ranks[0].host.packed_copy(one);
  rlimit before{};
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &before), 0);
  const auto old_handler = std::signal(SIGXFSZ, SIG_IGN);  // write() fails with EFBIG instead
  rlimit limit = before;
  limit.rlim_cur = 6 * one.size();  // room for a few ranks' summaries, not for all
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &limit), 0);
  bool on = true;
  size_t in_file = 0;
  for (auto& d : ranks) {
    if (on) {
      try {
        d.host.spill(spill);
        ++in_file;
        continue;
      } catch (const std::runtime_error&) {
        on = false;
      }
    }
    d.host.pack();
  }
  setrlimit(RLIMIT_FSIZE, &before);
  std::signal(SIGXFSZ, old_handler);
  EXPECT_FALSE(on);
  EXPECT_GE(in_file, 2u);
  EXPECT_LT(in_file, ranks.size());
  for (size_t i = 0; i < ranks.size(); ++i) {
    EXPECT_EQ(ranks[i].host.spilled(), i < in_file) << i;
    EXPECT_EQ(ranks[i].host.packed(), i >= in_file) << i;
  }
  expect_same_outputs(want, outputs_of(ranks));
}

LoadedCluster load(const std::string& dir, bool spill) {
  LoadOptions opts;
  opts.input_dir = std::string(CS_TEST_DATA) + "/ascend-real/" + dir;
  opts.parse = parse_options_for_mode(Mode::kAll, {});
  opts.threads = 2;
  opts.spill_communication = spill;
  runtime::PhaseLog log(false);
  return load_cluster(test::one_process_session(), opts, log);
}

size_t park_warnings(const io::Diagnostics& d) {
  size_t n = 0;
  for (const auto& x : d.items())
    if (x.what.find("could not be parked on disk") != std::string::npos) ++n;
  return n;
}

// Under `cluster` the loader parks the real samples' host summaries (text and DB export) in its
// spill file; when the file cannot be created they stay packed in memory with one warning. The
// outputs are those of the summaries held.
TEST(HostParked, LoaderParksTheSummariesOrKeepsThemPacked) {
  for (const char* dir : {"text_level1", "db_level1"}) {
    SCOPED_TRACE(dir);
    const LoadedCluster held = load(dir, false);
    ASSERT_FALSE(held.fatal) << held.fatal_message;
    ASSERT_EQ(held.ranks.size(), 2u);
    for (const auto& d : held.ranks) {
      ASSERT_TRUE(d.has_host);
      EXPECT_FALSE(d.host.packed() || d.host.spilled());
    }
    const Outputs want = outputs_of(held.ranks);
    ASSERT_TRUE(want.host_ops && want.free_breakdown);
    EXPECT_GT(want.host_ops->rows(), 10u);
    EXPECT_EQ(want.free_breakdown->rows(), 2u);

    const LoadedCluster spilled = load(dir, true);
    ASSERT_FALSE(spilled.fatal) << spilled.fatal_message;
    EXPECT_EQ(park_warnings(spilled.diagnostics), 0u);
    for (const auto& d : spilled.ranks) {
      EXPECT_TRUE(d.has_host);
      EXPECT_TRUE(d.host.spilled());
    }
    expect_same_outputs(want, outputs_of(spilled.ranks));

    const char* old = std::getenv("TMPDIR");
    const std::string saved = old ? old : "";
    ASSERT_EQ(setenv("TMPDIR", "/nonexistent/host-parked-tmp", 1), 0);
    const LoadedCluster no_room = load(dir, true);
    if (old)
      setenv("TMPDIR", saved.c_str(), 1);
    else
      unsetenv("TMPDIR");
    ASSERT_FALSE(no_room.fatal) << no_room.fatal_message;
    EXPECT_EQ(park_warnings(no_room.diagnostics), 1u);
    EXPECT_EQ(no_room.spill, nullptr);
    for (const auto& d : no_room.ranks) {
      EXPECT_TRUE(d.has_host);
      EXPECT_TRUE(d.host.packed());
      EXPECT_FALSE(d.host.spilled());
    }
    expect_same_outputs(want, outputs_of(no_room.ranks));
  }
}

}  // namespace
}  // namespace cs::cluster
