// cluster/cluster_mode.h: -m and --format through their tables.
#include "cluster/cluster_mode.h"

#include <gtest/gtest.h>

namespace cs::cluster {
namespace {

TEST(ClusterMode, EveryModeRoundTripsThroughItsName) {
  for (const auto& [name, mode] : kModeNames) {
    EXPECT_EQ(mode_name(mode), name);
    EXPECT_EQ(runtime::enum_from_name(kModeNames, name), mode);
  }
  EXPECT_EQ(runtime::enum_from_name(kModeNames, "communication"), std::nullopt);
}

TEST(ClusterMode, FormatsParseAndAllExpands) {
  OutputFormats f;
  std::string error;
  ASSERT_TRUE(parse_output_formats("all", f, error)) << error;
  EXPECT_EQ(f, (OutputFormats{OutputFormat::kJson, OutputFormat::kCsv, OutputFormat::kHdf5,
                              OutputFormat::kHtml}));
  ASSERT_TRUE(parse_output_formats("csv,json,", f, error)) << error;
  EXPECT_EQ(f, (OutputFormats{OutputFormat::kJson, OutputFormat::kCsv}));
  EXPECT_FALSE(parse_output_formats("json,cvs", f, error));
  EXPECT_EQ(error, "unknown format 'cvs' \u2014 valid: all, json, csv, hdf5, html");
  EXPECT_FALSE(parse_output_formats("json,,csv", f, error));
  EXPECT_EQ(error, "unknown format '' \u2014 valid: all, json, csv, hdf5, html");
  EXPECT_FALSE(parse_output_formats("", f, error));
  EXPECT_EQ(error, "no format given \u2014 valid: all, json, csv, hdf5, html");
}

TEST(ClusterMode, OpTablesChoicesAndTheTablesTheyPlace) {
  EXPECT_EQ(runtime::enum_from_name(kOpTablesNames, "csv.gz"), OpTables::kCsvGz);
  EXPECT_EQ(runtime::enum_from_name(kOpTablesNames, "hdf5"), OpTables::kHdf5);
  EXPECT_EQ(runtime::enum_from_name(kOpTablesNames, "gz"), std::nullopt);
  EXPECT_EQ(runtime::enum_names(kOpTablesNames), "hdf5, csv, csv.gz");
  EXPECT_TRUE(is_op_table("communication_ops"));
  EXPECT_TRUE(is_op_table("communication_matrix"));
  // Tables that grow with ranks and groups stay CSV files.
  for (const char* t : {"communication_bandwidth", "comm_rank_summary", "step_trace",
                        "rank_manifest", "memory_curves"})
    EXPECT_FALSE(is_op_table(t)) << t;
}

TEST(ClusterMode, FilesEachModeReads) {
  const load::ParseOptions ops = parse_options_for_mode(Mode::kOperators, {});
  EXPECT_FALSE(ops.communication);
  EXPECT_FALSE(ops.matrix);
  EXPECT_TRUE(ops.kernels);
  EXPECT_FALSE(ops.step_trace);
  const load::ParseOptions st = parse_options_for_mode(Mode::kStepTrace, {});
  EXPECT_TRUE(st.communication);
  EXPECT_TRUE(st.step_trace);
  EXPECT_FALSE(st.kernels);
  const load::ParseOptions all = parse_options_for_mode(Mode::kAll, {});
  EXPECT_TRUE(all.communication && all.matrix && all.step_trace && all.kernels);
}

}  // namespace
}  // namespace cs::cluster
