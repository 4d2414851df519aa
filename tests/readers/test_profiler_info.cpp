// Tests of readers/profiler_info.{h,cpp}: profiler_info_N.json, profiler_metadata.json and the
// group-name double hash.

#include "readers/profiler_info.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>

#include "readers/communication_test_util.h"

namespace cs::io {
namespace {

using test::all_diags;
using test::data;
using test::run;

TEST(ProfilerInfo, RankFromFileName) {
  EXPECT_EQ(readers::rank_from_profiler_info_name("profiler_info_0.json"), 0);
  EXPECT_EQ(readers::rank_from_profiler_info_name("profiler_info_127.json"), 127);
  EXPECT_EQ(readers::rank_from_profiler_info_name("/a/b_ascend_pt/profiler_info_5.json"), 5);
  EXPECT_EQ(readers::rank_from_profiler_info_name("profiler_info.json"), std::nullopt);
  EXPECT_EQ(readers::rank_from_profiler_info_name("profiler_info_.json"), std::nullopt);
  EXPECT_EQ(readers::rank_from_profiler_info_name("profiler_info_x.json"), std::nullopt);
  EXPECT_EQ(readers::rank_from_profiler_info_name("profiler_info_-1.json"), std::nullopt);
  EXPECT_EQ(readers::rank_from_profiler_info_name("profiler_info_3.json.bak"), std::nullopt);
  EXPECT_EQ(readers::rank_from_profiler_info_name("profiler_info_99999999999.json"), std::nullopt);
  EXPECT_EQ(readers::rank_from_profiler_info_name("xprofiler_info_1.json"), std::nullopt);
}

TEST(ProfilerInfo, TorchNpuFile) {
  readers::ProfilerInfo info;
  Diagnostics diag;
  ASSERT_TRUE(readers::read_profiler_info(data("profiler_info_3.json"), info, diag));
  EXPECT_TRUE(diag.empty()) << all_diags(diag);
  EXPECT_EQ(info.rank_id, 3);
  EXPECT_EQ(info.framework, "torch_npu");
}

TEST(ProfilerInfo, MindSporeFile) {
  readers::ProfilerInfo info;
  Diagnostics diag;
  ASSERT_TRUE(readers::read_profiler_info(data("mindspore/profiler_info_12.json"), info, diag));
  EXPECT_TRUE(diag.empty()) << all_diags(diag);
  EXPECT_EQ(info.rank_id, 12);
  EXPECT_EQ(info.framework, "mindspore");
}

TEST(ProfilerInfo, FileNameWinsOverRankIdInside) {
  readers::ProfilerInfo info;
  Diagnostics diag;
  ASSERT_TRUE(readers::read_profiler_info(data("mismatch/profiler_info_7.json"), info, diag));
  EXPECT_EQ(info.rank_id, 7);
  ASSERT_EQ(diag.warning_count(), 1u);
  EXPECT_NE(diag.items()[0].what.find("rank_id 6"), std::string::npos);
}

TEST(ProfilerInfo, NoRankAnywhere) {
  readers::ProfilerInfo info;
  Diagnostics diag;
  EXPECT_TRUE(readers::read_profiler_info(data("no_rank/profiler_info.json"), info, diag));
  EXPECT_EQ(info.rank_id, -1);
  ASSERT_EQ(diag.warning_count(), 1u);
  EXPECT_NE(diag.items()[0].what.find("\"rank_id\" is a string"), std::string::npos)
      << all_diags(diag);
}

TEST(ProfilerInfo, FromMemoryAndBroken) {
  readers::ProfilerInfo info;
  Diagnostics diag;
  EXPECT_TRUE(readers::parse_profiler_info(R"({"rank_id": 4})", "profiler_info.json", info, diag));
  EXPECT_EQ(info.rank_id, 4);
  // Broken text: the name still gives the rank, the damage is reported.
  Diagnostics d2;
  EXPECT_TRUE(
      readers::parse_profiler_info(R"({"rank_id": 4, "con)", "x/profiler_info_9.json", info, d2));
  EXPECT_EQ(info.rank_id, 9);
  EXPECT_EQ(d2.error_count(), 1u);
  // Broken and no rank in the name: nothing usable.
  Diagnostics d3;
  EXPECT_FALSE(readers::parse_profiler_info("\x01\x02", "profiler_info.json", info, d3));
  EXPECT_EQ(d3.error_count(), 1u);
  Diagnostics d4;
  EXPECT_FALSE(readers::read_profiler_info(data("empty.json"), info, d4));
  EXPECT_EQ(d4.error_count(), 1u);
}

// torch_npu 2.7 / CANN 8.3 write rank_id as a string and _export_type as a list (modeled on the
// real text_level1 file, shortened); older ones an int and a string.
TEST(ProfilerInfo, NewerProducerStringRankAndExportList) {
  const char* newer = R"({"config": {"common_config": {"with_stack": true},
    "experimental_config": {"_profiler_level": "Level1", "_export_type": ["text", "db"]}},
    "start_info": {"syscnt_enable": true, "collectionTimeBegin": "1736408883000000000"},
    "end_info": {"collectionTimeEnd": 1736408884023552840, "MonotonicTimeEnd": 1},
    "rank_id": "6"})";
  readers::ProfilerInfo info;
  Diagnostics diag;
  ASSERT_TRUE(readers::parse_profiler_info(newer, "profiler_info.json", info, diag));
  EXPECT_EQ(diag.items().size(), 0u) << all_diags(diag);
  EXPECT_EQ(info.rank_id, 6);
  EXPECT_EQ(info.export_types, (std::vector<std::string>{"text", "db"}));
  EXPECT_EQ(info.collection_end_ns, 1736408884023552840LL);
  EXPECT_EQ(info.collection_begin_ns, 1736408883000000000LL);

  // The real 2025-01 file: int rank, "text", the end time.
  readers::ProfilerInfo old;
  Diagnostics d2;
  ASSERT_TRUE(readers::read_profiler_info(
      std::string(CS_TEST_DATA) + "/discovery/profiler_info_0.json", old, d2));
  EXPECT_EQ(d2.items().size(), 0u) << all_diags(d2);
  EXPECT_EQ(old.rank_id, 0);
  EXPECT_EQ(old.export_types, (std::vector<std::string>{"text"}));
  EXPECT_EQ(old.collection_end_ns, 1736408884023552840LL);

  // A string that is not a number is reported, not read as rank 0.
  readers::ProfilerInfo bad;
  Diagnostics d3;
  readers::parse_profiler_info(R"({"rank_id": "zero"})", "profiler_info.json", bad, d3);
  EXPECT_EQ(bad.rank_id, -1);
  EXPECT_EQ(d3.warning_count(), 1u);
}

TEST(ProfilerMetadata, DistributedArgsAndGroups) {
  readers::ProfilerMetadata md;
  Diagnostics diag;
  ASSERT_TRUE(readers::read_profiler_metadata(data("profiler_metadata.json"), md, diag));
  EXPECT_TRUE(md.has_distributed_args);
  EXPECT_EQ(md.arg("tensor_model_parallel_size"), 2);
  EXPECT_EQ(md.arg("pipeline_model_parallel_size"), 2);
  EXPECT_EQ(md.arg("data_parallel_size"), 4);
  EXPECT_EQ(md.arg("context_parallel_size"), 1);
  EXPECT_EQ(md.arg("expert_model_parallel_size"), 1);
  EXPECT_EQ(md.arg("world_size"), 16);
  EXPECT_EQ(md.arg("rank"), 3);
  // Non-integers are not distributed-args integers.
  EXPECT_EQ(md.arg("sequence_parallel"), std::nullopt);
  EXPECT_EQ(md.arg("backend"), std::nullopt);
  EXPECT_EQ(md.arg("lr"), std::nullopt);
  EXPECT_EQ(md.arg("nope"), std::nullopt);
  ASSERT_EQ(md.parallel_groups.size(), 3u);
  const readers::ParallelGroup& dp = md.parallel_groups[0];
  EXPECT_EQ(dp.group_id(), "10.170.22.98%enp67s0f5_60000_0_1708156014257149");
  EXPECT_EQ(dp.group_name(), "dp");
  EXPECT_EQ(dp.group_rank(), 0);
  EXPECT_EQ(dp.global_ranks(), (std::vector<int>{3, 7, 11, 15}));
  EXPECT_EQ(md.parallel_groups[1].group_name(), "tp");
  EXPECT_EQ(md.parallel_groups[1].group_rank(), 1);
  EXPECT_EQ(md.parallel_groups[1].global_ranks(), (std::vector<int>{2, 3}));
  // The bad group: every bad value is a warning and left out; 2.0 is an integral value.
  const readers::ParallelGroup& bad = md.parallel_groups[2];
  EXPECT_EQ(bad.group_name(), "");
  EXPECT_EQ(bad.group_rank(), -1);
  EXPECT_EQ(bad.global_ranks(), (std::vector<int>{1, 2}));
  EXPECT_EQ(diag.error_count(), 0u);
  EXPECT_EQ(diag.warning_count(), 4u) << all_diags(diag);
  const std::string all = all_diags(diag);
  EXPECT_NE(all.find(":26: group 'group_bad': \"group_name\" is a number"), std::string::npos)
      << all;
  EXPECT_NE(all.find("\"global_ranks\" is a number, expected an integer"), std::string::npos)
      << all;
}

TEST(ProfilerMetadata, TruncatedKeepsCompleteGroups) {
  readers::ProfilerMetadata md;
  Diagnostics diag;
  ASSERT_TRUE(readers::read_profiler_metadata(data("truncated_profiler_metadata.json"), md, diag))
      << all_diags(diag);
  EXPECT_EQ(md.arg("world_size"), 16);
  ASSERT_EQ(md.parallel_groups.size(), 1u) << all_diags(diag);
  EXPECT_EQ(md.parallel_groups[0].group_name(), "dp");
  EXPECT_EQ(diag.error_count(), 1u);
  EXPECT_NE(diag.items()[0].hint.find("was the profiler stopped"), std::string::npos);
}

TEST(ProfilerMetadata, NotAnObjectAndMissing) {
  readers::ProfilerMetadata md;
  Diagnostics diag;
  EXPECT_FALSE(readers::parse_profiler_metadata("[1, 2]", "m.json", md, diag));
  EXPECT_EQ(diag.error_count(), 1u);
  Diagnostics d2;
  EXPECT_FALSE(readers::read_profiler_metadata(data("nope/profiler_metadata.json"), md, d2));
  EXPECT_NE(d2.items().at(0).what.find("not found"), std::string::npos);
  Diagnostics d3;
  EXPECT_TRUE(readers::parse_profiler_metadata("{}", "m.json", md, d3));
  EXPECT_FALSE(md.has_distributed_args);
  EXPECT_TRUE(md.parallel_groups.empty());
}

// Issue 17, finding 9: ranks outside [0, 2^31) are refused (never cut to 32 bits), global ranks
// at or beyond world_size dropped (said once), a repeated key resolved as Python's json does
// (the last value wins), with one warning.
TEST(ProfilerMetadata, RangesAndRepeatedKeys) {
  const std::string json =
      R"({"distributed_args": {"world_size": 4, "tensor_model_parallel_size": 1,
      "world_size": 8, "data_parallel_size": 1e400},
    "parallel_group_info": {
      "g1": {"group_name": "tp", "group_rank": 2147483648, "global_ranks": [0, 1]},
      "g2": {"group_name": "dp", "group_rank": 0,
             "global_ranks": [2147483648, -1, 1000000000000000000, 3, 8, 7, 12345678901234567890]},
      "g1": {"group_name": "pp", "group_rank": 1, "global_ranks": [4, 5]}}})";
  readers::ProfilerMetadata m;
  Diagnostics diag;
  ASSERT_TRUE(readers::parse_profiler_metadata(json, "profiler_metadata.json", m, diag));
  EXPECT_EQ(m.distributed_args.at("world_size"), 8);  // the last one
  EXPECT_EQ(m.distributed_args.count("data_parallel_size"), 0u);
  ASSERT_EQ(m.parallel_groups.size(), 2u);
  EXPECT_EQ(m.parallel_groups[0].group_id(), "g2");
  EXPECT_EQ(m.parallel_groups[0].global_ranks(), (std::vector<int>{3, 7}));
  EXPECT_EQ(m.parallel_groups[1].group_id(), "g1");
  EXPECT_EQ(m.parallel_groups[1].group_name(), "pp");
  EXPECT_EQ(m.parallel_groups[1].group_rank(), 1);
  const std::string all = all_diags(diag);
  EXPECT_NE(all.find("distributed_args: a key is written more than once"), std::string::npos)
      << all;
  EXPECT_NE(all.find("parallel_group_info: a group id is written more than once"),
            std::string::npos)
      << all;
  EXPECT_NE(all.find("\"group_rank\" is 2147483648, out of range for a rank"), std::string::npos)
      << all;
  EXPECT_NE(all.find("\"global_ranks\" is -1, out of range"), std::string::npos) << all;
  EXPECT_NE(all.find("1 global rank(s) of parallel_group_info are not below distributed_args' "
                     "world_size 8"),
            std::string::npos)
      << all;
  EXPECT_EQ(diag.error_count(), 0u) << all;
}

TEST(ProfilerInfo, RankIdOutOfRange) {
  for (const char* id : {"-1", "2147483648", "\"99999999999\""}) {
    readers::ProfilerInfo info;
    Diagnostics diag;
    readers::parse_profiler_info(std::string(R"({"rank_id": )") + id + "}", "info.json", info,
                                 diag);
    EXPECT_EQ(info.rank_id, -1) << id;
    EXPECT_EQ(diag.warning_count(), 1u) << id << all_diags(diag);
  }
}

TEST(GroupHash, MatchesPythonDoubleHash) {
  const std::vector<std::string> ids = {
      "",
      "a",
      "10.170.22.98%enp67s0f5_60000_0_1708156014257149",
      "90.90.97.116%enp189s0f0_60000_0_1727235779839829",
      "hccl_world_group",
      "\xc3\xa9\xe4\xb8\xad\xf0\x9f\x98\x80",  // non-ASCII: hashed by code point, as Python does
      std::string(1000, 'z'),
  };
  std::string script = testing::TempDir() + "/" + std::to_string(::getpid()) + "_cs_double_hash.py";
  std::ofstream(script) << "import sys\n"
                           "for a in sys.argv[1:]:\n"
                           "    b = bytes.fromhex(a).decode('utf-8')\n"
                           "    h0 = h1 = 0\n"
                           "    for c in map(ord, b):\n"
                           "        h0 = (h0 * 29 + c) % 2**32\n"
                           "        h1 = (h1 * 131 + c) % 2**32\n"
                           "    print((h0 << 32) | h1)\n";
  std::string cmd = "/usr/bin/python3 " + script;
  std::string ours;
  for (const auto& id : ids) {
    std::string hex = "''";
    if (!id.empty()) {
      hex.clear();
      static const char* digits = "0123456789abcdef";
      for (unsigned char c : id) {
        hex += digits[c >> 4];
        hex += digits[c & 15];
      }
    }
    cmd += " " + hex;
    ours += readers::group_double_hash_str(id) + "\n";
  }
  std::string py = run(cmd);
  std::remove(script.c_str());
  ASSERT_FALSE(py.empty());
  EXPECT_EQ(ours, py);
  EXPECT_EQ(readers::group_double_hash(""), 0u);
  EXPECT_EQ(readers::group_double_hash("a"), (97ull << 32) | 97ull);
}

}  // namespace
}  // namespace cs::io
