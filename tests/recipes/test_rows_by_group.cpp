// RowsByGroup: rows sorted into groups, on disk past the budget, read back in each group's order.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <csignal>

#include <string>
#include <vector>

#include "frame/frame.h"
#include "msprof_analyze/recipes/rows_by_group.h"

namespace {

using cs::frame::Cell;
using cs::recipes::RowsByGroup;

// Row i of a two-cell table: its number and a text naming its group (texts are pooled pointers,
// so a row read back from disk must still point at the pool's text).
std::vector<Cell> group_numbered_row(int i, uint32_t group) {
  return {Cell::integer(i), Cell::text("group " + std::to_string(group))};
}

// Every group's rows read back, as "number:text" in read order, groups in order.
std::vector<std::vector<std::string>> group_rows_read_back(const RowsByGroup& rows,
                                                           uint32_t groups) {
  std::vector<std::vector<std::string>> out(groups);
  for (uint32_t g = 0; g < groups; ++g)
    rows.for_each_run<Cell>(g, [&](std::span<const Cell> cells) {
      EXPECT_EQ(cells.size() % rows.width(), 0u);
      for (size_t at = 0; at < cells.size(); at += rows.width())
        out[g].push_back(std::to_string(cells[at].i()) + ":" + cells[at + 1].str());
    });
  return out;
}

TEST(RowsByGroup, EachGroupsRowsComeBackInTheirOrderForAnyBudget) {
  constexpr uint32_t kGroups = 5;
  std::vector<std::vector<std::string>> expected(kGroups);
  const auto group_of = [](int i) { return static_cast<uint32_t>((i * 7 + i / 3) % kGroups); };
  for (int i = 0; i < 1000; ++i)
    if (group_of(i) != 3)  // group 3 gets no row
      expected[group_of(i)].push_back(std::to_string(i) + ":group " + std::to_string(group_of(i)));
  for (size_t budget : {size_t{1}, size_t{7}, size_t{64}, size_t{1} << 20}) {
    RowsByGroup rows(kGroups, sizeof(Cell), 2, budget);
    for (int i = 0; i < 1000; ++i)
      if (group_of(i) != 3) rows.add(group_of(i), group_numbered_row(i, group_of(i)).data());
    EXPECT_TRUE(rows.problem().empty()) << rows.problem();
    EXPECT_EQ(group_rows_read_back(rows, kGroups), expected) << "budget " << budget;
    // Past the budget the rows went to disk; within it they stayed in memory.
    EXPECT_EQ(rows.spilled_bytes() > 0, budget < 1000) << "budget " << budget;
    EXPECT_LE(rows.spilled_bytes(), 1000 * 2 * sizeof(Cell));
  }
}

TEST(RowsByGroup, WithoutASpillFileTheRowsStayInMemoryAndSaySo) {
  RowsByGroup rows(2, sizeof(Cell), 2, 1, "/nonexistent-directory/for-the-spill-file");
  for (int i = 0; i < 10; ++i) rows.add(i % 2, group_numbered_row(i, i % 2).data());
  EXPECT_NE(rows.problem().find("nonexistent-directory"), std::string::npos) << rows.problem();
  EXPECT_EQ(rows.spilled_bytes(), 0u);
  const auto back = group_rows_read_back(rows, 2);
  EXPECT_EQ(back[0], (std::vector<std::string>{"0:group 0", "2:group 0", "4:group 0", "6:group 0",
                                               "8:group 0"}));
  EXPECT_EQ(back[1].size(), 5u);
  EXPECT_EQ(back[1].back(), "9:group 1");
}

TEST(RowsByGroup, ASpillFileThatFillsUpKeepsTheRestInMemory) {
  // Rows of 32 bytes, 10 in memory at most: each spill writes about 320 bytes. Files of this
  // process may not grow past 700 bytes: the third spill fails (EFBIG, SIGXFSZ ignored) and the
  // rows from then on stay in memory, after those on disk, in order.
  struct rlimit old {};
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &old), 0);
  const auto old_handler = signal(SIGXFSZ, SIG_IGN);
  struct rlimit small = old;
  small.rlim_cur = 700;
  std::vector<std::vector<std::string>> expected(2), back;
  uint64_t spilled = 0;
  std::string problem;
  {
    RowsByGroup rows(2, sizeof(Cell), 2, 10);
    ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
    for (int i = 0; i < 100; ++i) {
      const uint32_t g = i % 3 == 0 ? 0 : 1;
      rows.add(g, group_numbered_row(i, g).data());
      expected[g].push_back(std::to_string(i) + ":group " + std::to_string(g));
    }
    setrlimit(RLIMIT_FSIZE, &old);
    signal(SIGXFSZ, old_handler);
    spilled = rows.spilled_bytes();
    problem = rows.problem();
    back = group_rows_read_back(rows, 2);
  }
  EXPECT_FALSE(problem.empty());
  EXPECT_GT(spilled, 0u);
  EXPECT_LE(spilled, 700u);
  EXPECT_EQ(back, expected);
}

}  // namespace
