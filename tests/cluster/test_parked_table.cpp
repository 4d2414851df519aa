// ParkedTable: a table parked in a spill file is off the heap until read back, comes back the
// same, and stays in memory when there is no spill file; TableSink parks its kept tables.
#include "cluster/parked_table.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "cluster/parked_digest.h"
#include "cluster/table_sink.h"
#include "report/cluster_page/cluster_report.h"

using cs::cluster::ParkedTable;
using cs::cluster::TableSink;

namespace {

cs::io::Table steps(int rows) {
  cs::io::Table t("step_trace");
  auto& rank = t.add_int("rank");
  auto& step = t.add_string("Step");
  auto& free = t.add_double("Free", "us");
  for (int i = 0; i < rows; ++i) {
    rank.ints.push_back(i);
    step.strings.push_back("step" + std::to_string(i % 3));
    free.doubles.push_back(i * 0.25);
  }
  return t;
}

void expect_same_steps(const cs::io::Table& a, const cs::io::Table& b) {
  EXPECT_EQ(a.name, b.name);
  ASSERT_EQ(a.columns.size(), b.columns.size());
  EXPECT_EQ(a.columns[0].ints, b.columns[0].ints);
  EXPECT_EQ(a.columns[1].strings, b.columns[1].strings);
  EXPECT_EQ(a.columns[2].doubles, b.columns[2].doubles);
  EXPECT_EQ(a.columns[2].unit, b.columns[2].unit);
}

}  // namespace

TEST(ParkedTable, ParkedOnDiskUntilReadBackThenHeld) {
  auto spill = cs::runtime::SpillFile::create();
  const uint64_t before = spill->size();
  ParkedTable p(steps(1000), spill);
  EXPECT_TRUE(p.has_table());
  EXPECT_TRUE(p.parked());
  EXPECT_GT(spill->size(), before + 1000 * 16);  // the rows are in the file
  const cs::io::Table& t = p.get();
  EXPECT_FALSE(p.parked());
  expect_same_steps(t, steps(1000));
  EXPECT_EQ(&p.get(), &t);  // read once
}

TEST(ParkedTable, WithoutASpillFileItIsHeld) {
  ParkedTable p(steps(5), nullptr);
  EXPECT_TRUE(p.has_table());
  EXPECT_FALSE(p.parked());
  expect_same_steps(p.get(), steps(5));
  const ParkedTable none;
  EXPECT_FALSE(none.has_table());
  EXPECT_EQ(none.get().rows(), 0u);
}

TEST(ParkedTable, TheSinkParksItsKeptTablesAndReadsThemBack) {
  auto spill = cs::runtime::SpillFile::create();
  TableSink sink("/nonexistent/never/written", false, nullptr, {"step_trace"});
  sink.park_kept_in(spill);
  sink.put(steps(300));
  EXPECT_GT(spill->size(), 300u * 16);  // parked as it was put
  sink.finish();
  const cs::io::Table* t = sink.kept("step_trace");
  ASSERT_NE(t, nullptr);
  expect_same_steps(*t, steps(300));
  EXPECT_TRUE(sink.diagnostics().empty());
}

TEST(ParkedTable, ChunksAppendedJoinWithOneDictionary) {
  for (const bool park : {false, true}) {
    ParkedTable p(park ? cs::runtime::SpillFile::create() : nullptr);
    for (const char* chunk : {"ab", "bc", "", "ca"}) {
      cs::io::Table t("names");
      auto& n = t.add_encoded_string("name");
      cs::io::DictionaryEncoder e(n);
      auto& i = t.add_int("i");
      for (const char* c = chunk; *c; ++c) {
        e.push(std::string(1, *c));
        i.ints.push_back(*c);
      }
      p.append(std::move(t));
    }
    EXPECT_EQ(p.parked(), park);
    const cs::io::Table& t = p.get();
    ASSERT_EQ(t.rows(), 6u);
    std::string names;
    for (size_t r = 0; r < t.rows(); ++r) names += t.columns[0].str(r);
    EXPECT_EQ(names, "abbcca");
    EXPECT_EQ(t.columns[0].dict, (std::vector<std::string>{"a", "b", "c"}));
    EXPECT_EQ(t.columns[1].ints, (std::vector<int64_t>{'a', 'b', 'b', 'c', 'c', 'a'}));
  }
}

TEST(ParkedTable, ChunksWithOtherColumnsAreRefused) {
  ParkedTable p(nullptr);
  p.append(steps(2));
  cs::io::Table other("step_trace");
  other.add_int("rank");
  EXPECT_THROW(p.append(std::move(other)), std::runtime_error);
}

namespace {

// A communication matrix of two groups: a ring of 4 ranks and a pair.
cs::io::Table ring_matrix() {
  cs::io::Table t("communication_matrix");
  auto& step = t.add_int("step");
  auto& group = t.add_string("group");
  auto& op = t.add_string("op");
  auto& src = t.add_int("src_rank");
  auto& dst = t.add_int("dst_rank");
  auto& transport = t.add_string("transport");
  auto& size = t.add_double("size_mb");
  auto& time = t.add_double("time_ms");
  auto& bw = t.add_double("bandwidth_gbps");
  const auto link = [&](const char* g, int s, int d, double ms) {
    step.ints.push_back(0);
    group.strings.push_back(g);
    op.strings.push_back(std::string("allreduce@") + g);
    src.ints.push_back(s);
    dst.ints.push_back(d);
    transport.strings.push_back("HCCS");
    size.doubles.push_back(64);
    time.doubles.push_back(ms);
    bw.doubles.push_back(64 / ms);
  };
  for (int r = 0; r < 4; ++r) link("11", r, (r + 1) % 4, 2 + r);
  link("22", 4, 5, 8);
  link("22", 5, 4, 9);
  return t;
}

}  // namespace

// The report's matrix digest waits in the spill file and comes back drawing the same page; with
// no spill file it stays in memory; no digest stays none.
TEST(ParkedMatrixDigest, ParkedDigestComesBackTheSame) {
  const cs::io::Table matrix = ring_matrix();
  cs::report::ClusterReportInput in;
  in.matrix_digest = cs::report::digest_matrix(matrix, nullptr);
  const std::string direct = cs::report::render_cluster_report_html(in);
  ASSERT_NE(direct.find("class=\"chart heat\""), std::string::npos);

  cs::cluster::ParkedMatrixDigest parked(cs::report::digest_matrix(matrix, nullptr),
                                         cs::runtime::SpillFile::create());
  EXPECT_TRUE(parked.has_digest());
  EXPECT_TRUE(parked.parked());
  in.matrix_digest = parked.get();
  EXPECT_FALSE(parked.parked());
  EXPECT_EQ(parked.get(), in.matrix_digest);  // read back once
  EXPECT_EQ(cs::report::render_cluster_report_html(in), direct);

  cs::cluster::ParkedMatrixDigest held(cs::report::digest_matrix(matrix, nullptr), nullptr);
  EXPECT_FALSE(held.parked());
  in.matrix_digest = held.get();
  EXPECT_EQ(cs::report::render_cluster_report_html(in), direct);

  const cs::cluster::ParkedMatrixDigest none(nullptr, cs::runtime::SpillFile::create());
  EXPECT_FALSE(none.has_digest());
  EXPECT_EQ(none.get(), nullptr);
}
