// io/comm_keys.h: the one spelling of "Total Op Info / derived key", and msprof-analyze's looser
// tests where its documents need them.
#include "io/comm_keys.h"

#include <gtest/gtest.h>

namespace cs::io {
namespace {

TEST(CommKeys, TotalOpInfo) {
  EXPECT_TRUE(is_total_op_info("Total Op Info"));
  EXPECT_TRUE(is_total_op_info("Total Op Info@6297232067196334501"));
  EXPECT_FALSE(is_total_op_info("Total Op Information"));
  EXPECT_FALSE(is_total_op_info("Totals"));
  EXPECT_FALSE(is_total_op_info("hcom_allReduce__844_2_1@1368"));
}

TEST(CommKeys, DerivedMatrixKeys) {
  EXPECT_TRUE(is_derived_matrix_key("allreduce-top1@123"));
  EXPECT_TRUE(is_derived_matrix_key("allreduce-middle@123"));
  EXPECT_TRUE(is_derived_matrix_key("allgather-bottom3@123"));
  EXPECT_TRUE(is_derived_matrix_key("Total Op Info@123"));
  EXPECT_TRUE(is_derived_matrix_key("send-top1"));  // no group
  EXPECT_FALSE(is_derived_matrix_key("allreduce-total@123"));
  EXPECT_FALSE(is_derived_matrix_key("hcom_send__1_0_1@5"));
  EXPECT_FALSE(is_derived_matrix_key("hcom_topology_sync@5"));  // "top" without the dash
}

TEST(CommKeys, MatrixTotalKeys) {
  EXPECT_TRUE(is_matrix_total_key("allreduce-total@123"));
  EXPECT_TRUE(is_matrix_total_key("AllReduce-Total@123"));  // any case
  EXPECT_TRUE(is_matrix_total_key("send-total"));           // no group
  EXPECT_FALSE(is_matrix_total_key("Total Op Info@123"));
  EXPECT_FALSE(is_matrix_total_key("allreduce_total@123"));  // the dash is part of it
  EXPECT_FALSE(is_matrix_total_key("allreduce\rtotal@1"));   // not a case of '-'
  EXPECT_FALSE(is_matrix_total_key("-tota"));
}

// Where msprof-analyze's own tests differ from ours (names no producer writes), our documents
// follow msprof-analyze's.
TEST(CommKeys, MsprofQuirks) {
  EXPECT_TRUE(msprof_is_total("Total Op Info"));
  EXPECT_TRUE(msprof_is_total("Totally_custom_op"));  // startswith("Total")
  EXPECT_FALSE(is_total_op_info("Totally_custom_op"));
  EXPECT_TRUE(msprof_is_matrix_statistic_key("allreduce-top1@1"));
  EXPECT_TRUE(msprof_is_matrix_statistic_key("hcom_topology_sync@5"));  // "top" anywhere
  EXPECT_FALSE(is_derived_matrix_key("hcom_topology_sync@5"));
  EXPECT_FALSE(msprof_is_matrix_statistic_key("hcom_send__1_0_1@5"));
}

TEST(CommKeys, MsprofFlatTotalIsAnyCaseTotalPrefix) {
  EXPECT_TRUE(msprof_flat_is_total("Total Op Info"));
  EXPECT_TRUE(msprof_flat_is_total("TOTAL"));
  EXPECT_TRUE(msprof_flat_is_total("totally_custom@1"));
  EXPECT_FALSE(msprof_flat_is_total("tota"));
  EXPECT_FALSE(msprof_flat_is_total("hcom_total@1"));
}

}  // namespace
}  // namespace cs::io
