#pragma once
// Helpers for the recipe tests that drive the clusterscope binary: generate a job, run one
// recipe on it (with or without mpirun), list what the run wrote, check that every process
// count writes the same bytes, and change a rank database with a few SQL statements.

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "cli/cli_test_util.h"

namespace cs::test {

// `clusterscope generate <job> <args>` (log beside the job as <job>.log); expects success.
inline std::filesystem::path generate_job(const std::filesystem::path& job,
                                          const std::string& args) {
  const std::string log = job.string() + ".log";
  const int rc =
      run_command(std::string(CS_BINARY) + " generate " + job.string() + " " + args, log);
  EXPECT_EQ(rc, 0) << read_file(log);
  return job;
}

// `<launcher>clusterscope cluster -d <input> -o <out> -m <mode> --export_type <type>` (log as
// <out>.log); expects exit code `expected_rc`. Returns <out>/cluster_analysis_output.
inline std::filesystem::path run_recipe(const std::filesystem::path& input,
                                        const std::filesystem::path& out, const std::string& mode,
                                        const std::string& type, const std::string& launcher = "",
                                        int expected_rc = 0) {
  const std::string log = out.string() + ".log";
  const int rc = run_command(launcher + CS_BINARY + " cluster -d " + input.string() + " -o " +
                                 out.string() + " -m " + mode + " --export_type " + type,
                             log);
  EXPECT_EQ(rc, expected_rc) << read_file(log);
  return out / "cluster_analysis_output";
}

// The files a run wrote below `dir`, relative and each followed by a space (clusterscope's own
// list of them left out); empty when `dir` does not exist.
inline std::string written_files(const std::filesystem::path& dir) {
  std::string s;
  if (std::filesystem::exists(dir))
    for (const auto& f : std::filesystem::recursive_directory_iterator(dir))
      if (f.is_regular_file() && f.path().filename() != ".clusterscope_written")
        s += std::filesystem::relative(f.path(), dir).string() + " ";
  return s;
}

// `run(launcher, name)` under mpirun -np 1, 2 and 4 (name "<prefix>np<N>") writes the same tree
// as the run without a launcher that wrote `single`.
inline void expect_same_at_process_counts(
    const std::filesystem::path& single, const std::string& prefix,
    const std::function<std::filesystem::path(const std::string&, const std::string&)>& run) {
  const auto expected = read_tree(single);
  for (int np : {1, 2, 4})
    EXPECT_TRUE(read_tree(run(mpirun(np), prefix + "np" + std::to_string(np))) == expected)
        << "np=" << np;
}

// Runs `sql` (one or more statements) on the database `db`; expects success.
inline void exec_sql(const std::filesystem::path& db, const std::string& sql) {
  sqlite3* h = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &h), SQLITE_OK);
  char* err = nullptr;
  EXPECT_EQ(sqlite3_exec(h, sql.c_str(), nullptr, nullptr, &err), SQLITE_OK) << (err ? err : "");
  sqlite3_free(err);
  sqlite3_close(h);
}

// `cluster -m <mode> --export_type <type> --progress` on `input`, once with the recipes' scans
// on and once with them off (CS_RECIPE_SCANS=off: SQLite answers every query), outputs below
// `out`-on and `out`-off: each of `queries` (name, ranks) is counted "<ranks> ranks by scan" with
// them on and "<ranks> by SQL" with them off, and both runs write the same, non-empty tree of
// bytes.
inline void expect_scan_matches_sql(const std::filesystem::path& input,
                                    const std::filesystem::path& out, const std::string& mode,
                                    const std::string& type,
                                    const std::vector<std::pair<std::string, int>>& queries) {
  std::filesystem::path dirs[2];
  for (int off = 0; off < 2; ++off) {
    const std::string dir = out.string() + (off ? "-off" : "-on");
    const std::string log = dir + ".log";
    const int rc = run_command(std::string(off ? "CS_RECIPE_SCANS=off " : "") + CS_BINARY +
                                   " cluster -d " + input.string() + " -o " + dir + " -m " + mode +
                                   " --export_type " + type + " --progress",
                               log);
    EXPECT_EQ(rc, 0) << read_file(log);
    for (const auto& [query, ranks] : queries) {
      const std::string n = std::to_string(ranks);
      const std::string counted =
          "query " + query + ": " +
          (off ? "0 ranks by scan, " + n + " by SQL" : n + " ranks by scan, 0 by SQL");
      EXPECT_NE(read_file(log).find(counted), std::string::npos) << counted << "\n"
                                                                 << read_file(log);
    }
    dirs[off] = std::filesystem::path(dir) / "cluster_analysis_output";
  }
  const auto on = read_tree(dirs[0]);
  EXPECT_FALSE(on.empty());
  EXPECT_TRUE(on == read_tree(dirs[1])) << mode << ": the outputs differ with the scans off";
}

}  // namespace cs::test
