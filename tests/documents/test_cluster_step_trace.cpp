#include "msprof_analyze/documents/cluster_step_trace.h"

#include <gtest/gtest.h>

#include "documents/msprof_golden.h"

namespace cs::documents {
namespace {

std::string render(const std::string& c) {
  const auto ranks = test::load_case(c);
  io::Diagnostics diag;
  const documents::CommGroups groups = documents::build_comm_groups(ranks, {}, diag);
  return documents::format_cluster_step_trace(
      documents::build_cluster_step_trace(ranks, groups, diag));
}

TEST(ClusterStepTrace, GoldenFiles) {
  for (const char* c : test::kCases) {
    const std::string got = render(c);
    const std::string want = test::expected(c, "cluster_step_trace_time.csv");
    EXPECT_EQ(got, want) << c << ": " << test::first_diff(got, want);
  }
}

TEST(ClusterStepTrace, MegatronIndexes) {
  std::map<std::string, int64_t> args{{"world_size", 8},
                                      {"tensor_model_parallel_size", 2},
                                      {"pipeline_model_parallel_size", 2},
                                      {"data_parallel_size", 2}};
  auto map = documents::megatron_index_map(args);
  ASSERT_TRUE(map);
  for (int r = 0; r < 8; ++r) {
    ASSERT_TRUE((*map)[r]);
    EXPECT_EQ((*(*map)[r])[0], r / 2 % 2) << r;  // dp
    EXPECT_EQ((*(*map)[r])[1], r / 4) << r;      // pp
    EXPECT_EQ((*(*map)[r])[2], r % 2) << r;      // tp
  }
  std::string why;
  args["world_size"] = 6;
  EXPECT_FALSE(documents::megatron_index_map(args, &why));
  EXPECT_NE(why.find("world_size"), std::string::npos);
  args["world_size"] = 8;
  args["context_parallel_size"] = 2;  // msprof-analyze's partition fails (IndexError) with cp > 1
  EXPECT_FALSE(documents::megatron_index_map(args, &why));
}

TEST(ClusterStepTrace, StagesFromPpGroups) {
  const auto ranks = test::load_case("stages8");
  io::Diagnostics diag;
  const auto stages = documents::infer_stages(documents::build_comm_groups(ranks, {}, diag));
  ASSERT_EQ(stages.size(), 2u);
  EXPECT_EQ(stages[0].tuple_str(), "(0, 1, 2, 3)");
  EXPECT_EQ(stages[1].tuple_str(), "(4, 5, 6, 7)");
  // Without metadata there is no pg_name, so no stage.
  EXPECT_TRUE(
      documents::infer_stages(documents::build_comm_groups(test::load_case("set_order"), {}, diag))
          .empty());
}

TEST(ClusterStepTrace, CsvQuoting) {
  std::string s;
  documents::append_csv_field(s, "(0, 1)");
  documents::append_csv_field(s, "a\"b");
  documents::append_csv_field(s, "plain");
  EXPECT_EQ(s, "\"(0, 1)\"\"a\"\"b\"plain");
}

// The real sample (older msprof-analyze, stage = the p2p group (0..7)): its rank rows, rebuilt
// from per-rank rows with that header, match byte for byte apart from the line ends.
TEST(ClusterStepTrace, RealSampleRankRows) {
  std::string sample =
      test::slurp(std::string(CS_TEST_DATA) + "/ascend/cluster_step_trace_time.csv");
  ASSERT_FALSE(sample.empty());
  std::vector<load::RankData> ranks;
  size_t pos = sample.find('\n') + 1;
  const std::string header = sample.substr(0, pos - 1);
  std::string rank_rows;
  while (pos < sample.size()) {
    size_t end = sample.find('\n', pos);
    std::string line = sample.substr(pos, end - pos);
    pos = end + 1;
    if (line.find(",rank,") == std::string::npos) continue;
    rank_rows += line + "\r\n";
    // ",rank,3,v..." -> per-rank csv "Device_id,Step,<cols>\n3,,v..."
    size_t c2 = line.find(',', 6);
    const int rank = std::stoi(line.substr(6, c2 - 6));
    std::string csv = "Device_id,Step," + header.substr(std::string("Step,Type,Index,").size()) +
                      "\n" + std::to_string(rank) + "," + line.substr(c2) + "\n";
    load::RankData rd;
    rd.entry.rank = rank;
    io::Diagnostics diag;
    rd.has_step_trace = readers::parse_step_trace_csv(csv, "sample", rd.step_trace.edit(), diag);
    ASSERT_TRUE(rd.has_step_trace);
    ranks.push_back(std::move(rd));
  }
  ASSERT_EQ(ranks.size(), 8u);
  io::Diagnostics diag;
  const std::string got =
      documents::format_cluster_step_trace(documents::build_cluster_step_trace(ranks, {}, diag));
  EXPECT_EQ(got, header + "\r\n" + rank_rows);
}

// Finding 6 of issue 17: one rank's extra column (in the middle) or doubled BOM must not shift
// the other ranks' values. Columns are matched by name; the unknown one is left out and said
// once; a rank without Preparing gets 0 there, said once.
TEST(ClusterStepTrace, ColumnsMatchedByName) {
  const std::string std_header =
      "Device_id,Step,Computing,Communication(Not Overlapped),Overlapped,Communication,Free,"
      "Stage,Bubble,Communication(Not Overlapped and Exclude Receive),Preparing\n";
  const std::vector<std::string> texts = {
      // rank 0: an unknown column before Free
      "Device_id,Step,Computing,Communication(Not Overlapped),Overlapped,Communication,Extra,"
      "Free,Stage,Bubble,Communication(Not Overlapped and Exclude Receive),Preparing\n"
      "0,1,10,2,1,3,999,4,16,0,2,5\n",
      // rank 1: a second BOM in front of the header (the reader drops only the first)
      "\xEF\xBB\xBF\xEF\xBB\xBF" + std_header + "1,1,11,2,1,3,5,17,0,2,6\n",
      // rank 2: the standard header
      std_header + "2,1,12,2,1,3,6,18,0,2,7\n",
      // rank 3: an older file without Preparing, columns in another order
      "Step,Free,Computing,Communication(Not Overlapped),Overlapped,Communication,Stage,Bubble,"
      "Communication(Not Overlapped and Exclude Receive)\n1,7,13,2,1,3,19,0,2\n"};
  std::vector<load::RankData> ranks;
  for (size_t r = 0; r < texts.size(); ++r) {
    load::RankData rd;
    rd.entry.rank = static_cast<int>(r);
    io::Diagnostics d;
    rd.has_step_trace = readers::parse_step_trace_csv(texts[r], "r.csv", rd.step_trace.edit(), d);
    ASSERT_TRUE(rd.has_step_trace) << r;
    ranks.push_back(std::move(rd));
  }
  io::Diagnostics diag;
  const std::string got =
      documents::format_cluster_step_trace(documents::build_cluster_step_trace(ranks, {}, diag));
  EXPECT_EQ(got,
            "Step,Type,Index,Computing,Communication(Not Overlapped),Overlapped,Communication,Free,"
            "Stage,Bubble,Communication(Not Overlapped and Exclude Receive),Preparing\r\n"
            "1,rank,0,10.0,2.0,1.0,3.0,4.0,16.0,0.0,2.0,5.0\r\n"
            "1,rank,1,11.0,2.0,1.0,3.0,5.0,17.0,0.0,2.0,6.0\r\n"
            "1,rank,2,12.0,2.0,1.0,3.0,6.0,18.0,0.0,2.0,7.0\r\n"
            "1,rank,3,13.0,2.0,1.0,3.0,7.0,19.0,0.0,2.0,0\r\n");
  ASSERT_EQ(diag.warning_count(), 2u);
  EXPECT_NE(diag.items()[0].what.find("1 rank(s) (first: rank 0) has columns the profiler does "
                                      "not write"),
            std::string::npos)
      << diag.items()[0].what;
  EXPECT_NE(diag.items()[1].what.find("(first: rank 3) lacks column(s) other ranks have: "
                                      "\"Preparing\""),
            std::string::npos)
      << diag.items()[1].what;
}

TEST(ClusterStepTrace, NoRowsNoFile) {
  std::vector<load::RankData> ranks(1);
  io::Diagnostics diag;
  const std::string path = test::temp_path("empty_step_trace.csv");
  std::remove(path.c_str());
  EXPECT_TRUE(documents::write_cluster_step_trace_csv(path, ranks, {}, diag));
  EXPECT_FALSE(std::filesystem::exists(path));
}

}  // namespace
}  // namespace cs::documents
