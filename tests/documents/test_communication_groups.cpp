#include "msprof_analyze/documents/communication_groups.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "documents/msprof_golden.h"
#include "msprof_analyze/documents/py_int_set.h"
#include "runtime/spill_file.h"

namespace cs::documents {
namespace {

std::vector<int> ints(const std::string& text) {
  std::vector<int> v;
  std::istringstream in(text);
  int x;
  while (in >> x) v.push_back(x);
  return v;
}

TEST(PyIntSet, MatchesCPythonIterationOrder) {
  std::ifstream in(test::golden_dir() + "/py_sets.txt");
  ASSERT_TRUE(in) << "missing py_sets.txt";
  std::string line;
  int checked = 0;
  while (std::getline(in, line)) {
    const size_t eq = line.find(" = ");
    ASSERT_NE(eq, std::string::npos);
    const std::vector<int> want = ints(line.substr(eq + 3));
    documents::PyIntSet got;
    if (line.rfind("add ", 0) == 0) {
      got = documents::PyIntSet::from_list(ints(line.substr(4, eq - 4)));
    } else {
      std::string parts = line.substr(6, eq - 6);
      size_t pos = 0;
      while (true) {
        size_t slash = parts.find(" / ", pos);
        got.merge(documents::PyIntSet::from_list(ints(parts.substr(pos, slash - pos))));
        if (slash == std::string::npos) break;
        pos = slash + 3;
      }
    }
    EXPECT_EQ(got.items(), want) << line;
    ++checked;
  }
  EXPECT_EQ(checked, 600);
}

TEST(PyIntSet, KnownOrdersAndTupleText) {
  documents::PyIntSet a = documents::PyIntSet::from_list({7, 15});
  EXPECT_EQ(a.items(), (std::vector<int>{15, 7}));
  EXPECT_EQ(a.tuple_str(), "(15, 7)");
  documents::PyIntSet b = documents::PyIntSet::from_list({1, 8});
  EXPECT_EQ(b.tuple_str(), "(8, 1)");
  EXPECT_EQ(documents::PyIntSet::from_list({3}).tuple_str(), "(3,)");
  EXPECT_EQ(documents::PyIntSet().tuple_str(), "()");
  EXPECT_TRUE(a.contains(15));
  EXPECT_FALSE(a.contains(8));
  EXPECT_EQ(a.min(), 7);
  EXPECT_TRUE(documents::PyIntSet::from_list({15, 7}) == a);
  // Large contiguous ranges stay sorted and lookups work after many resizes.
  std::vector<int> big;
  for (int i = 0; i < 5000; ++i) big.push_back(i);
  documents::PyIntSet c = documents::PyIntSet::from_list(big);
  EXPECT_EQ(c.items(), big);
  EXPECT_TRUE(c.contains(4999));
  EXPECT_FALSE(c.contains(5000));
}

TEST(CommunicationGroups, KeyHelpers) {
  EXPECT_EQ(documents::py_group_of("hcom_allReduce__844_2_1@1368"), "1368");
  EXPECT_EQ(documents::py_group_of("Total Op Info"), "Total Op Info");
  EXPECT_EQ(documents::py_group_of("a@b@c"), "c");
  EXPECT_EQ(documents::op_part_of("a@b@c"), "a@b");
  EXPECT_EQ(documents::op_part_of("plain"), "");
  // msprof-analyze's double_hash("") is 0; one character c gives (c << 32) | c.
  EXPECT_EQ(documents::group_name_of_group_id(""), "0");
  EXPECT_EQ(documents::group_name_of_group_id("a"), std::to_string((97ull << 32) | 97ull));
  // Non-ASCII ids hash by code point, as Python's ord() does: "é" is one character 0xE9.
  EXPECT_EQ(documents::group_name_of_group_id("\xC3\xA9"),
            std::to_string((0xE9ull << 32) | 0xE9ull));
}

TEST(CommunicationGroups, GoldenCommunicationGroupJson) {
  for (const char* c : test::kCases) {
    const auto ranks = test::load_case(c);
    io::Diagnostics diag;
    const documents::CommGroups groups = documents::build_comm_groups(ranks, {}, diag);
    std::string got;
    {
      io::JsonWriter w(&got, io::JsonStyle::python());
      documents::write_communication_group(w, groups);
    }
    const std::string want = test::expected(c, "communication_group.json");
    EXPECT_EQ(got, want) << c << ": " << test::first_diff(got, want);
  }
}

// The ranks read on several threads (and held packed or spilled): the same groups, in the same
// order with the same members, as one thread reading them held, for either source file.
TEST(CommunicationGroups, SameGroupsForAnyThreadCountAndStorage) {
  auto spill = runtime::SpillFile::create();
  auto text = [](const CommGroups& g) {
    std::string out;
    io::JsonWriter w(&out, io::JsonStyle::python());
    write_communication_group(w, g);
    return out;
  };
  for (const char* c : test::kCases) {
    const auto ranks = test::load_case(c);
    auto stored = test::load_case(c);
    for (size_t i = 0; i < stored.size(); ++i) {
      i % 2 ? stored[i].communication.spill(spill) : stored[i].communication.pack();
      i % 2 ? stored[i].matrix.pack() : stored[i].matrix.spill(spill);
    }
    for (int source = 0; source < 3; ++source) {
      GroupOptions opts;
      opts.use_communication = source != 1;
      opts.use_matrix = source != 2;
      io::Diagnostics diag;
      const std::string want = text(build_comm_groups(ranks, opts, diag));
      if (source == 0) {
        EXPECT_EQ(want, test::expected(c, "communication_group.json")) << c;
      }
      const std::vector<load::RankData>* sets[] = {&ranks, &stored};
      for (const auto* rs : sets) {
        for (int threads : {1, 3}) {
          opts.threads = threads;
          EXPECT_EQ(text(build_comm_groups(*rs, opts, diag)), want)
              << c << " source " << source << " threads " << threads;
        }
      }
    }
  }
}

TEST(CommunicationGroups, MetadataFillsIdsAndGlobalRanks) {
  const auto ranks = test::load_case("tp2pp2");
  io::Diagnostics diag;
  const documents::CommGroups groups = documents::build_comm_groups(ranks, {}, diag);
  ASSERT_EQ(groups.collective.size(), 2u);
  ASSERT_EQ(groups.p2p.size(), 2u);
  for (const documents::CommGroup* g : groups.all()) {
    EXPECT_TRUE(g->has_parallel_info) << g->group_name;
    EXPECT_EQ(documents::group_name_of_group_id(g->group_id), g->group_name);
    EXPECT_EQ(g->pg_name, g->type == "p2p" ? "pp" : "tp");
  }
  EXPECT_EQ(groups.p2p[1].rank_set, (std::vector<int>{1, 3}));
  EXPECT_NE(groups.find("p2p", groups.p2p[0].group_name), nullptr);
  EXPECT_EQ(groups.find("collective", groups.p2p[0].group_name), nullptr);
}

TEST(CommunicationGroups, ModeSelectsSourceFiles) {
  // set_order: rank 1's matrix reports the all-rank group; without the matrix only the
  // communication.json groups remain, with the same members here.
  const auto ranks = test::load_case("set_order");
  io::Diagnostics diag;
  documents::GroupOptions only_matrix;
  only_matrix.use_communication = false;
  const documents::CommGroups g = documents::build_comm_groups(ranks, only_matrix, diag);
  ASSERT_EQ(g.collective.size(), 1u);  // the matrix has only the allgather group
  EXPECT_TRUE(g.p2p.empty());
  EXPECT_EQ(g.collective[0].tuple_key(), "(8, 1, 15, 7)");
}

TEST(CommunicationGroups, WritesFileAndReportsUnwritablePath) {
  const auto ranks = test::load_case("set_order");
  io::Diagnostics diag;
  const documents::CommGroups groups = documents::build_comm_groups(ranks, {}, diag);
  const std::string path = test::temp_path("communication_group.json");
  ASSERT_TRUE(documents::write_communication_group_json(path, groups, diag));
  EXPECT_EQ(test::slurp(path), test::expected("set_order", "communication_group.json"));
  EXPECT_FALSE(documents::write_communication_group_json("/nonexistent-dir/x.json", groups, diag));
  ASSERT_TRUE(diag.has_errors());
  EXPECT_EQ(diag.items().back().file, "/nonexistent-dir/x.json");
}

}  // namespace
}  // namespace cs::documents
