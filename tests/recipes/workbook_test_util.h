#pragma once
// Workbooks (.xlsx) compared with msprof-analyze's as a reader sees them.

#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>

#include "cli/cli_test_util.h"

namespace cs::test {

// Every workbook of `expected` (msprof-analyze's .xlsx files; its other files, such as the
// comparison script, are not outputs) has its namesake in `got`, no other file was written, and
// each is a sound ZIP archive (`unzip -t`) that openpyxl reads as the expected one, cell by cell
// (values, types, styles, merges, widths: compare_xlsx.py in
// tests/data/generated-db/tp2pp2_module_statistic__text). Logs go to `<log>.<i>.log`.
inline void expect_same_workbooks(const std::filesystem::path& got,
                                  const std::filesystem::path& expected, const std::string& log) {
  std::set<std::string> g, e;
  for (const auto& [dir, m] : {std::pair{got, &g}, std::pair{expected, &e}})
    for (const auto& f : std::filesystem::recursive_directory_iterator(dir))
      if (f.is_regular_file() && f.path().filename() != ".clusterscope_written" &&
          (m == &g || f.path().extension() == ".xlsx"))
        m->insert(std::filesystem::relative(f.path(), dir).string());
  EXPECT_EQ(g, e) << got;
  const std::string script =
      std::string(CS_TEST_DATA) + "/generated-db/tp2pp2_module_statistic__text/compare_xlsx.py";
  int i = 0;
  for (const std::string& n : e) {
    if (!g.count(n)) continue;
    const std::string l = log + "." + std::to_string(i++) + ".log";
    EXPECT_EQ(run_command("unzip -tq " + (got / n).string(), l), 0) << n << ": " << read_file(l);
    EXPECT_EQ(run_command("/usr/bin/python3 " + script + " " + (expected / n).string() + " " +
                              (got / n).string(),
                          l),
              0)
        << n << ": " << read_file(l);
  }
}

}  // namespace cs::test
