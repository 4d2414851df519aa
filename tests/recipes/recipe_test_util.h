#pragma once
// Helpers for the recipe tests: a SQLite file as canonical text (each table's CREATE statement
// and its rows with every value's storage class and exact bits), so two databases compare equal
// when msprof-analyze's readers would see the same tables, and a directory tree compared with
// CSV files byte for byte and .db files by that text.

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include "cli/cli_test_util.h"
#include "frame/frame_ops.h"
#include "msprof_analyze/recipes/recipe.h"
#include "support/mpi_session.h"

namespace cs::test {

// Rank `r` of a DB job built from the real two-rank job (ascend-real/db_level1): rank r % 2's
// files, renumbered r, as `job`/node_<100 + r>_1736410538_ascend_pt.
inline void copy_real_db_rank(const std::filesystem::path& job, int r) {
  namespace fs = std::filesystem;
  const int s = r % 2;
  const fs::path from = fs::path(CS_TEST_DATA) / "ascend-real" / "db_level1" /
                        ("rank" + std::to_string(s) + "_ascend_pt");
  const fs::path to = job / ("node_" + std::to_string(100 + r) + "_1736410538_ascend_pt");
  fs::create_directories(to / "ASCEND_PROFILER_OUTPUT");
  fs::copy_file(from / ("profiler_info_" + std::to_string(s) + ".json"),
                to / ("profiler_info_" + std::to_string(r) + ".json"));
  fs::copy_file(from / "ASCEND_PROFILER_OUTPUT" / "analysis.db",
                to / "ASCEND_PROFILER_OUTPUT" / "analysis.db");
  fs::copy_file(
      from / "ASCEND_PROFILER_OUTPUT" / ("ascend_pytorch_profiler_" + std::to_string(s) + ".db"),
      to / "ASCEND_PROFILER_OUTPUT" / ("ascend_pytorch_profiler_" + std::to_string(r) + ".db"));
}

inline std::string dump_sqlite(const std::filesystem::path& p) {
  sqlite3* db = nullptr;
  std::string out;
  if (sqlite3_open_v2(p.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    sqlite3_close(db);
    return "cannot open " + p.string();
  }
  sqlite3_stmt* st = nullptr;
  sqlite3_prepare_v2(db, "SELECT name, type, sql FROM sqlite_master ORDER BY name", -1, &st,
                     nullptr);
  std::vector<std::pair<std::string, std::string>> tables;
  while (sqlite3_step(st) == SQLITE_ROW) {
    const std::string name = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
    const std::string type = reinterpret_cast<const char*>(sqlite3_column_text(st, 1));
    const char* sql = reinterpret_cast<const char*>(sqlite3_column_text(st, 2));
    out += std::string(sql ? sql : "") + "\n";
    if (type == "table") tables.emplace_back(name, "");
  }
  sqlite3_finalize(st);
  for (const auto& [name, _] : tables) {
    out += "== " + name + "\n";
    sqlite3_prepare_v2(db, ("SELECT * FROM \"" + name + "\"").c_str(), -1, &st, nullptr);
    const int n = sqlite3_column_count(st);
    while (sqlite3_step(st) == SQLITE_ROW) {
      for (int c = 0; c < n; ++c) {
        char buf[64];
        switch (sqlite3_column_type(st, c)) {
          case SQLITE_INTEGER:
            std::snprintf(buf, sizeof buf, "i:%lld", sqlite3_column_int64(st, c));
            out += buf;
            break;
          case SQLITE_FLOAT:
            std::snprintf(buf, sizeof buf, "r:%.17g", sqlite3_column_double(st, c));
            out += buf;
            break;
          case SQLITE_NULL:
            out += "NULL";
            break;
          default:
            out += "t:" + std::string(reinterpret_cast<const char*>(sqlite3_column_text(st, c)));
        }
        out += c + 1 < n ? "|" : "\n";
      }
    }
    sqlite3_finalize(st);
  }
  sqlite3_close(db);
  return out;
}

// msprof-analyze stamps some file names with the time (cluster_time_summary_20261123201620.csv).
inline std::string without_timestamp(const std::string& name) {
  return std::regex_replace(name, std::regex("_[0-9]{14}\\.csv$"), "_TIME.csv");
}

// Every file of `got` equals the one of `expected` (CSV byte for byte, .db by dump_sqlite).
// clusterscope's list of the files a run wrote (io/output_ledger.h) is not msprof-analyze's.
inline void expect_same_outputs(const std::filesystem::path& got,
                                const std::filesystem::path& expected) {
  std::map<std::string, std::filesystem::path> g, e;
  for (const auto& [dir, m] : {std::pair{got, &g}, std::pair{expected, &e}})
    for (const auto& f : std::filesystem::recursive_directory_iterator(dir))
      if (f.is_regular_file() && f.path().filename() != ".clusterscope_written")
        (*m)[without_timestamp(std::filesystem::relative(f.path(), dir).string())] = f.path();
  std::string gnames, enames;
  for (const auto& [n, _] : g) gnames += n + " ";
  for (const auto& [n, _] : e) enames += n + " ";
  EXPECT_EQ(gnames, enames) << got;
  for (const auto& [name, path] : e) {
    auto it = g.find(name);
    if (it == g.end()) continue;
    if (path.extension() == ".db")
      EXPECT_EQ(dump_sqlite(it->second), dump_sqlite(path)) << name;
    else
      EXPECT_EQ(read_file(it->second), read_file(path)) << name;
  }
}

// The real DB job's two ranks (tests/data/ascend-real/db_level1) mapped by `recipe`, repeated
// as ranks 0 .. n-1 (rank r reads rank r % 2's databases).
inline std::vector<recipes::RankPartial> map_real_db_ranks(const recipes::Recipe& recipe, int n) {
  const std::filesystem::path job =
      std::filesystem::path(CS_TEST_DATA) / "ascend-real" / "db_level1";
  std::vector<recipes::RankPartial> parts;
  for (int r = 0; r < n; ++r) {
    recipes::RankDbPaths paths;
    paths.rank = r;
    paths.rank_dir = (job / ("rank" + std::to_string(r % 2) + "_ascend_pt")).string();
    paths.analysis_db = paths.rank_dir + "/ASCEND_PROFILER_OUTPUT/analysis.db";
    recipes::RankPartial p;
    p.rank = r;
    io::Diagnostics diag;
    p.used = recipe.map(paths, p.frames, diag);
    EXPECT_TRUE(p.used) << r;
    parts.push_back(std::move(p));
  }
  return parts;
}

// Every cell of a frame, column by column, as text ("name(object):" for a column forced to
// Python objects).
inline std::string frame_cells(const frame::Frame& f) {
  std::string s;
  for (const auto& c : f.columns) {
    s += c.name + (c.force_object ? "(object):" : ":");
    for (const auto& cell : c.cells) s += frame::cell_key(cell) + ",";
    s += "\n";
  }
  return s;
}

// The database `recipe`'s merge of `parts` (their frames taken) on `threads` threads writes
// to `dir`/cluster_analysis.db.
inline std::string merged_db(const recipes::Recipe& recipe, std::vector<recipes::RankPartial> parts,
                             const std::filesystem::path& dir, int threads = 1) {
  std::filesystem::create_directories(dir);
  recipes::RecipeOutput out;
  out.cluster_output_dir = dir.string();
  io::Diagnostics diag;
  const recipes::Recipe::WriteStep write = recipe.merge(parts, threads, diag);
  EXPECT_TRUE(write && write(out, diag)) << recipe.name();
  EXPECT_FALSE(diag.has_errors());
  return read_file(dir / "cluster_analysis.db");
}

}  // namespace cs::test
