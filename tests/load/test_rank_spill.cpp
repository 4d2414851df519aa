// load/rank_spill.h: a parsed rank's parts go to the spill file and read back the same; when the
// file cannot be created they are packed in memory instead and the reason is kept once.
#include "load/rank_spill.h"

#include <gtest/gtest.h>

#include "load/rank_data_codec.h"

#include <cstdlib>
#include <optional>
#include <string>

namespace cs::load {
namespace {

RankData sample_rank() {
  RankData d;
  d.entry.rank = 3;
  d.has_communication = d.has_step_trace = true;
  readers::CommStep step;
  step.step = "step1";
  readers::CommOp op;
  op.name = "hcom_allReduce__844_2_1@1368";
  op.time.set(readers::kElapseTimeMs, io::Num::real(12.5));
  step.collective.push_back(op);
  d.communication.edit().steps.push_back(step);
  d.step_trace.edit().columns = {"Computing", "Free"};
  d.step_trace.edit().rows.push_back({"1", {80.5, 2.25}});
  return d;
}

// TMPDIR set for the scope of one test, put back after.
class TmpDir {
 public:
  explicit TmpDir(const char* dir) {
    if (const char* old = std::getenv("TMPDIR")) old_ = old;
    ::setenv("TMPDIR", dir, 1);
  }
  ~TmpDir() {
    if (old_)
      ::setenv("TMPDIR", old_->c_str(), 1);
    else
      ::unsetenv("TMPDIR");
  }

 private:
  std::optional<std::string> old_;
};

void expect_sample(const RankData& d) {
  readers::CommunicationFile comm;
  const readers::CommunicationFile& c = d.communication.read(comm);
  ASSERT_EQ(c.steps.size(), 1u);
  ASSERT_EQ(c.steps[0].collective.size(), 1u);
  EXPECT_EQ(c.steps[0].collective[0].name, "hcom_allReduce__844_2_1@1368");
  readers::StepTraceFile st;
  const readers::StepTraceFile& s = d.step_trace.read(st);
  ASSERT_EQ(s.rows.size(), 1u);
  EXPECT_EQ(s.rows[0].values[1], 2.25);
}

}  // namespace

TEST(RankSpill, PartsGoToTheFileAndReadBackTheSame) {
  RankSpill spill;
  spill.open();
  ASSERT_TRUE(spill.on());
  RankData d = sample_rank();
  spill.park(d);
  EXPECT_TRUE(d.communication.spilled());
  EXPECT_TRUE(d.step_trace.spilled());
  EXPECT_GT(spill.file()->size(), 0u);
  EXPECT_EQ(spill.problem(), "");
  expect_sample(d);
}

TEST(RankSpill, NoFileMeansPackedInMemoryAndOneReason) {
  TmpDir missing("/nonexistent/clusterscope-rank-spill");
  RankSpill spill;
  spill.open();
  EXPECT_FALSE(spill.on());
  EXPECT_NE(spill.problem().find("/nonexistent/clusterscope-rank-spill"), std::string::npos);
  RankData a = sample_rank(), b = sample_rank();
  spill.park(a);
  spill.park(b);
  EXPECT_TRUE(a.communication.packed());
  EXPECT_FALSE(a.communication.spilled());
  EXPECT_TRUE(b.step_trace.packed());
  expect_sample(a);
  expect_sample(b);
}

// A rank arriving from another process (its wire bytes): each part goes from the bytes straight
// into the file, and reads back as it was sent; with no file, packed in memory as before.
TEST(RankSpill, ArrivingRankPartsGoFromTheirBytesStraightToTheFile) {
  io::ByteWriter w;
  pack_rank_data(sample_rank(), w);
  RankSpill spill;
  spill.open();
  ASSERT_TRUE(spill.on());
  io::ByteReader r(w.data());
  RankData d = unpack_rank_data(r, true, &spill);
  EXPECT_TRUE(d.communication.spilled());
  EXPECT_TRUE(d.matrix.spilled());
  EXPECT_TRUE(d.operators.spilled());
  EXPECT_TRUE(d.host.spilled());
  EXPECT_TRUE(d.step_trace.spilled());
  EXPECT_EQ(d.rank(), 3);
  expect_sample(d);

  TmpDir missing("/nonexistent/clusterscope-rank-spill");
  RankSpill none;
  none.open();
  io::ByteReader again(w.data());
  RankData p = unpack_rank_data(again, true, &none);
  EXPECT_TRUE(p.communication.packed());
  EXPECT_TRUE(p.step_trace.packed());
  expect_sample(p);
}

}  // namespace cs::load
