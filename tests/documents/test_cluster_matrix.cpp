#include "msprof_analyze/documents/cluster_matrix.h"

#include <gtest/gtest.h>

#include <cstdio>

#include "documents/msprof_golden.h"

namespace cs::documents {
namespace {

TEST(ClusterMatrix, GoldenFiles) {
  for (const char* c : {"tp2pp2", "set_order"}) {
    const auto ranks = test::load_case(c);
    io::Diagnostics diag;
    const documents::CommGroups groups = documents::build_comm_groups(ranks, {}, diag);
    std::string got;
    {
      io::JsonWriter w(&got, io::JsonStyle::python());
      ASSERT_TRUE(documents::write_cluster_matrix(w, ranks, groups, diag));
    }
    const std::string want = test::expected(c, "cluster_communication_matrix.json");
    EXPECT_EQ(got, want) << c << ": " << test::first_diff(got, want);
  }
}

TEST(ClusterMatrix, UnmappableAndInvalidLinksAreReported) {
  const auto ranks = test::load_case("set_order");
  io::Diagnostics diag;
  const documents::CommGroups groups = documents::build_comm_groups(ranks, {}, diag);
  const auto links = documents::merge_matrix_links(ranks, groups, diag);
  bool invalid = false, unmapped = false;
  for (const auto& d : diag.items()) {
    invalid = invalid || d.what.find("has a link key without '-'") != std::string::npos;
    unmapped = unmapped || d.what.find("cannot be mapped") != std::string::npos;
  }
  EXPECT_TRUE(invalid);
  EXPECT_TRUE(unmapped);
  // Rank 15 has no self link in step10: no link of step10 touches rank 15.
  for (const documents::GlobalLink& l : links) {
    if (l.step() == "step10") {
      EXPECT_TRUE(l.src_rank != 15 && l.dst_rank != 15) << l.op_key();
    }
  }
  // In step3 rank 15 is mapped (local 3).
  bool seen15 = false;
  for (const documents::GlobalLink& l : links)
    seen15 = seen15 || (l.step() == "step3" && l.src_rank == 15);
  EXPECT_TRUE(seen15);
}

TEST(ClusterMatrix, MergedLinksMatchFormulas) {
  const auto ranks = test::load_case("tp2pp2");
  io::Diagnostics diag;
  const documents::CommGroups groups = documents::build_comm_groups(ranks, {}, diag);
  const auto links = documents::merge_matrix_links(ranks, groups, diag);
  ASSERT_FALSE(links.empty());
  int totals = 0;
  for (const documents::GlobalLink& l : links) {
    const double expect = l.time_ms < 1e-15 ? 0.0 : io::py_round(l.size_mb / l.time_ms, 4);
    EXPECT_EQ(l.bandwidth_gbps(), expect);
    EXPECT_GE(l.src_rank, 0);
    EXPECT_LT(l.dst_rank, 4);
    if (l.op_key().rfind("Total Op Info@", 0) == 0) {
      ++totals;
      EXPECT_EQ(l.group(), l.op_key().substr(14));
    }
  }
  EXPECT_GT(totals, 0);
}

TEST(ClusterMatrix, MetadataOptionMapsWithoutSelfLinks) {
  auto ranks = test::load_case("tp2pp2");
  // Drop every self link: msprof-analyze then maps nothing; the metadata option maps all.
  for (auto& rd : ranks)
    for (auto& st : rd.matrix.edit().steps)
      for (auto* ops : {&st.collective, &st.p2p})
        for (auto& op : *ops)
          std::erase_if(op.links,
                        [](const readers::MatrixLink& l) { return l.src_local == l.dst_local; });
  io::Diagnostics diag;
  const documents::CommGroups groups = documents::build_comm_groups(ranks, {}, diag);
  EXPECT_TRUE(documents::merge_matrix_links(ranks, groups, diag).empty());
  documents::MatrixOptions opts;
  opts.use_metadata_ranks = true;
  const auto links = documents::merge_matrix_links(ranks, groups, diag, opts);
  ASSERT_FALSE(links.empty());
  for (const documents::GlobalLink& l : links) EXPECT_NE(l.src_rank, l.dst_rank);
}

// With the metadata option (what `cluster` uses for its own tables) the links returned are mapped
// through profiler_metadata.json, but the document written is still msprof-analyze's: ops with
// no link where no self link maps the local ranks, and no Total Op Info for them.
TEST(ClusterMatrix, DocumentStaysMsprofAnalyzesWithTheMetadataOption) {
  auto ranks = test::load_case("tp2pp2");
  for (auto& rd : ranks)
    for (auto& st : rd.matrix.edit().steps)
      for (auto* ops : {&st.collective, &st.p2p})
        for (auto& op : *ops)
          std::erase_if(op.links,
                        [](const readers::MatrixLink& l) { return l.src_local == l.dst_local; });
  io::Diagnostics diag;
  const documents::CommGroups groups = documents::build_comm_groups(ranks, {}, diag);
  const std::string dir = ::testing::TempDir();
  const std::string plain = dir + "/matrix_plain.json", meta = dir + "/matrix_meta.json";
  EXPECT_TRUE(documents::merge_and_write_cluster_matrix(plain, ranks, groups, diag).empty());
  documents::MatrixOptions opts;
  opts.use_metadata_ranks = true;
  for (const int threads : {1, 3}) {
    const auto links = documents::merge_and_write_cluster_matrix(
        meta, ranks, groups, diag, io::JsonStyle::python(), opts, threads);
    EXPECT_FALSE(links.empty());
    const std::string a = test::slurp(plain), b = test::slurp(meta);
    EXPECT_EQ(b, a) << threads;
    EXPECT_EQ(a.find("Total Op Info"), std::string::npos);
    EXPECT_EQ(a.find("Transport Type"), std::string::npos);  // no link at all
  }
  std::remove(plain.c_str());
  std::remove(meta.c_str());
}

// Large group tuples are merged and written in place by the writing thread, the others rendered
// apart ahead of it (MatrixOptions::apart_max_links): whichever tuples go which way, on any thread
// count, the document is the golden one and the links are the same.
TEST(ClusterMatrix, LargeTuplesWrittenInPlaceGiveTheSameDocument) {
  for (const char* c : {"tp2pp2", "set_order"}) {
    const auto ranks = test::load_case(c);
    io::Diagnostics diag;
    const documents::CommGroups groups = documents::build_comm_groups(ranks, {}, diag);
    const std::string want = test::expected(c, "cluster_communication_matrix.json");
    const std::string path = test::temp_path("matrix_in_place.json");
    // 0: every tuple in place; 3: the small ones apart; the default: every one apart here.
    for (const size_t limit : {size_t{0}, size_t{3}, documents::MatrixOptions{}.apart_max_links}) {
      for (const int threads : {1, 2, 4}) {
        documents::MatrixOptions opts;
        opts.apart_max_links = limit;
        io::Diagnostics d;
        const auto links = documents::merge_and_write_cluster_matrix(
            path, ranks, groups, d, io::JsonStyle::python(), opts, threads);
        const std::string got = test::slurp(path);
        EXPECT_EQ(got, want) << c << " limit " << limit << " threads " << threads << ": "
                             << test::first_diff(got, want);
        EXPECT_EQ(links.size(), documents::merge_matrix_links(ranks, groups, d).size());
      }
    }
    std::remove(path.c_str());
  }
}

// ~700k merged links at 1,024 ranks: a link stays at 40 bytes (op name as an id, bandwidth
// computed when asked).
TEST(ClusterMatrix, GlobalLinksStayCompact) {
  EXPECT_LE(sizeof(documents::GlobalLink), 40u);
}

// A link's op name is read through its op's pool, which moves with its chunk into GlobalLinks
// and with GlobalLinks itself.
TEST(ClusterMatrix, OpNamesSurviveMovesOfTheLinks) {
  documents::GlobalLinks links;
  for (int c = 0; c < 3; ++c) {
    documents::GlobalLinks::Chunk chunk;
    const std::string step = "step" + std::to_string(c);
    chunk.ops.push_back(
        {chunk.names.str(chunk.names.intern(step)), "allreduce-top1@1", "1", &chunk.names});
    for (int i = 0; i < 100; ++i) {
      documents::GlobalLink l;
      l.op = &chunk.ops.back();
      l.op_name_id = chunk.names.intern("hcom_allReduce__" + std::to_string(c * 1000 + i));
      l.size_mb = 2;
      l.time_ms = i == 0 ? 0 : 3;
      chunk.links.push_back(l);
    }
    links.append(std::move(chunk));
  }
  const documents::GlobalLinks moved = std::move(links);
  ASSERT_EQ(moved.size(), 300u);
  size_t i = 0;
  for (const documents::GlobalLink& l : moved) {
    const int c = static_cast<int>(i / 100), k = static_cast<int>(i % 100);
    EXPECT_EQ(l.op_name(), "hcom_allReduce__" + std::to_string(c * 1000 + k));
    EXPECT_EQ(l.step(), "step" + std::to_string(c));
    EXPECT_EQ(l.bandwidth_gbps(), k == 0 ? 0.0 : 0.6667);
    ++i;
  }
}

// The links (and the warnings) do not depend on how many threads merge the group tuples.
TEST(ClusterMatrix, LinksAreTheSameOnAnyThreadCount) {
  for (const char* c : {"tp2pp2", "set_order"}) {
    const auto ranks = test::load_case(c);
    io::Diagnostics gd;
    const documents::CommGroups groups = documents::build_comm_groups(ranks, {}, gd);
    io::Diagnostics d1;
    const auto one = documents::merge_matrix_links(ranks, groups, d1, {}, 1);
    ASSERT_FALSE(one.empty()) << c;
    for (int threads : {2, 4}) {
      io::Diagnostics dn;
      const auto many = documents::merge_matrix_links(ranks, groups, dn, {}, threads);
      ASSERT_EQ(many.size(), one.size()) << c << " on " << threads << " threads";
      auto a = one.begin();
      for (const documents::GlobalLink& l : many) {
        EXPECT_EQ(l.step(), a->step());
        EXPECT_EQ(l.op_key(), a->op_key());
        EXPECT_EQ(l.op_name(), a->op_name());
        EXPECT_EQ(l.src_rank, a->src_rank);
        EXPECT_EQ(l.dst_rank, a->dst_rank);
        EXPECT_EQ(l.size_mb, a->size_mb);
        EXPECT_EQ(l.time_ms, a->time_ms);
        ++a;
      }
      ASSERT_EQ(dn.items().size(), d1.items().size()) << c;
      for (size_t i = 0; i < d1.items().size(); ++i)
        EXPECT_EQ(dn.items()[i].to_string(), d1.items()[i].to_string());
    }
  }
}

}  // namespace
}  // namespace cs::documents
