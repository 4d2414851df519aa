#include "msprof_analyze/documents/cluster_communication.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>

#include "documents/msprof_golden.h"
#include "msprof_analyze/documents/comm_batches.h"
#include "runtime/spill_file.h"

namespace cs::documents {
namespace {

std::string render(const std::vector<load::RankData>& ranks, const io::JsonStyle& style,
                   int threads = 1) {
  io::Diagnostics diag;
  const documents::CommGroups groups = documents::build_comm_groups(ranks, {}, diag);
  std::string out;
  io::JsonWriter w(&out, style);
  documents::write_cluster_communication(w, ranks, groups, threads);
  return out;
}

TEST(ClusterCommunication, GoldenFiles) {
  for (const char* c : test::kCases) {
    const std::string got = render(test::load_case(c), io::JsonStyle::python());
    const std::string want = test::expected(c, "cluster_communication.json");
    EXPECT_EQ(got, want) << c << ": " << test::first_diff(got, want);
  }
}

// The pipeline writes the document with the run's threads (cluster/cluster_outputs.cpp): at 2
// and 4 threads the group tuples are rendered apart on other threads (the parallel branch, which
// needs the compact style clusterscope writes), and the bytes equal those of one thread, both to
// a string and to a file.
TEST(ClusterCommunication, SameOutputForAnyThreadCount) {
  for (const char* c : {"stages8", "tp2pp2"}) {
    const auto ranks = test::load_case(c);
    io::Diagnostics diag;
    const documents::CommGroups groups = documents::build_comm_groups(ranks, {}, diag);
    // Enough group tuples that every thread renders some.
    ASSERT_GE(documents::index_communication(ranks, groups).groups.size(), 4u) << c;
    const std::string want = render(ranks, io::JsonStyle::python(), 1);
    EXPECT_EQ(want, test::expected(c, "cluster_communication.json")) << c;
    for (int threads : {2, 4}) {
      ASSERT_TRUE(documents::renders_groups_in_parallel(io::JsonStyle::python(), threads));
      const std::string got = render(ranks, io::JsonStyle::python(), threads);
      EXPECT_EQ(got, want) << c << " threads=" << threads << ": " << test::first_diff(got, want);
      const std::string path = test::temp_path("cluster_communication_threads.json");
      ASSERT_TRUE(documents::write_cluster_communication_json(path, ranks, groups, diag,
                                                              io::JsonStyle::python(), threads));
      EXPECT_EQ(test::slurp(path), want) << c << " threads=" << threads;
    }
  }
  // An indented document is always written in place (a group rendered apart would lose its
  // indentation).
  EXPECT_FALSE(documents::renders_groups_in_parallel(io::JsonStyle::indented(4), 4));
  EXPECT_FALSE(documents::renders_groups_in_parallel(io::JsonStyle::python(), 1));
}

// Large group tuples are written in place by the writing thread, the others rendered apart ahead
// of it (write_comm_groups' apart_max_reports): whichever tuples go which way, on any thread
// count, the bytes are the golden document's.
TEST(ClusterCommunication, LargeTuplesWrittenInPlaceGiveTheSameBytes) {
  int split = 0;  // cases whose tuples differ in size, so that `smallest` splits them
  for (const char* c : test::kCases) {
    const auto ranks = test::load_case(c);
    io::Diagnostics diag;
    const CommGroups groups = build_comm_groups(ranks, {}, diag);
    const CommIndex index = index_communication(ranks, groups);
    size_t smallest = SIZE_MAX, largest = 0;
    for (const CommGroupEntry& g : index.groups) {
      smallest = std::min(smallest, comm_group_reports(g));
      largest = std::max(largest, comm_group_reports(g));
    }
    split += smallest < largest;
    const std::string want = test::expected(c, "cluster_communication.json");
    for (const size_t limit : {size_t{0}, smallest, largest}) {
      for (const int threads : {1, 2, 4}) {
        std::string got;
        {
          io::JsonWriter w(&got, io::JsonStyle::python());
          w.begin_object();
          write_comm_groups(w, index, threads, limit);
          w.end_object();
        }
        EXPECT_EQ(got, want) << c << " limit " << limit << " threads " << threads << ": "
                             << test::first_diff(got, want);
      }
    }
  }
  EXPECT_GT(split, 0) << "no case has group tuples of different sizes";
}

// Batches of group tuples (comm_batches.h) rebuild index_communication's index piece by piece:
// the same tuples, steps, ops and ranks in the same order, the ops equal, whatever the batch size
// and thread count, and whether the ranks' ops are held, packed or spilled; the document written
// batch by batch is the golden one.
TEST(ClusterCommunication, BatchesOfTuplesMatchTheWholeIndex) {
  auto spill = runtime::SpillFile::create();
  for (const char* c : test::kCases) {
    const auto ranks = test::load_case(c);
    io::Diagnostics diag;
    const CommGroups groups = build_comm_groups(ranks, {}, diag);
    const CommIndex whole = index_communication(ranks, groups);
    auto stored = test::load_case(c);
    for (size_t i = 0; i < stored.size(); ++i)
      i % 2 ? stored[i].communication.spill(spill) : stored[i].communication.pack();
    const std::vector<load::RankData>* sets[] = {&ranks, &stored};
    for (const auto* rs : sets) {
      for (size_t batch_ops : {size_t{1}, size_t{7}, CommBatches::kBatchOps}) {
        for (int threads : {1, 3}) {
          const CommBatches batches(*rs, groups, threads, batch_ops);
          ASSERT_EQ(batches.tuples(), whole.groups.size()) << c;
          if (batch_ops == 1) {
            EXPECT_EQ(batches.size(), batches.tuples()) << c;
          }
          size_t g = 0;
          for (size_t b = 0; b < batches.size(); ++b) {
            const CommBatch batch = batches.load(b, threads);
            for (const CommGroupEntry& ge : batch.index.groups) {
              ASSERT_LT(g, whole.groups.size()) << c;
              const CommGroupEntry& want = whole.groups[g++];
              ASSERT_EQ(ge.tuple_key, want.tuple_key) << c;
              ASSERT_EQ(ge.steps.size(), want.steps.size()) << c << " " << ge.tuple_key;
              for (size_t s = 0; s < ge.steps.size(); ++s) {
                ASSERT_EQ(ge.steps[s].step, want.steps[s].step);
                ASSERT_EQ(ge.steps[s].ops.size(), want.steps[s].ops.size());
                for (size_t o = 0; o < ge.steps[s].ops.size(); ++o) {
                  const CommOpEntry& x = ge.steps[s].ops[o];
                  const CommOpEntry& y = want.steps[s].ops[o];
                  EXPECT_EQ(x.key, y.key);
                  EXPECT_EQ(x.p2p, y.p2p);
                  ASSERT_EQ(x.ranks.size(), y.ranks.size()) << x.key;
                  for (size_t r = 0; r < x.ranks.size(); ++r) {
                    EXPECT_EQ(x.ranks[r].rank, y.ranks[r].rank);
                    EXPECT_EQ(x.ranks[r].op->name, y.ranks[r].op->name);
                    EXPECT_EQ(x.ranks[r].op->time.v, y.ranks[r].op->time.v);
                    EXPECT_EQ(x.ranks[r].op->buckets.size(), y.ranks[r].op->buckets.size());
                  }
                }
              }
            }
          }
          EXPECT_EQ(g, whole.groups.size()) << c;
          // The tables' callback: every batch once, in order, one at a time, after its batch is
          // written or beside it on a thread of its own; the document is the same either way.
          for (const bool beside : {false, true}) {
            std::string out;
            io::JsonWriter w(&out, io::JsonStyle::python());
            std::vector<std::string> seen;
            std::atomic<int> in_flight{0};
            int most_at_once = 0;
            bool on_caller = false, elsewhere = false;
            const std::thread::id caller = std::this_thread::get_id();
            write_cluster_communication(
                w, batches, threads,
                [&](const CommIndex& index) {
                  most_at_once = std::max(most_at_once, ++in_flight);
                  (std::this_thread::get_id() == caller ? on_caller : elsewhere) = true;
                  for (const CommGroupEntry& ge : index.groups) seen.push_back(ge.tuple_key);
                  std::this_thread::sleep_for(std::chrono::microseconds(200));  // overlap shows
                  --in_flight;
                },
                beside);
            EXPECT_EQ(most_at_once, 1) << c;
            EXPECT_EQ(on_caller, !beside) << c;
            EXPECT_EQ(elsewhere, beside) << c;
            ASSERT_EQ(seen.size(), whole.groups.size()) << c;
            for (size_t i = 0; i < seen.size(); ++i) EXPECT_EQ(seen[i], whole.groups[i].tuple_key);
            const std::string want = test::expected(c, "cluster_communication.json");
            EXPECT_EQ(out, want) << c << " batch_ops=" << batch_ops << " beside=" << beside << ": "
                                 << test::first_diff(out, want);
          }
        }
      }
    }
  }
}

TEST(ClusterCommunication, RatioRulesOfMsprof) {
  EXPECT_TRUE(documents::msprof_ratio(io::Num::real(1), io::Num::real(0)).is_int);
  EXPECT_EQ(documents::msprof_ratio(io::Num::real(1), io::Num::real(3)).v, 0.3333);
  EXPECT_FALSE(documents::msprof_ratio(io::Num::integer(0), io::Num::real(2)).is_int);
  EXPECT_EQ(documents::msprof_ratio(io::Num::real(2.00005), io::Num::real(1)).v,
            io::py_round(2.00005, 4));
}

// The real (older) sample, split into per-rank communication.json files by split_sample.py: our
// output, written with JsonStyle::msprof() (the sample's separators), equals the sample once the
// Total Op Info@<group> entry (which that older version did not write) is left out.
TEST(ClusterCommunication, RealSampleRoundTrip) {
  const std::string sample =
      test::slurp(std::string(CS_TEST_DATA) + "/ascend/cluster_communication.json");
  ASSERT_FALSE(sample.empty());
  std::string got = render(test::load_case("sample_split"), io::JsonStyle::msprof());
  const size_t t = got.find(",\"Total Op Info@6297232067196334501\": {\"0\": ");
  ASSERT_NE(t, std::string::npos) << got.substr(0, 200);
  EXPECT_EQ(got.compare(t + 1, 15, "\"Total Op Info@"), 0);
  got = got.substr(0, t) + "}}}";
  EXPECT_EQ(got, sample) << test::first_diff(got, sample);
}

TEST(ClusterCommunication, NoOpsNoFile) {
  std::vector<load::RankData> ranks(1);
  ranks[0].entry.rank = 0;
  io::Diagnostics diag;
  const documents::CommGroups groups = documents::build_comm_groups(ranks, {}, diag);
  const std::string path = test::temp_path("empty_cluster_communication.json");
  std::remove(path.c_str());
  EXPECT_TRUE(documents::write_cluster_communication_json(path, ranks, groups, diag));
  EXPECT_FALSE(std::filesystem::exists(path));
}

TEST(ClusterCommunication, FileEqualsStringAndDuplicateRankReportKeepsFirst) {
  auto ranks = test::load_case("tp2pp2");
  io::Diagnostics diag;
  const documents::CommGroups groups = documents::build_comm_groups(ranks, {}, diag);
  const std::string path = test::temp_path("cluster_communication.json");
  ASSERT_TRUE(documents::write_cluster_communication_json(path, ranks, groups, diag));
  EXPECT_EQ(test::slurp(path), test::expected("tp2pp2", "cluster_communication.json"));
  // A second step block with the same name repeats ops: setdefault keeps the first report.
  ranks[0].communication.edit().steps.push_back(ranks[0].communication.edit().steps[0]);
  ranks[0].communication.edit().steps.back().collective[0].time.set(readers::kElapseTimeMs,
                                                                    io::Num::real(1e9));
  const documents::CommIndex index = documents::index_communication(ranks, groups);
  const documents::CommOpEntry& op = index.groups[0].steps[0].ops[0];
  EXPECT_NE(op.ranks[0].op->time.get(readers::kElapseTimeMs), 1e9);
  EXPECT_EQ(op.ranks.size(), 2u);  // ranks 0 and 1 of the tp group, once each
}

}  // namespace
}  // namespace cs::documents
