// cluster/output_summary.h: the closing summary's line about the outputs, worked out by hand.
#include "cluster/output_summary.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "support/test_files.h"

namespace cs::cluster {
namespace {

namespace fs = std::filesystem;

TEST(OutputSummary, SizesOfTheFilesInTheDirectoryLargestFirst) {
  test::TempDir dir;
  const fs::path out = dir.path() / "cluster_analysis_output";
  fs::create_directories(out);
  test::write_file(out / "a.csv", std::string(10, 'a'));
  test::write_file(out / "b.json", std::string(3000, 'b'));
  test::write_file(dir.path() / "elsewhere.csv", std::string(5000, 'c'));
  const auto files =
      output_file_sizes({(out / "a.csv").string(), (out / "b.json").string(),
                         (out / "gone.h5").string(), (dir.path() / "elsewhere.csv").string()},
                        out.string());
  ASSERT_EQ(files.size(), 2u);  // gone.h5 is gone, elsewhere.csv is not in the directory
  EXPECT_EQ(files[0].name, "b.json");
  EXPECT_EQ(files[0].bytes, 3000u);
  EXPECT_EQ(files[1].name, "a.csv");
  EXPECT_EQ(files[1].bytes, 10u);
}

TEST(OutputSummary, LineSaysTotalLargestAndWhereThePerOpTablesWent) {
  const std::vector<OutputFileSize> files = {{"cluster_communication.json", 51000000},
                                             {"cluster_communication_matrix.json", 29000000},
                                             {"cluster_analysis.h5", 4600000},
                                             {"step_trace.csv", 500}};
  const std::map<std::string, size_t> rows = {{"communication_matrix", 180736},
                                              {"communication_ops", 41984}};
  EXPECT_EQ(outputs_line(files, rows, OpTables::kHdf5, true),
            "Outputs: 85 MB in 4 files (cluster_communication.json 51 MB, "
            "cluster_communication_matrix.json 29 MB, cluster_analysis.h5 5 MB); per-op tables "
            "communication_matrix (180,736 rows) and communication_ops (41,984 rows) in "
            "cluster_analysis.h5 only (--op-tables csv or csv.gz writes them as text too)\n");
  EXPECT_NE(outputs_line(files, rows, OpTables::kCsvGz, true)
                .find("(41,984 rows) as <name>.csv.gz and in cluster_analysis.h5\n"),
            std::string::npos);
  EXPECT_NE(outputs_line(files, rows, OpTables::kCsv, false).find("rows) as <name>.csv\n"),
            std::string::npos);
  // No per-op table built (-m operators), one file.
  EXPECT_EQ(outputs_line({{"operators_topn.csv", 1200}}, {}, OpTables::kHdf5, false),
            "Outputs: 1 KB in 1 file (operators_topn.csv 1 KB)\n");
}

}  // namespace
}  // namespace cs::cluster
