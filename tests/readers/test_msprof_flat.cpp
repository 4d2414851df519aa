// CANN msprof's flat analyze/communication.json and communication_matrix.json (docs/formats.md
// §1b): recognised by their content and adapted as msprof-analyze's MsprofCommunicationTime- and
// MsprofCommunicationMatrixAdapter do (readers/msprof_matrix_adapter.h).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "readers/communication.h"
#include "readers/communication_test_util.h"
#include "readers/matrix.h"
#include "support/test_files.h"

namespace cs::io {
namespace {

using test::all_diags;
using test::py_num;

std::string op_json(double elapse) {
  return R"J({"Communication Time Info": {"Elapse Time(ms)": )J" + std::to_string(elapse) +
         R"J(}, "Communication Bandwidth Info": {}})J";
}

std::vector<std::string> names(const std::vector<readers::CommOp>& ops) {
  std::vector<std::string> out;
  for (const auto& op : ops) out.push_back(op.name);
  return out;
}

TEST(MsprofFlatCommunication, SplitsP2pFromCollectiveAndSkipsTotals) {
  const std::string json =
      "{\"hcom_allReduce__520_0_1@82\": " + op_json(1) + ", \"HCOM_Send__1_0@9\": " + op_json(2) +
      ", \"hcom_receive__2_0@9\": " + op_json(3) +
      ", \"hcom_BatchSendRecv__3_0@9\": " + op_json(4) + ", \"Total Op Info\": " + op_json(5) +
      ", \"TOTAL_2\": " + op_json(6) + ", \"hcom_broadcast__7_1@82\": " + op_json(7) + "}";
  readers::CommunicationFile f;
  Diagnostics d;
  ASSERT_TRUE(readers::parse_communication_json(json, "communication.json", f, d)) << all_diags(d);
  ASSERT_EQ(f.steps.size(), 1u);
  const readers::CommStep& s = f.steps[0];
  EXPECT_EQ(s.step, "step");
  EXPECT_TRUE(s.p2p_first);
  EXPECT_EQ(names(s.collective),
            (std::vector<std::string>{"hcom_allReduce__520_0_1@82", "hcom_broadcast__7_1@82"}));
  EXPECT_EQ(names(s.p2p), (std::vector<std::string>{"HCOM_Send__1_0@9", "hcom_receive__2_0@9",
                                                    "hcom_BatchSendRecv__3_0@9"}));
  EXPECT_EQ(s.collective[1].time.get(readers::kElapseTimeMs), 7.0);
  EXPECT_EQ(d.warning_count(), 0u) << all_diags(d);
}

TEST(MsprofFlatCommunication, SteppedLayoutStillReadAsSteps) {
  const std::string json =
      "{\"step1\": {\"collective\": {\"hcom_allReduce__1_0@8\": " + op_json(1) + "}, \"p2p\": {}}}";
  readers::CommunicationFile f;
  Diagnostics d;
  ASSERT_TRUE(readers::parse_communication_json(json, "communication.json", f, d)) << all_diags(d);
  ASSERT_EQ(f.steps.size(), 1u);
  EXPECT_EQ(f.steps[0].step, "step1");
  EXPECT_FALSE(f.steps[0].p2p_first);
  EXPECT_EQ(f.steps[0].collective.size(), 1u);
}

TEST(MsprofFlatCommunication, OpWrittenTwiceKeepsTheLastValue) {
  const std::string json = "{\"hcom_allReduce__1_0@8\": " + op_json(1) +
                           ", \"hcom_allGather__1_1@8\": " + op_json(2) +
                           ", \"hcom_allReduce__1_0@8\": " + op_json(3) + "}";
  readers::CommunicationFile f;
  Diagnostics d;
  ASSERT_TRUE(readers::parse_communication_json(json, "communication.json", f, d)) << all_diags(d);
  ASSERT_EQ(f.steps.size(), 1u);
  ASSERT_EQ(names(f.steps[0].collective),
            (std::vector<std::string>{"hcom_allReduce__1_0@8", "hcom_allGather__1_1@8"}));
  EXPECT_EQ(f.steps[0].collective[0].time.get(readers::kElapseTimeMs), 3.0);
  EXPECT_EQ(d.warning_count(), 1u) << all_diags(d);
}

// One flat matrix instance with one link "0-1" of the given bandwidth, size and time.
std::string instance(const std::string& key, const std::string& bw, const std::string& size = "1",
                     const std::string& time = "2", const std::string& link = "0-1") {
  return "\"" + key + "\": {\"" + link +
         "\": {\"Transport Type\": \"HCCS\", \"Transit Size(MB)\": " + size +
         ", \"Transit Time(ms)\": " + time + ", \"Bandwidth(GB/s)\": " + bw +
         ", \"Bandwidth(Utilization)\": 0.5, \"Large Packet Ratio\": 0.0}}";
}

struct Row {
  std::string key, op_name, bandwidth;
};

std::vector<Row> rows(const readers::MatrixFile& f, const std::vector<readers::MatrixOp>& ops) {
  std::vector<Row> out;
  for (const auto& op : ops)
    for (const auto& l : op.links)
      out.push_back(
          {op.key, std::string(f.op_name(l)), py_num(l.num(readers::kLinkBandwidthGbps))});
  return out;
}

TEST(MsprofFlatMatrix, TopMiddleBottomByBandwidthTiesInFileOrder) {
  // Bandwidths 5, 7, 5, 3: sorted descending, the two 5s keep file order (a, c).
  const std::string json = "{" + instance("hcom_allReduce__1_0_1@g", "5") + ", " +
                           instance("hcom_allReduce__1_1_1@g", "7") + ", " +
                           instance("hcom_allReduce__1_2_1@g", "5.0") + ", " +
                           instance("hcom_allReduce__1_3_1@g", "3", "2.5", "0.5") + "}";
  readers::MatrixFile f;
  Diagnostics d;
  ASSERT_TRUE(readers::parse_communication_matrix_json(json, "communication_matrix.json", f, d))
      << all_diags(d);
  ASSERT_EQ(f.steps.size(), 1u);
  const readers::MatrixStep& s = f.steps[0];
  EXPECT_EQ(s.step, "step");
  EXPECT_TRUE(s.p2p_first);
  EXPECT_TRUE(s.p2p.empty());
  const auto r = rows(f, s.collective);
  ASSERT_EQ(r.size(), 6u);
  // Keys in msprof-analyze's dict order: top1, middle, bottom1, total, bottom2, bottom3.
  EXPECT_EQ(r[0].key, "allreduce-top1@g");
  EXPECT_EQ(r[0].op_name, "hcom_allReduce__1_1_1");
  EXPECT_EQ(r[1].key, "allreduce-middle@g");  // index 4 / 2 = 2: the second 5
  EXPECT_EQ(r[1].op_name, "hcom_allReduce__1_2_1");
  EXPECT_EQ(r[2].key, "allreduce-bottom1@g");
  EXPECT_EQ(r[2].op_name, "hcom_allReduce__1_3_1");
  EXPECT_EQ(r[3].key, "allreduce-total@g");
  EXPECT_EQ(r[3].op_name, "");
  EXPECT_EQ(r[4].key, "allreduce-bottom2@g");
  EXPECT_EQ(r[4].op_name, "hcom_allReduce__1_2_1");
  EXPECT_EQ(r[5].key, "allreduce-bottom3@g");
  EXPECT_EQ(r[5].op_name, "hcom_allReduce__1_0_1");
  // The total: sizes 1+1+1+2.5 = 5.5 MB over 2+2+2+0.5 = 6.5 ms, round(5.5 / 6.5, 4).
  const readers::MatrixLink& t = s.collective[3].links[0];
  EXPECT_EQ(py_num(t.num(readers::kLinkSizeMb)), "5.5");
  EXPECT_EQ(py_num(t.num(readers::kLinkTimeMs)), "6.5");
  EXPECT_EQ(r[3].bandwidth, "0.8462");
  EXPECT_FALSE(t.has(readers::kLinkUtilization));
  EXPECT_FALSE(t.has_op_name);
  EXPECT_EQ(t.transport.view(), "HCCS");
}

TEST(MsprofFlatMatrix, OneInstanceHasNoBottom2And3AndZeroTimeTotalIsIntZero) {
  const std::string json = "{" + instance("hcom_allGather__4_0@h", "0", "0", "0") + "}";
  readers::MatrixFile f;
  Diagnostics d;
  ASSERT_TRUE(readers::parse_communication_matrix_json(json, "m.json", f, d)) << all_diags(d);
  const auto r = rows(f, f.steps.at(0).collective);
  ASSERT_EQ(r.size(), 4u);
  EXPECT_EQ(r[0].key, "allgather-top1@h");
  EXPECT_EQ(r[3].key, "allgather-total@h");
  EXPECT_EQ(r[3].bandwidth, "0");  // compute_ratio: an int 0 when the time is 0
  EXPECT_EQ(py_num(f.steps[0].collective[3].links[0].num(readers::kLinkSizeMb)),
            "0");  // sum of ints
}

TEST(MsprofFlatMatrix, P2pSplitTotalSkippedUnknownTypeNamedBeforeDoubleUnderscore) {
  const std::string json = "{" + instance("hcom_send__9_0@p", "2") + ", " +
                           instance("Total Op Info", "1") + ", " +
                           instance("hcom_myOp__12_0@g", "4") + ", " +
                           instance("hcom_myOp__12_1@g", "6", "1", "2", "1-0") + "}";
  readers::MatrixFile f;
  Diagnostics d;
  ASSERT_TRUE(readers::parse_communication_matrix_json(json, "m.json", f, d)) << all_diags(d);
  const readers::MatrixStep& s = f.steps.at(0);
  const auto p = rows(f, s.p2p);
  ASSERT_EQ(p.size(), 4u);
  EXPECT_EQ(p[0].key, "send-top1@p");
  EXPECT_EQ(p[0].op_name, "hcom_send__9_0");
  const auto c = rows(f, s.collective);
  ASSERT_EQ(c.size(), 8u);  // two links, each top1/middle/bottom1/total, no Total Op Info
  EXPECT_EQ(c[0].key, "hcom_myOp-top1@g");
  EXPECT_EQ(f.link_key(s.collective[0].links[0]), "0-1");
  EXPECT_EQ(f.link_key(s.collective[0].links[1]), "1-0");  // the second link, same key
  EXPECT_EQ(s.collective.size(), 4u);
  ASSERT_EQ(d.warning_count(), 1u) << all_diags(d);  // one message for the unknown type
  EXPECT_NE(all_diags(d).find("'hcom_myOp'"), std::string::npos) << all_diags(d);
}

TEST(MsprofFlatMatrix, SteppedLayoutStillReadAsSteps) {
  const std::string json =
      "{\"step1\": {\"collective\": {" + instance("allreduce-top1@g", "5") + "}}}";
  readers::MatrixFile f;
  Diagnostics d;
  ASSERT_TRUE(readers::parse_communication_matrix_json(json, "m.json", f, d)) << all_diags(d);
  ASSERT_EQ(f.steps.size(), 1u);
  EXPECT_EQ(f.steps[0].step, "step1");
  ASSERT_EQ(f.steps[0].collective.size(), 1u);
  EXPECT_EQ(f.steps[0].collective[0].key, "allreduce-top1@g");
  EXPECT_FALSE(f.steps[0].collective[0].links[0].has_op_name);
}

}  // namespace
}  // namespace cs::io
