// cluster_communication_matrix.json (text) and ClusterCommunicationMatrix (DB export) equal what
// msprof-analyze writes at pipeline depth 8, where a stage's send/receive group has only p2p ops
// and so no self link "i-i": msprof-analyze maps none of its local ranks and writes its ops with
// no link (and no Total Op Info), which clusterscope's document must do too, while its own tables
// may map them through profiler_metadata.json (docs/msprof-compat.md).
//
// Expected outputs (tests/data/golden/matrix_pp8): msprof-analyze 8399c1cd, `cluster_analysis.py
// -d JOB -m all`, on the jobs `clusterscope generate` writes for the shapes below, listed in rank
// order (msprof-analyze takes its ranks in the directory's listing order; clusterscope in rank
// order). The DB table is kept as one line per row, "type:value" per cell (reals as %.17g).
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "cli/cli_test_util.h"

namespace fs = std::filesystem;
using cs::test::read_file;
using cs::test::run_command;

namespace {

const fs::path kMatrixGolden = fs::path(CS_TEST_DATA) / "golden/matrix_pp8";

struct MatrixShape {
  const char* name;  // file prefix in kMatrixGolden
  int ranks, tp, pp, seed;
};

std::string generate_args(const MatrixShape& s) {
  return " --ranks " + std::to_string(s.ranks) + " --tp " + std::to_string(s.tp) + " --pp " +
         std::to_string(s.pp) + " --steps 1 --layers 1 --microbatches 1 --seed " +
         std::to_string(s.seed);
}

// ClusterCommunicationMatrix as the expected file holds it.
std::string dump_matrix_table(const fs::path& db_path) {
  sqlite3* db = nullptr;
  std::string out;
  if (sqlite3_open_v2(db_path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    sqlite3_close(db);
    return "cannot open " + db_path.string();
  }
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(db, "SELECT * FROM ClusterCommunicationMatrix ORDER BY rowid", -1, &st,
                         nullptr) != SQLITE_OK) {
    out = "(no ClusterCommunicationMatrix table)\n";
  } else {
    while (sqlite3_step(st) == SQLITE_ROW) {
      for (int i = 0; i < sqlite3_column_count(st); ++i) {
        if (i > 0) out += '|';
        char buf[64];
        switch (sqlite3_column_type(st, i)) {
          case SQLITE_INTEGER:
            out += "i:" + std::to_string(sqlite3_column_int64(st, i));
            break;
          case SQLITE_FLOAT:
            std::snprintf(buf, sizeof buf, "r:%.17g", sqlite3_column_double(st, i));
            out += buf;
            break;
          case SQLITE_NULL:
            out += "n";
            break;
          default:
            out += std::string("t:") + reinterpret_cast<const char*>(sqlite3_column_text(st, i));
        }
      }
      out += '\n';
    }
  }
  sqlite3_finalize(st);
  sqlite3_close(db);
  return out;
}

class MatrixPp8 : public ::testing::TestWithParam<MatrixShape> {};

TEST_P(MatrixPp8, TextDocumentEqualsMsprofAnalyze) {
  const MatrixShape s = GetParam();
  const fs::path root = cs::test::temp_dir(std::string("matrix-pp8-text-") + s.name);
  ASSERT_EQ(
      run_command(std::string(CS_BINARY) + " generate " + (root / "in").string() + generate_args(s),
                  (root / "gen.log").string()),
      0)
      << read_file(root / "gen.log");
  ASSERT_EQ(run_command(std::string(CS_BINARY) + " cluster -q --format json -d " +
                            (root / "in").string() + " -o " + (root / "out").string(),
                        (root / "run.log").string()),
            0)
      << read_file(root / "run.log");
  const std::string got =
      read_file(root / "out/cluster_analysis_output/cluster_communication_matrix.json");
  const std::string want = read_file(kMatrixGolden / (std::string(s.name) + ".matrix.json"));
  ASSERT_FALSE(want.empty());
  if (got != want) {
    size_t i = 0;
    while (i < got.size() && i < want.size() && got[i] == want[i]) ++i;
    ADD_FAILURE() << "differs from msprof-analyze's at byte " << i
                  << ":\n  ours:           " << got.substr(i > 80 ? i - 80 : 0, 200)
                  << "\n  msprof-analyze: " << want.substr(i > 80 ? i - 80 : 0, 200);
  }
  fs::remove_all(root);
}

TEST_P(MatrixPp8, DbTableEqualsMsprofAnalyze) {
  const MatrixShape s = GetParam();
  const fs::path root = cs::test::temp_dir(std::string("matrix-pp8-db-") + s.name);
  ASSERT_EQ(run_command(std::string(CS_BINARY) + " generate " + (root / "in").string() +
                            generate_args(s) + " --export-type db",
                        (root / "gen.log").string()),
            0)
      << read_file(root / "gen.log");
  ASSERT_EQ(run_command(std::string(CS_BINARY) + " cluster -q -m all -d " + (root / "in").string() +
                            " -o " + (root / "out").string(),
                        (root / "run.log").string()),
            0)
      << read_file(root / "run.log");
  EXPECT_EQ(dump_matrix_table(root / "out/cluster_analysis_output/cluster_analysis.db"),
            read_file(kMatrixGolden / (std::string(s.name) + ".db_matrix.txt")));
  fs::remove_all(root);
}

INSTANTIATE_TEST_SUITE_P(Shapes, MatrixPp8,
                         ::testing::Values(MatrixShape{"ranks16_tp2_pp8", 16, 2, 8, 7},
                                           MatrixShape{"ranks8_tp1_pp8", 8, 1, 8, 3}),
                         [](const auto& info) { return std::string(info.param.name); });

}  // namespace
