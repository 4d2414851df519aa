// Tests of readers/matrix.{h,cpp}: communication_matrix.json and the matrix op type.

#include "readers/matrix.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>

#include "readers/communication_test_util.h"

namespace cs::io {
namespace {

using test::all_diags;
using test::data;
using test::py_num;
using test::run;

const char* kPyFlattenMatrix = R"PY(
import json, sys
NUM = ["Transit Size(MB)", "Transit Time(ms)", "Bandwidth(GB/s)", "Bandwidth(Utilization)",
       "Large Packet Ratio"]
d = json.load(open(sys.argv[1]))
for step, sd in d.items():
    for sec in ("collective", "p2p"):
        for op, links in sd.get(sec, {}).items():
            print("op", step, sec, op, sep="|")
            for link, v in links.items():
                print("link", link, v.get("Transport Type", ""), v.get("Op Name", "-"), sep="|")
                for k in NUM:
                    if k in v:
                        print(k, repr(v[k]), sep="|")
)PY";

std::string flatten_matrix(const readers::MatrixFile& f) {
  std::string out;
  for (const auto& st : f.steps) {
    for (int sec = 0; sec < 2; ++sec) {
      for (const auto& op : sec == 0 ? st.collective : st.p2p) {
        out += "op|" + st.step + (sec == 0 ? "|collective|" : "|p2p|") + op.key + "\n";
        for (const auto& l : op.links) {
          out += "link|" + std::string(f.link_key(l)) + "|" + std::string(l.transport.view()) +
                 "|" + std::string(l.has_op_name ? f.op_name(l) : "-") + "\n";
          out += "Transit Size(MB)|" + py_num(l.num(readers::kLinkSizeMb)) + "\n";
          out += "Transit Time(ms)|" + py_num(l.num(readers::kLinkTimeMs)) + "\n";
          out += "Bandwidth(GB/s)|" + py_num(l.num(readers::kLinkBandwidthGbps)) + "\n";
          if (l.has(readers::kLinkUtilization))
            out += "Bandwidth(Utilization)|" + py_num(l.num(readers::kLinkUtilization)) + "\n";
          if (l.has(readers::kLinkLargePacketRatio))
            out += "Large Packet Ratio|" + py_num(l.num(readers::kLinkLargePacketRatio)) + "\n";
        }
      }
    }
  }
  return out;
}

TEST(Matrix, SameValuesAsPythonJsonModule) {
  const std::string path = data("communication_matrix.json");
  readers::MatrixFile f;
  Diagnostics diag;
  ASSERT_TRUE(readers::read_communication_matrix_json(path, f, diag)) << all_diags(diag);
  EXPECT_TRUE(diag.empty()) << all_diags(diag);
  std::string script =
      testing::TempDir() + "/" + std::to_string(::getpid()) + "_cs_flatten_matrix.py";
  std::ofstream(script) << kPyFlattenMatrix;
  std::string expected = run("/usr/bin/python3 " + script + " '" + path + "'");
  std::remove(script.c_str());
  ASSERT_FALSE(expected.empty());
  EXPECT_EQ(flatten_matrix(f), expected);
}

TEST(Matrix, Structure) {
  readers::MatrixFile f;
  Diagnostics diag;
  ASSERT_TRUE(readers::read_communication_matrix_json(data("communication_matrix.json"), f, diag));
  ASSERT_EQ(f.steps.size(), 2u);
  EXPECT_EQ(f.steps[0].step, "step1");
  ASSERT_EQ(f.steps[0].collective.size(), 3u);
  ASSERT_EQ(f.steps[0].p2p.size(), 1u);
  const readers::MatrixOp& top = f.steps[0].collective[0];
  EXPECT_EQ(top.key, "allreduce-top1@6297232067196334501");
  EXPECT_EQ(top.group(), "6297232067196334501");
  EXPECT_EQ(top.op_part(), "allreduce-top1");
  ASSERT_EQ(top.links.size(), 3u);
  EXPECT_EQ(f.link_key(top.links[0]), "0-1");
  EXPECT_EQ(top.links[0].src_local, 0);
  EXPECT_EQ(top.links[0].dst_local, 1);
  EXPECT_EQ(top.links[0].transport, "HCCS");
  EXPECT_DOUBLE_EQ(top.links[0].get(readers::kLinkBandwidthGbps), 16.9014);
  EXPECT_FALSE(top.links[0].num(readers::kLinkSizeMb).is_int);
  EXPECT_EQ(f.op_name(top.links[0]), "hcom_allReduce__844_2_1");
  EXPECT_EQ(f.link_key(top.links[1]), "1-1");
  EXPECT_EQ(top.links[1].transport, "LOCAL");
  EXPECT_TRUE(top.links[1].num(readers::kLinkSizeMb).is_int);
  EXPECT_EQ(top.links[2].src_local, 1);
  EXPECT_EQ(top.links[2].dst_local, 0);
  // total has no Op Name; a plain op-name key has no group.
  const readers::MatrixOp& total = f.steps[0].collective[1];
  EXPECT_FALSE(total.links[0].has_op_name);
  EXPECT_EQ(f.op_name(total.links[0]), "");
  EXPECT_TRUE(total.links[0].has(readers::kLinkLargePacketRatio));
  const readers::MatrixOp& plain = f.steps[0].collective[2];
  EXPECT_EQ(plain.group(), "");
  EXPECT_EQ(plain.op_part(), "hcom_broadcast__501_0");
  EXPECT_FALSE(plain.links[0].has(readers::kLinkUtilization));
  EXPECT_EQ(plain.links[0].src_local, 2);
  EXPECT_EQ(plain.links[0].dst_local, 3);
  EXPECT_EQ(f.steps[0].p2p[0].links[0].dst_local, 4);
  const readers::MatrixLink& sio = f.steps[1].collective.at(0).links.at(0);
  EXPECT_EQ(sio.transport, "SIO");
  EXPECT_EQ(sio.get(readers::kLinkTimeMs), 1695054582608213.0);
  EXPECT_EQ(sio.get(readers::kLinkSizeMb), 1e-05);
}

TEST(Matrix, OpTypeIsTheLeftmostMatch) {
  EXPECT_EQ(readers::matrix_op_type("hcom_allReduce__844_2_1"), "allreduce");
  EXPECT_EQ(readers::matrix_op_type("hcom_reduceScatter__1_2"), "reduce");
  EXPECT_EQ(readers::matrix_op_type("hcom_alltoallv_3"), "alltoall");
  EXPECT_EQ(readers::matrix_op_type("hcom_allGather__501_4"), "allgather");
  EXPECT_EQ(readers::matrix_op_type("hcom_broadcast__501_0"), "broadcast");
  EXPECT_EQ(readers::matrix_op_type("hcom_send__12_0_1"), "send");
  EXPECT_EQ(readers::matrix_op_type("hcom_receive__12_0_1"), "receive");
  EXPECT_EQ(readers::matrix_op_type("hcom_BatchSendRecv_7"), "batchsendrecv");
  EXPECT_EQ(readers::matrix_op_type("hcom_scatter_1"), "scatter");
  EXPECT_EQ(readers::matrix_op_type("Total Op Info"), "");
  EXPECT_EQ(readers::matrix_op_type(""), "");
}

// The same rule as Python's re.search over the producer's alternation, for many names.
TEST(Matrix, OpTypeMatchesPythonRegex) {
  const std::vector<std::string> names = {
      "hcom_allReduce__844_2_1", "hcom_reduceScatter__1_2", "hcom_alltoallv_3",
      "hcom_alltoallvc_1",       "hcom_BatchSendRecv_7",    "hcom_invalid_x",
      "HcclAllGather",           "hcom_receive_2",          "xyz",
      "hcom_broadcastsend",      "reducescatter",           "allreducesend"};
  std::string script = testing::TempDir() + "/" + std::to_string(::getpid()) + "_cs_optype.py";
  std::ofstream(script) << "import re, sys\n"
                           "p = re.compile('send|reduce|invalid|broadcast|allreduce|receive|"
                           "allgather|reducescatter|scatter|alltoall|alltoallv|alltoallvc|"
                           "batchsendrecv')\n"
                           "for n in sys.argv[1:]:\n"
                           "    m = p.search(n.lower())\n"
                           "    print(m.group(0) if m else '')\n";
  std::string cmd = "/usr/bin/python3 " + script;
  for (const auto& n : names) cmd += " '" + n + "'";
  std::string py = run(cmd);
  std::remove(script.c_str());
  std::string ours;
  for (const auto& n : names) ours += readers::matrix_op_type(n) + "\n";
  ASSERT_FALSE(py.empty());
  EXPECT_EQ(ours, py);
}

TEST(Matrix, DamagedFileKeepsCompleteOpsAndWarns) {
  readers::MatrixFile f;
  Diagnostics diag;
  ASSERT_TRUE(readers::read_communication_matrix_json(data("matrix_damaged.json"), f, diag))
      << all_diags(diag);
  const std::string all = all_diags(diag);
  ASSERT_EQ(f.steps.size(), 1u);
  // allreduce-middle is cut inside its second link: only the complete op is kept.
  ASSERT_EQ(f.steps[0].collective.size(), 1u);
  const readers::MatrixOp& op = f.steps[0].collective[0];
  ASSERT_EQ(op.links.size(), 3u);
  EXPECT_EQ(op.links[0].transport, "");  // 7 is not a string
  EXPECT_DOUBLE_EQ(op.links[0].get(readers::kLinkBandwidthGbps), 16.9);
  EXPECT_EQ(f.op_name(op.links[0]), "hcom_allReduce_1");
  EXPECT_EQ(op.links[1].src_local, -1);
  EXPECT_EQ(op.links[2].src_local, -1);
  EXPECT_EQ(diag.error_count(), 1u) << all;
  EXPECT_NE(all.find("\"Transport Type\" is a number, expected a string"), std::string::npos)
      << all;
  EXPECT_NE(all.find("\"Transit Size(MB)\" is a string, expected a number"), std::string::npos)
      << all;
  EXPECT_NE(all.find("\"Transit Time(ms)\" is NaN, not a finite number"), std::string::npos) << all;
  EXPECT_NE(all.find("link \"x-y\" is not"), std::string::npos) << all;
  EXPECT_NE(all.find("link \"3-\" is not"), std::string::npos) << all;
  EXPECT_NE(all.find("ends early"), std::string::npos) << all;
  EXPECT_NE(all.find(":9: the file ends early at byte "), std::string::npos) << all;
}

TEST(Matrix, BadFiles) {
  for (const char* name : {"empty.json", "binary.json", "not_object.json", "missing.json"}) {
    SCOPED_TRACE(name);
    readers::MatrixFile f;
    Diagnostics diag;
    EXPECT_FALSE(readers::read_communication_matrix_json(data(name), f, diag));
    EXPECT_EQ(diag.error_count(), 1u) << all_diags(diag);
    EXPECT_TRUE(f.steps.empty());
  }
}

TEST(Matrix, EveryPrefixIsReadSafely) {
  std::ifstream in(data("communication_matrix.json"));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  readers::MatrixFile full;
  Diagnostics d0;
  ASSERT_TRUE(readers::parse_communication_matrix_json(text, "full", full, d0));
  const std::string flat_full = flatten_matrix(full);
  for (size_t n = 0; n + 1 < text.size(); ++n) {
    readers::MatrixFile f;
    Diagnostics diag;
    readers::parse_communication_matrix_json(std::string_view(text).substr(0, n), "cut", f, diag);
    ASSERT_TRUE(diag.has_errors()) << n;
    std::string flat = flatten_matrix(f);
    ASSERT_EQ(flat_full.compare(0, flat.size(), flat), 0) << n;
  }
}

// Every rank's links are held at once: a link is 64 bytes, and repeated texts are kept once.
TEST(Matrix, LinksStayCompactAndShareTheirTexts) {
  EXPECT_LE(sizeof(readers::MatrixLink), 64u);
  const std::string text = R"({"step1": {"collective": {
    "allreduce-top1@9": {"0-1": {"Transport Type": "HCCS", "Op Name": "hcom_allReduce__1"},
                         "1-0": {"Transport Type": "HCCS", "Op Name": "hcom_allReduce__1"}},
    "allreduce-top2@9": {"0-1": {"Transport Type": "UB", "Op Name": "hcom_allReduce__2"}}}}})";
  readers::MatrixFile f;
  Diagnostics diag;
  ASSERT_TRUE(readers::parse_communication_matrix_json(text, "texts", f, diag));
  const auto& ops = f.steps.at(0).collective;
  ASSERT_EQ(ops.size(), 2u);
  const readers::MatrixLink& a = ops[0].links.at(0);
  const readers::MatrixLink& b = ops[0].links.at(1);
  const readers::MatrixLink& c = ops[1].links.at(0);
  EXPECT_EQ(a.op_name_id, b.op_name_id);  // one copy of the text
  EXPECT_EQ(a.link_id, c.link_id);
  EXPECT_NE(a.op_name_id, c.op_name_id);
  EXPECT_EQ(f.texts->size(), 4u);  // "0-1", "1-0" and two op names
  EXPECT_EQ(c.transport, "UB");
  // A copy of the file shares the texts, so they outlive the original.
  readers::MatrixFile copy;
  {
    readers::MatrixFile moved = f;
    f = readers::MatrixFile{};
    copy = moved;
  }
  EXPECT_EQ(copy.op_name(copy.steps[0].collective[1].links[0]), "hcom_allReduce__2");
}

}  // namespace
}  // namespace cs::io
