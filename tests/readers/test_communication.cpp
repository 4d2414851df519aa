// Tests of readers/communication.{h,cpp}: communication.json as Python's json module reads it,
// and truncated files (the other kinds of damage: test_communication_damage.cpp).

#include "readers/communication.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <random>
#include <sstream>

#include "readers/communication_test_util.h"

namespace cs::io {
namespace {

using test::all_diags;
using test::data;
using test::py_num;
using test::run;
using test::slurp;

// What Python's json module reads from a communication.json, one value per line, in the order
// the reader keeps (time fields in producer order, the rest in file order).
const char* kPyFlattenCommunication = R"PY(
import json, sys
TIME = ["Start Timestamp(us)", "Elapse Time(ms)", "Transit Time(ms)", "Wait Time(ms)",
        "Synchronization Time(ms)", "Idle Time(ms)", "Wait Time Ratio", "Synchronization Time Ratio"]
TR = ["Transit Size(MB)", "Transit Time(ms)", "Bandwidth(GB/s)", "Large Packet Ratio"]
d = json.load(open(sys.argv[1]))
for step, sd in d.items():
    for sec in ("collective", "p2p"):
        for op, ob in sd.get(sec, {}).items():
            print("op", step, sec, op, sep="|")
            t = ob.get("Communication Time Info")
            if t is not None:
                for k in TIME:
                    if k in t:
                        print(k, repr(t[k]), sep="|")
            for tr, ti in ob.get("Communication Bandwidth Info", {}).items():
                print("transport", tr, sep="|")
                for k in TR:
                    if k in ti:
                        print(k, repr(ti[k]), sep="|")
                for sk, (c, du) in ti.get("Size Distribution", {}).items():
                    print("sd", sk, repr(c), repr(du), sep="|")
)PY";

std::string flatten_communication(const readers::CommunicationFile& f) {
  std::string out;
  for (const auto& st : f.steps) {
    for (int sec = 0; sec < 2; ++sec) {
      const auto& ops = sec == 0 ? st.collective : st.p2p;
      for (const auto& op : ops) {
        out += "op|" + st.step + (sec == 0 ? "|collective|" : "|p2p|") + op.name + "\n";
        if (op.has_time_info) {
          for (int i = 0; i < readers::kTimeFieldCount; ++i) {
            auto fld = static_cast<readers::TimeField>(i);
            if (op.time.has(fld))
              out += std::string(readers::kTimeFieldNames[i]) + "|" + py_num(op.time.num(i)) + "\n";
          }
        }
        for (const auto& tr : op.transports) {
          out += "transport|" + std::string(tr.name.view()) + "\n";
          if (tr.has(readers::kTrSizeMb))
            out += "Transit Size(MB)|" + py_num(tr.num(readers::kTrSizeMb)) + "\n";
          if (tr.has(readers::kTrTimeMs))
            out += "Transit Time(ms)|" + py_num(tr.num(readers::kTrTimeMs)) + "\n";
          if (tr.has(readers::kTrBandwidthGbps))
            out += "Bandwidth(GB/s)|" + py_num(tr.num(readers::kTrBandwidthGbps)) + "\n";
          if (tr.has(readers::kTrLargePacketRatio))
            out += "Large Packet Ratio|" + py_num(tr.num(readers::kTrLargePacketRatio)) + "\n";
          for (const auto& b : op.size_distribution(tr))
            out += "sd|" + b.size_key + "|" + py_num(b.count) + "|" + py_num(b.duration_ms) + "\n";
        }
      }
    }
  }
  return out;
}

std::string python_flatten(const std::string& path) {
  std::string script =
      testing::TempDir() + "/" + std::to_string(::getpid()) + "_cs_flatten_comm.py";
  std::ofstream(script) << kPyFlattenCommunication;
  std::string out = run("/usr/bin/python3 " + script + " '" + path + "'");
  std::remove(script.c_str());
  return out;
}

TEST(Communication, SameValuesAsPythonJsonModule) {
  for (const char* name : {"rank0_communication.json", "rank0_communication_indented.json",
                           "rank1_communication.json", "escaped_communication.json"}) {
    SCOPED_TRACE(name);
    readers::CommunicationFile f;
    Diagnostics diag;
    ASSERT_TRUE(readers::read_communication_json(data(name), f, diag)) << all_diags(diag);
    EXPECT_TRUE(diag.empty()) << all_diags(diag);
    std::string expected = python_flatten(data(name));
    ASSERT_FALSE(expected.empty());
    EXPECT_EQ(flatten_communication(f), expected);
  }
}

TEST(Communication, RankZeroStructure) {
  readers::CommunicationFile f;
  Diagnostics diag;
  ASSERT_TRUE(readers::read_communication_json(data("rank0_communication.json"), f, diag));
  ASSERT_EQ(f.steps.size(), 1u);
  const readers::CommStep& st = f.steps[0];
  EXPECT_EQ(st.step, "step");
  ASSERT_EQ(st.collective.size(), 3u);
  ASSERT_EQ(st.p2p.size(), 2u);
  const readers::CommOp& op = st.collective[0];
  EXPECT_EQ(op.name, "hcom_broadcast__501_0@6297232067196334501");
  EXPECT_EQ(op.op_name(), "hcom_broadcast__501_0");
  EXPECT_EQ(op.group(), "6297232067196334501");
  EXPECT_FALSE(op.is_total());
  EXPECT_TRUE(op.has_time_info);
  EXPECT_DOUBLE_EQ(op.time.get(readers::kStartTimestampUs), 1695054582608213.0);
  EXPECT_FALSE(op.time.num(readers::kStartTimestampUs).is_int);
  EXPECT_DOUBLE_EQ(op.time.get(readers::kElapseTimeMs), 121.73694384375);
  ASSERT_EQ(op.transports.size(), 4u);
  EXPECT_EQ(op.transports[0].name, "RDMA");
  EXPECT_EQ(op.transports[3].name, "SDMA");
  // `0` stays an int and `0.0` a float, as Python would print them back.
  EXPECT_TRUE(op.transports[0].num(readers::kTrSizeMb).is_int);
  EXPECT_FALSE(op.transports[1].num(readers::kTrLargePacketRatio).is_int);
  EXPECT_TRUE(op.transports[0].has_size_distribution);
  EXPECT_TRUE(op.size_distribution(op.transports[0]).empty());
  const auto sd = op.size_distribution(op.transports[1]);
  ASSERT_EQ(sd.size(), 3u);
  EXPECT_EQ(sd[0].size_key, "0.003072");
  EXPECT_TRUE(sd[0].count.is_int);
  EXPECT_EQ(sd[0].count.v, 18);
  EXPECT_DOUBLE_EQ(sd[0].duration_ms.v, 0.0202498125);
  EXPECT_EQ(sd[2].size_key, "0.002752");

  const readers::CommOp& total = st.collective[2];
  EXPECT_TRUE(total.is_total());
  EXPECT_EQ(total.group(), "");
  EXPECT_EQ(total.op_name(), "Total Op Info");
  // The producer bug kept in the sample: Total Op Info's RDMA has no Bandwidth(GB/s).
  ASSERT_EQ(total.transports[0].name, "RDMA");
  EXPECT_FALSE(total.transports[0].has(readers::kTrBandwidthGbps));
  EXPECT_TRUE(total.transports[1].has(readers::kTrBandwidthGbps));

  EXPECT_EQ(st.p2p[0].name, "hcom_send__501_2@6297232067196334501");
  EXPECT_EQ(st.p2p[1].name, "hcom_receive__501_3@6297232067196334501");
}

TEST(Communication, StepsUnknownKeysAndMissingTransports) {
  readers::CommunicationFile f;
  Diagnostics diag;
  ASSERT_TRUE(readers::read_communication_json(data("rank1_communication.json"), f, diag));
  EXPECT_TRUE(diag.empty()) << all_diags(diag);
  ASSERT_EQ(f.steps.size(), 2u);
  EXPECT_EQ(f.steps[0].step, "step1");
  EXPECT_EQ(f.steps[1].step, "step2");
  ASSERT_EQ(f.steps[0].collective.size(), 3u);
  EXPECT_TRUE(f.steps[0].p2p.empty());
  const readers::CommOp& gather = f.steps[0].collective[2];
  EXPECT_EQ(gather.name, "hcom_allGather__501_4@6297232067196334501");
  EXPECT_TRUE(gather.has_time_info);
  EXPECT_FALSE(gather.has_bandwidth_info);
  EXPECT_TRUE(gather.transports.empty());
  const readers::CommOp& with_sio = f.steps[0].collective[1];
  ASSERT_EQ(with_sio.transports.size(), 5u);
  EXPECT_EQ(with_sio.transports[4].name, "SIO");
  EXPECT_DOUBLE_EQ(with_sio.transports[4].get(readers::kTrBandwidthGbps), 6.0);
  EXPECT_TRUE(f.steps[1].collective.empty());
  ASSERT_EQ(f.steps[1].p2p.size(), 1u);
  EXPECT_EQ(f.steps[1].p2p[0].name, "hcom_batchSendRecv__7_1@6297232067196334501");
}

TEST(Communication, EscapedKeysAreUnescaped) {
  readers::CommunicationFile f;
  Diagnostics diag;
  ASSERT_TRUE(readers::read_communication_json(data("escaped_communication.json"), f, diag));
  ASSERT_EQ(f.steps.size(), 1u);
  EXPECT_EQ(f.steps[0].step, "step");
  ASSERT_EQ(f.steps[0].collective.size(), 1u);
  EXPECT_EQ(f.steps[0].collective[0].name, "hcom_\"odd\"_op@5");
  EXPECT_EQ(f.steps[0].collective[0].transports[0].name, "HCCS");
  EXPECT_DOUBLE_EQ(f.steps[0].collective[0].time.get(readers::kElapseTimeMs), 1.5);
}

TEST(Communication, P2pOpNames) {
  EXPECT_TRUE(readers::is_p2p_op_name("hcom_send__501_2"));
  EXPECT_TRUE(readers::is_p2p_op_name("HCOM_Receive_1"));
  EXPECT_TRUE(readers::is_p2p_op_name("hcom_batchSendRecv__7_1"));
  EXPECT_FALSE(readers::is_p2p_op_name("hcom_allReduce__844_2_1"));
  EXPECT_FALSE(readers::is_p2p_op_name("hcom_sen"));
  EXPECT_FALSE(readers::is_p2p_op_name("Total Op Info"));
  EXPECT_FALSE(readers::is_p2p_op_name(""));
}

TEST(Communication, ParseFromMemoryEqualsReadFromFile) {
  std::string text = slurp(data("rank0_communication.json"));
  readers::CommunicationFile a, b;
  Diagnostics da, db;
  ASSERT_TRUE(readers::parse_communication_json(text, "mem", a, da));
  ASSERT_TRUE(readers::read_communication_json(data("rank0_communication.json"), b, db));
  EXPECT_EQ(flatten_communication(a), flatten_communication(b));
}

TEST(Communication, TruncatedFileKeepsCompleteOpsAndSaysWhere) {
  const std::string path = data("truncated_communication.json");
  const std::string text = slurp(path);
  readers::CommunicationFile f;
  Diagnostics diag;
  ASSERT_TRUE(readers::read_communication_json(path, f, diag)) << all_diags(diag);
  ASSERT_EQ(f.steps.size(), 1u);
  // The two real ops before the damage are complete; the cut Total Op Info is not kept.
  ASSERT_EQ(f.steps[0].collective.size(), 2u);
  EXPECT_EQ(f.steps[0].collective[1].name, "hcom_broadcast__501_1@6297232067196334501");
  EXPECT_EQ(f.steps[0].collective[1].transports.size(), 4u);
  EXPECT_TRUE(f.steps[0].p2p.empty());
  ASSERT_EQ(diag.error_count(), 1u) << all_diags(diag);
  const Diagnostic& d = diag.items()[0];
  EXPECT_EQ(d.file, path);
  EXPECT_EQ(d.offset, static_cast<int64_t>(text.size()));
  int64_t lines = 1 + std::count(text.begin(), text.end(), '\n');
  EXPECT_EQ(d.line, lines);
  EXPECT_GT(d.line, 100);
  EXPECT_NE(d.what.find("ends early"), std::string::npos) << d.what;
  EXPECT_NE(d.what.find("byte " + std::to_string(text.size())), std::string::npos) << d.what;
  EXPECT_NE(d.hint.find("was the profiler stopped before it finished writing?"), std::string::npos);
  // The full values of what was kept are those of the complete file.
  readers::CommunicationFile full;
  Diagnostics d2;
  ASSERT_TRUE(readers::read_communication_json(data("rank0_communication.json"), full, d2));
  full.steps[0].collective.resize(2);
  full.steps[0].p2p.clear();
  EXPECT_EQ(flatten_communication(f), flatten_communication(full));
}

TEST(Communication, TruncatedInsideAString) {
  readers::CommunicationFile f;
  Diagnostics diag;
  ASSERT_TRUE(
      readers::read_communication_json(data("truncated_in_string_communication.json"), f, diag));
  ASSERT_EQ(f.steps.size(), 1u);
  EXPECT_EQ(f.steps[0].collective.size(), 3u);
  ASSERT_EQ(f.steps[0].p2p.size(), 1u);
  EXPECT_EQ(f.steps[0].p2p[0].name, "hcom_send__501_2@6297232067196334501");
  ASSERT_EQ(diag.error_count(), 1u);
  EXPECT_NE(diag.items()[0].what.find("inside a string"), std::string::npos);
}

// Every prefix of a real file: never a crash, and what is kept is always a prefix of the ops of
// the whole file, value for value.
TEST(Communication, EveryPrefixIsReadSafely) {
  const std::string text = slurp(data("rank0_communication.json"));
  readers::CommunicationFile full;
  Diagnostics d0;
  ASSERT_TRUE(readers::parse_communication_json(text, "full", full, d0));
  const std::string full_flat = flatten_communication(full);
  size_t last_len = 0;
  for (size_t n = 0; n < text.size(); ++n) {
    readers::CommunicationFile f;
    Diagnostics diag;
    bool ok =
        readers::parse_communication_json(std::string_view(text).substr(0, n), "cut", f, diag);
    ASSERT_TRUE(diag.has_errors()) << "prefix " << n;
    std::string flat = flatten_communication(f);
    ASSERT_EQ(full_flat.compare(0, flat.size(), flat), 0) << "prefix " << n;
    if (ok) {
      ASSERT_FALSE(flat.empty()) << "prefix " << n;
    }
    ASSERT_GE(flat.size(), last_len) << "prefix " << n;  // more text never loses ops
    last_len = flat.size();
  }
}

}  // namespace
}  // namespace cs::io
