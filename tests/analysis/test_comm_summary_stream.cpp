// comm_rank_summary and comm_transport_summary streamed rank by rank
// (analysis/comm_summary_stream.h) against the whole-table reference built in one pass
// (tests/analysis/comm_summary_reference.h):
// the same cells in the same order for any chunk size, any amount parked, ranks held, packed or
// spilled; and the report's digest is the table's group, rank and times.

#include "analysis/comm_summary_stream.h"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstring>
#include <map>

#include "analysis/comm_summary_reference.h"
#include "analysis/synthetic_cluster.h"
#include "runtime/spill_file.h"

namespace cs::analysis {
namespace {

readers::TransportInfo transport(const char* name, double size_mb, double time_ms) {
  readers::TransportInfo t;
  t.name = readers::TransportName(name);
  t.set(readers::kTrSizeMb, io::Num::real(size_mb));
  t.set(readers::kTrTimeMs, io::Num::real(time_ms));
  return t;
}

// The synthetic job (tp and dp groups, HCCS) and what the summaries must take care of: RDMA
// links, one rank's fast enough for the newer nominal speed; SDMA (skipped); a transport with no
// time; a NaN time; Total Op Info (skipped); a p2p group that first appears on a late rank, so
// the group order is not the rank order; a rank without communication data.
std::vector<load::RankData> job() {
  testing::SyntheticOptions o;
  o.ranks = 12;
  o.tp = 4;
  o.steps = 2;
  o.segments = 3;
  std::vector<load::RankData> ranks = testing::synthetic_cluster(o);
  for (size_t i = 0; i < ranks.size(); ++i) {
    auto& steps = ranks[i].communication.edit().steps;
    if (steps.empty() || steps[0].collective.empty()) continue;  // the tests check what was made
    readers::CommOp& first = steps[0].collective.at(0);
    first.transports.push_back(transport("RDMA", 10.0 + static_cast<double>(i), 1.0));
    first.transports.push_back(transport("SDMA", 99.0, 1.0));
    first.transports.push_back(transport("PCIE", 1.0, 0.0));
    if (i == 7) first.transports.back() = transport("RDMA", 30.0, 1.0);  // 30 GB/s > 12.5 * 1.05
    if (i == 5) first.time.set(readers::kWaitTimeMs, io::Num::real(std::nan("")));
    steps[0].collective.push_back(testing::make_op("Total Op Info", 3.0, 1.0, 1.5, 0.5));
    if (i >= 9) steps[0].p2p.push_back(testing::make_op("hcom_send__3_0_1@pp9", 1.0, 0.5, 0.2, 0));
  }
  ranks[3].has_communication = false;
  return ranks;
}

// Cell for cell (doubles bit for bit, NaN included), names, units and types.
void expect_identical_table(const io::Table& a, const io::Table& b) {
  ASSERT_EQ(a.name, b.name);
  ASSERT_EQ(a.columns.size(), b.columns.size());
  ASSERT_EQ(a.rows(), b.rows()) << a.name;
  for (size_t c = 0; c < a.columns.size(); ++c) {
    const io::Column &x = a.columns[c], &y = b.columns[c];
    ASSERT_EQ(x.name, y.name);
    ASSERT_EQ(x.unit, y.unit) << x.name;
    ASSERT_EQ(x.type, y.type) << x.name;
    for (size_t r = 0; r < a.rows(); ++r) {
      if (x.type == io::ColumnType::kString) {
        ASSERT_EQ(x.str(r), y.str(r)) << x.name << " " << r;
      } else if (x.type == io::ColumnType::kInt) {
        ASSERT_EQ(x.ints[r], y.ints[r]) << x.name << " " << r;
      } else {
        ASSERT_EQ(std::memcmp(&x.doubles[r], &y.doubles[r], sizeof(double)), 0)
            << x.name << " " << r << ": " << x.doubles[r] << " vs " << y.doubles[r];
      }
    }
  }
}

using Streamed = testing::StreamedSummaries;

Streamed stream(const std::vector<load::RankData>& ranks, size_t park_bytes, size_t chunk_rows) {
  return testing::stream_comm_summaries(ranks, park_bytes, chunk_rows);
}

TEST(CommSummaryStream, SameTablesForAnyChunkAndParkSize) {
  const auto ranks = job();
  const io::Table whole_ranks = testing::reference_comm_rank_summary(ranks);
  const io::Table whole_transports = testing::reference_comm_transport_summary(ranks);
  ASSERT_GT(whole_ranks.rows(), 20u);
  // The cases the job was made for are in the whole tables: the late group is not last in rank
  // order, RDMA got the newer nominal speed, SDMA is absent, the NaN wait counted as 0.
  ASSERT_EQ(whole_ranks.columns[0].strings.back(), "pp9");
  bool rdma = false, sdma = false;
  for (size_t r = 0; r < whole_transports.rows(); ++r) {
    rdma |= whole_transports.columns[2].strings[r] == "RDMA" &&
            whole_transports.columns[6].doubles[r] == 25.0;
    sdma |= whole_transports.columns[2].strings[r] == "SDMA";
  }
  EXPECT_TRUE(rdma);
  EXPECT_FALSE(sdma);
  for (size_t park : {size_t{1}, size_t{100}, CommSummaryStream::kParkBytes})
    for (size_t chunk : {size_t{1}, size_t{7}, CommSummaryStream::kChunkRows}) {
      SCOPED_TRACE("park " + std::to_string(park) + " chunk " + std::to_string(chunk));
      const Streamed s = stream(ranks, park, chunk);
      expect_identical_table(s.ranks, whole_ranks);
      expect_identical_table(s.transports, whole_transports);
      EXPECT_LE(s.largest_chunk, chunk);
      if (chunk == 1) {
        EXPECT_EQ(s.rank_chunks, whole_ranks.rows());
      }
      // The digest: the table's group and rank columns, and each rank's three times summed over
      // its rows in the table's order (a value not finite counts 0), to the bit.
      const io::Table& gr = s.digest.group_ranks;
      ASSERT_EQ(gr.rows(), whole_ranks.rows());
      std::map<int64_t, std::array<double, 3>> sums;
      const char* times[] = {"transit_ms", "wait_ms", "sync_ms"};
      for (size_t r = 0; r < whole_ranks.rows(); ++r) {
        EXPECT_EQ(gr.find("group")->str(r), whole_ranks.columns[0].strings[r]);
        EXPECT_EQ(gr.find("rank")->ints[r], whole_ranks.columns[1].ints[r]);
        auto& sum = sums[whole_ranks.columns[1].ints[r]];
        for (size_t k = 0; k < 3; ++k) {
          const double v = whole_ranks.find(times[k])->doubles[r];
          sum[k] += std::isfinite(v) ? v : 0.0;
        }
      }
      const io::Table& rt = s.digest.rank_totals;
      ASSERT_EQ(rt.rows(), sums.size());
      size_t row = 0;
      for (const auto& [rank, sum] : sums) {
        EXPECT_EQ(rt.find("rank")->ints[row], rank);
        for (size_t k = 0; k < 3; ++k)
          EXPECT_EQ(rt.find(times[k])->doubles[row], sum[k]) << times[k];
        ++row;
      }
      // The string sizes an HDF5 stream is opened with are the whole tables' own.
      auto check = [](const io::Column& col, const io::StringColumnSize& size) {
        size_t longest = 0, bytes = 0;
        for (size_t r = 0; r < col.size(); ++r) {
          longest = std::max(longest, col.str(r).size());
          bytes += col.str(r).size();
        }
        EXPECT_EQ(size.longest, longest) << col.name;
        EXPECT_DOUBLE_EQ(size.mean, static_cast<double>(bytes) / static_cast<double>(col.size()))
            << col.name;
      };
      ASSERT_EQ(s.rank_strings.size(), 1u);
      check(whole_ranks.columns[0], s.rank_strings[0]);
      ASSERT_EQ(s.transport_strings.size(), 2u);
      check(whole_transports.columns[0], s.transport_strings[0]);
      EXPECT_EQ(s.transport_strings[1].longest, 4u);  // HCCS, RDMA, PCIE
    }
}

TEST(CommSummaryStream, RanksPackedOrSpilledGiveTheSameTables) {
  const auto held = job();
  auto parked = held;
  auto spill = runtime::SpillFile::create();
  for (size_t i = 0; i < parked.size(); ++i) {
    if (i % 2)
      parked[i].communication.spill(spill);
    else
      parked[i].communication.pack();
  }
  const Streamed a = stream(held, 64, 5), b = stream(parked, 64, 5);
  expect_identical_table(a.ranks, b.ranks);
  expect_identical_table(a.transports, b.transports);
  expect_identical_table(b.ranks, testing::reference_comm_rank_summary(held));
}

TEST(CommSummaryStream, NoCommunicationGivesNoRows) {
  std::vector<load::RankData> ranks(3);
  for (int r = 0; r < 3; ++r) ranks[static_cast<size_t>(r)].entry.rank = r;
  const Streamed s = stream(ranks, 1, 1);
  EXPECT_EQ(s.ranks.rows(), 0u);
  EXPECT_EQ(s.transports.rows(), 0u);
  EXPECT_EQ(s.rank_chunks + s.transport_chunks, 0u);
  EXPECT_EQ(s.digest.group_ranks.rows(), 0u);
  EXPECT_EQ(s.digest.rank_totals.rows(), 0u);
}

}  // namespace
}  // namespace cs::analysis
