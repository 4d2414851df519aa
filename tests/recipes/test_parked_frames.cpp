// The root parks the ranks' map results on disk as it gathers them (msprof_analyze/recipes/
// parked_frames.h) and the communication recipes merge them from there: ClusterCommunicationTime
// and ClusterCommunicationBandwidth written a rank at a time (communication_time_sum/
// time_sum_stream.h), the matrix concatenated rank by rank. The database is the one the merge of
// frames held in memory writes, byte for byte, whether every rank, some or none was parked (a
// spill file that fails keeps the rest in memory), and whichever way the table is written
// (straight into the file's pages, or through SQLite when a column holds mixed kinds).
#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "frame/frame_ops.h"
#include "msprof_analyze/recipes/communication_matrix_sum/communication_matrix_sum.h"
#include "msprof_analyze/recipes/communication_matrix_sum/matrix_sum_parked.h"
#include "msprof_analyze/recipes/communication_time_sum/communication_time_sum.h"
#include "msprof_analyze/recipes/parked_frames.h"
#include "recipes/recipe_test_util.h"

namespace fs = std::filesystem;
namespace cm = cs::recipes::communication_matrix_sum;
namespace ct = cs::recipes::communication_time_sum;
using cs::recipes::FramePark;
using cs::recipes::RankPartial;

namespace {

// The real job's two ranks mapped by `recipe`, repeated as ranks 0-5.
std::vector<RankPartial> mapped_as_six_ranks(const cs::recipes::Recipe& recipe) {
  return cs::test::map_real_db_ranks(recipe, 6);
}

using cs::test::frame_cells;

using cs::test::merged_db;

// Parks the parts' frames `store` parks; `every`: only every n-th rank (the others held).
void park(std::vector<RankPartial>& parts, FramePark& store, int every = 1) {
  for (auto& p : parts)
    if (p.rank % every == 0) store.park(0, p);
}

}  // namespace

TEST(ParkedFrames, ReadBackGivesTheFrameAndTheConcatenationsKinds) {
  ct::CommunicationTimeSum recipe;
  auto held = mapped_as_six_ranks(recipe);
  auto parts = held;
  FramePark store({&recipe});
  for (auto& p : parts) store.park(0, p);
  EXPECT_TRUE(store.problem().empty());
  for (size_t i = 0; i < parts.size(); ++i) {
    EXPECT_FALSE(parts[i].frames.contains("time"));
    // The groups are parked too, and read back as they were held.
    EXPECT_FALSE(parts[i].frames.contains("comm_groups"));
    EXPECT_EQ(frame_cells(cs::recipes::read_frame(parts[i], "comm_groups")),
              frame_cells(held[i].frames.at("comm_groups")));
    EXPECT_TRUE(cs::recipes::has_frame(parts[i], "bandwidth"));
    EXPECT_EQ(cs::recipes::frame_rows(parts[i], "time"), held[i].frames.at("time").rows());
    EXPECT_EQ(frame_cells(cs::recipes::read_frame(parts[i], "time")),
              frame_cells(held[i].frames.at("time")));
  }
  // Ranks with the same columns share one list of them (ranks 0, 2, 4 repeat one real rank);
  // each list is the held frame's.
  auto columns_of = [&](size_t i, const std::string& key) {
    for (const auto& f : parts[i].parked)
      if (f.key == key) return f.columns;
    return std::shared_ptr<const std::vector<cs::recipes::ColumnKinds>>();
  };
  for (const std::string key : {"time", "bandwidth"}) {
    ASSERT_TRUE(columns_of(0, key)) << key;
    EXPECT_EQ(columns_of(0, key).get(), columns_of(2, key).get()) << key;
    EXPECT_EQ(columns_of(1, key).get(), columns_of(5, key).get()) << key;
    for (size_t i = 0; i < parts.size(); ++i) {
      const cs::frame::Frame& f = held[i].frames.at(key);
      const auto& list = *columns_of(i, key);
      ASSERT_EQ(list.size(), f.columns.size()) << key;
      for (size_t c = 0; c < list.size(); ++c) {
        EXPECT_EQ(*list[c].name, f.columns[c].name);
        EXPECT_EQ(list[c].kinds, cs::frame::cell_kinds(f.columns[c]));
        EXPECT_EQ(list[c].force_object, f.columns[c].force_object);
      }
    }
  }
  // The kinds kept give the dtypes of the concatenation of the held frames.
  std::vector<const cs::frame::Frame*> frames;
  for (const auto& p : held) frames.push_back(&p.frames.at("bandwidth"));
  const cs::frame::Frame all = cs::frame::concat_frames(frames, cs::frame::column_union(frames));
  const auto kinds = cs::recipes::concat_columns(parts, "bandwidth");
  ASSERT_EQ(kinds.size(), all.columns.size());
  for (size_t c = 0; c < kinds.size(); ++c) {
    EXPECT_EQ(*kinds[c].name, all.columns[c].name);
    EXPECT_EQ(kinds[c].kinds, cs::frame::cell_kinds(all.columns[c])) << all.columns[c].name;
    EXPECT_EQ(cs::frame::dtype_of_kinds(kinds[c].kinds, kinds[c].force_object),
              all.columns[c].dtype());
  }
  const cs::frame::Frame taken = cs::recipes::take_frame(parts[0], "time");
  EXPECT_EQ(frame_cells(taken), frame_cells(held[0].frames.at("time")));
  EXPECT_FALSE(cs::recipes::has_frame(parts[0], "time"));
}

TEST(ParkedFrames, ParkedMergeWritesTheHeldMergesBytes) {
  std::vector<std::unique_ptr<cs::recipes::Recipe>> recipes;
  recipes.push_back(std::make_unique<ct::CommunicationTimeSum>());
  recipes.push_back(std::make_unique<cm::CommunicationMatrixSum>());
  for (const auto& recipe : recipes) {
    const fs::path dir = cs::test::temp_dir("parked-merge-" + recipe->name());
    const auto held = mapped_as_six_ranks(*recipe);
    const std::string expected = merged_db(*recipe, held, dir / "held");
    ASSERT_GT(expected.size(), 4096u);
    for (int every : {1, 2}) {  // every rank parked; every other rank (the rest held)
      auto parts = held;
      FramePark store({recipe.get()});
      park(parts, store, every);
      ASSERT_FALSE(parts[0].parked.empty());
      if (recipe->name() == "communication_matrix_sum") {
        // The matrix's own rows (src == dst) stay held beside it, the first of each (group,
        // local rank): the same rank map as the whole frame's, with no read-back.
        for (const auto& p : parts) {
          if (p.parked.empty()) continue;  // (held)
          ASSERT_TRUE(p.parked[0].has_beside());
          const cs::frame::Frame& rows = held[static_cast<size_t>(p.rank)].frames.at("matrix");
          const cs::frame::Frame kept = p.parked[0].beside_rows();
          EXPECT_GT(kept.rows(), 0u);
          EXPECT_LT(kept.rows(), rows.rows());
          EXPECT_EQ(kept.columns.size(), 3u);
          cm::RankMap from_rows, from_kept;
          cm::add_local_ranks(from_rows, rows, p.rank);
          cm::add_local_ranks(from_kept, kept, p.rank);
          ASSERT_EQ(from_kept.size(), from_rows.size());
          for (const auto& [group, ranks] : from_rows) {
            ASSERT_TRUE(from_kept.contains(group));
            EXPECT_EQ(from_kept.at(group).local_to_global, ranks.local_to_global);
          }
          EXPECT_FALSE(from_rows.empty());
        }
      } else {
        EXPECT_FALSE(parts[0].parked[0].has_beside());
      }
      const std::string got =
          merged_db(*recipe, std::move(parts), dir / ("parked" + std::to_string(every)));
      EXPECT_TRUE(got == expected) << recipe->name() << " every " << every;
    }
    fs::remove_all(dir);
  }
}

TEST(ParkedFrames, MixedKindsGoThroughSqliteWithTheSameBytes) {
  // A text in rank 3's times and a float in its counts: elapse_time an object column (TEXT,
  // numbers not stored as they are: SQLite writes the table), count float64.
  ct::CommunicationTimeSum recipe;
  auto held = mapped_as_six_ranks(recipe);
  cs::frame::find_column(held[3].frames.at("time"), "elapse_time")->cells[0] =
      cs::frame::Cell::text("n/a");
  cs::frame::find_column(held[3].frames.at("bandwidth"), "count")->cells[0] =
      cs::frame::Cell::real(2.5);
  const fs::path dir = cs::test::temp_dir("parked-merge-mixed");
  const std::string expected = merged_db(recipe, held, dir / "held");
  auto parts = held;
  FramePark store({&recipe});
  park(parts, store);
  const std::string got = merged_db(recipe, std::move(parts), dir / "parked");
  EXPECT_TRUE(got == expected);
  EXPECT_NE(cs::test::dump_sqlite(dir / "parked" / "cluster_analysis.db").find("n/a"),
            std::string::npos);
  fs::remove_all(dir);
}

TEST(ParkedFrames, ASpillFileThatCannotBeCreatedKeepsTheFramesHeld) {
  ct::CommunicationTimeSum recipe;
  auto parts = mapped_as_six_ranks(recipe);
  FramePark store({&recipe}, "/nonexistent-clusterscope-dir");
  EXPECT_NE(store.problem().find("/nonexistent-clusterscope-dir"), std::string::npos)
      << store.problem();
  for (auto& p : parts) store.park(0, p);
  for (const auto& p : parts) {
    EXPECT_TRUE(p.parked.empty());
    EXPECT_TRUE(p.frames.contains("time"));
  }
}

// The whole run: `cluster -m all` writes the same cluster_analysis.db with the ranks parked (the
// default), held (CS_RECIPE_PARK=off), and when the spill file cannot be created (TMPDIR
// missing), which one warning says.
TEST(RecipePark, ParkedHeldAndFailedSpillRunsWriteTheSameDatabase) {
  const fs::path job = cs::test::temp_dir("recipe-park-job");
  for (int r = 0; r < 4; ++r) cs::test::copy_real_db_rank(job, r);
  const fs::path out = cs::test::temp_dir("recipe-park");
  auto run = [&](const std::string& env, const std::string& name) {
    const fs::path o = out / name;
    const int rc =
        cs::test::run_command(env + " " + CS_BINARY + " cluster -d " + job.string() + " -o " +
                                  o.string() + " -m communication_time_sum --threads 2",
                              o.string() + ".log");
    EXPECT_EQ(rc, 0) << cs::test::read_file(o.string() + ".log");
    return cs::test::read_file(o / "cluster_analysis_output" / "cluster_analysis.db");
  };
  const std::string parked = run("", "parked");
  ASSERT_GT(parked.size(), 4096u);
  EXPECT_TRUE(run("CS_RECIPE_PARK=off", "held") == parked);
  EXPECT_TRUE(run("TMPDIR=/nonexistent-clusterscope-dir", "failed") == parked);
  const std::string log = cs::test::read_file(out / "failed.log");
  const std::string warning = "could not be parked on disk";
  const size_t first = log.find(warning);
  EXPECT_NE(first, std::string::npos) << log;
  EXPECT_EQ(log.find(warning, first + 1), std::string::npos) << log;
  EXPECT_EQ(cs::test::read_file(out / "parked.log").find(warning), std::string::npos);
  fs::remove_all(out);
  fs::remove_all(job);
}
