// The step trace's compact form (one flat array of cells, strings pooled) gives the rows the
// row-of-cells form gave before it: the CSV and every cell handed to cluster_analysis.db
// (kind, string, number) are compared with what the previous implementation wrote for the same
// generated input (tests/data/step_trace_compact/*, written by main at 9024e31): string steps
// that need quoting, an empty step, None steps (whole-run rows), NaN cells, infinities, columns
// in another order or missing, a rank without a file, ranks in no stage, a rank outside
// world_size, stage rows; with and without the DP/PP/TP index columns.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "documents/msprof_golden.h"
#include "io/py_format.h"
#include "msprof_analyze/documents/cluster_step_trace.h"

namespace cs::documents {
namespace {

const std::string kGolden = std::string(CS_TEST_DATA) + "/step_trace_compact/";
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

const std::vector<std::string> kAll = {
    "Computing",  "Communication(Not Overlapped)",
    "Overlapped", "Communication",
    "Free",       "Stage",
    "Bubble",     "Communication(Not Overlapped and Exclude Receive)",
    "Preparing"};

// Ranks 0..13 and 17 of a generated job, distributed_args (on rank 1) for `world` ranks when not
// 0: tp 2, pp 2, dp world / 4 (16: rank 17 is outside world_size; 12: fewer than the ranks with a
// file, so no index columns); rank 3 has no file, rank 12 no row.
std::vector<load::RankData> generated_ranks(int world) {
  std::vector<load::RankData> ranks;
  for (int r : {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 17}) {
    load::RankData rd;
    rd.entry.rank = r;
    if (world > 0 && r == 1) {
      rd.has_metadata = true;
      rd.metadata.has_distributed_args = true;
      rd.metadata.distributed_args =
          readers::DistributedArgs::Map{{"world_size", world},
                                        {"tensor_model_parallel_size", 2},
                                        {"pipeline_model_parallel_size", 2},
                                        {"data_parallel_size", world / 4}};
    }
    if (r == 3) {
      ranks.push_back(std::move(rd));
      continue;
    }
    rd.has_step_trace = true;
    std::vector<std::string> cols = kAll;
    if (r == 9) cols = {"Free", "Computing", "Stage", "Overlapped"};  // another order, fewer
    rd.step_trace.edit().columns = cols;
    auto value = [&](int step, size_t c) {
      const double v = 1000.0 * r + 10.0 * step + static_cast<double>(c) + 0.25 * (r % 3);
      if ((r + step + static_cast<int>(c)) % 7 == 0) return kNaN;  // N/A in the file: int 0
      if (r == 4 && c == 1) return step == 1 ? kInf : -kInf;
      if (r == 5 && c == 2) return 1e-5;                  // repr in scientific notation
      if (r == 6 && c == 2) return 1e16;                  // likewise
      if (r % 4 == 0 && c == 4) return 0.0;               // a real 0.0 beside NaN's int 0
      if (r == 8 && c == 0) return 7000.0 + 10.0 * step;  // equal to rank 7's: first kept
      return v;
    };
    const int steps = r == 12 ? 0 : 2;
    for (int s = 1; s <= steps; ++s) {
      readers::StepTraceRow row;
      row.step = std::to_string(s);
      if (r == 2 && s == 2) row.step = "a,b";
      if (r == 6 && s == 1) row.step = "";
      if (r == 7 && s == 2) row.step = "q\"x";
      if (r == 5) row.no_step = true;
      for (size_t c = 0; c < cols.size(); ++c) row.values.push_back(value(s, c));
      rd.step_trace.edit().rows.push_back(std::move(row));
    }
    ranks.push_back(std::move(rd));
  }
  return ranks;
}

std::vector<PyIntSet> generated_stages() {
  return {PyIntSet::from_list({0, 1, 2, 3}), PyIntSet::from_list({4, 5, 6, 7})};
}

std::string num_text(io::Num n) {
  std::string s = n.is_int ? "I:" : "R:";
  io::append_py_num(s, n);
  return s;
}

// Every cell as cluster_analysis.db's writer reads it, a row a line, then the warnings.
std::string dump(const ClusterStepTrace& t, const io::Diagnostics& diag) {
  std::string out;
  for (const std::string& h : t.header) out += h + "|";
  out += "\n";
  for (size_t r = 0; r < t.row_count(); ++r) {
    const auto row = t.row(r);
    for (size_t c = 0; c < row.size(); ++c) {
      const StepCell cell = row[c];
      if (cell.kind == StepCell::kNull)
        out += "N";
      else if (cell.kind == StepCell::kString)
        out += "S:" + std::string(cell.s);
      else
        out += num_text(cell.n);
      out += "|";
    }
    out += "\n";
  }
  for (const auto& d : diag.items()) out += "W:" + d.what + " / " + d.hint + "\n";
  return out;
}

struct Built {
  std::string csv, cells;
};

Built build(int world, bool filtered) {
  io::Diagnostics diag;
  const ClusterStepTrace t =
      build_cluster_step_trace_staged(generated_ranks(world), generated_stages(), diag, filtered);
  return {format_cluster_step_trace(t), dump(t, diag)};
}

void check(const std::string& name, const Built& b) {
  const std::string csv = test::slurp(kGolden + name + ".csv");
  const std::string cells = test::slurp(kGolden + name + ".cells");
  ASSERT_FALSE(csv.empty()) << kGolden << name;
  EXPECT_EQ(b.csv, csv) << name << ": " << test::first_diff(b.csv, csv);
  EXPECT_EQ(b.cells, cells) << name << ": " << test::first_diff(b.cells, cells);
}

TEST(ClusterStepTraceCompact, SameRowsAsTheRowOfCellsForm) {
  check("with_index", build(16, false));
  check("with_index_filtered", build(16, true));
  check("world_too_small", build(12, false));
  check("no_index", build(0, false));
}

// The file is streamed a block of lines at a time: the same bytes as the text built whole, for a
// trace of several blocks (about 200 KB).
TEST(ClusterStepTraceCompact, StreamedFileIsTheFormattedText) {
  std::vector<load::RankData> ranks;
  for (int r = 0; r < 2000; ++r) {
    load::RankData rd;
    rd.entry.rank = r;
    rd.has_step_trace = true;
    rd.step_trace.edit().columns = kAll;
    for (int s = 1; s <= 2; ++s) {
      readers::StepTraceRow row;
      row.step = std::to_string(s);
      for (size_t c = 0; c < kAll.size(); ++c) row.values.push_back(r * 0.1 + s + c / 3.0);
      rd.step_trace.edit().rows.push_back(std::move(row));
    }
    ranks.push_back(std::move(rd));
  }
  io::Diagnostics diag;
  const ClusterStepTrace t = build_cluster_step_trace_staged(ranks, {}, diag);
  ASSERT_EQ(t.row_count(), 4000u);
  const std::string text = format_cluster_step_trace(t);
  ASSERT_GT(text.size(), 3u * 64 * 1024);
  const std::string path = test::temp_path("streamed_step_trace.csv");
  ASSERT_TRUE(write_cluster_step_trace_csv(path, t, diag));
  EXPECT_EQ(test::slurp(path), text);
  std::remove(path.c_str());
}

// Rows added cell by cell or whole read back as they went in; a copy is equal and keeps its
// strings; a row of another width is refused.
TEST(ClusterStepTraceCompact, CellsReadBackAsAdded) {
  ClusterStepTrace t;
  t.add_row({StepCell::null(), StepCell::str("rank"), StepCell::num(io::Num::integer(3)),
             StepCell::num(io::Num::real(kNaN))});
  t.add_row({StepCell::str(""), StepCell::str("stage"), StepCell::str("(0, 1)"),
             StepCell::num(io::Num::real(-0.0))});
  ASSERT_EQ(t.width(), 4u);
  ASSERT_EQ(t.row_count(), 2u);
  EXPECT_EQ(t.cell(0, 0).kind, StepCell::kNull);
  EXPECT_EQ(t.cell(0, 2).n.is_int, true);
  EXPECT_EQ(t.cell(0, 2).n.v, 3.0);
  EXPECT_TRUE(std::isnan(t.cell(0, 3).n.v));
  EXPECT_EQ(t.cell(1, 0).kind, StepCell::kString);
  EXPECT_EQ(t.cell(1, 0).s, "");
  EXPECT_EQ(t.row(1)[2].s, "(0, 1)");
  EXPECT_TRUE(std::signbit(t.cell(1, 3).n.v));
  t.header = {"Step", "Type", "Index", "Computing"};
  EXPECT_EQ(format_cluster_step_trace(t),
            "Step,Type,Index,Computing\r\n,rank,3,nan\r\n,stage,\"(0, 1)\",-0.0\r\n");
  ClusterStepTrace copy;
  {
    const ClusterStepTrace original = t;
    copy = original;
  }
  EXPECT_TRUE(copy == t);
  EXPECT_EQ(copy.cell(1, 1).s, "stage");
  EXPECT_THROW(t.add_row({StepCell::str("1")}), std::invalid_argument);
}

}  // namespace
}  // namespace cs::documents
