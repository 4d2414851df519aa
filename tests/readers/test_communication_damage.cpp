// Tests of readers/communication.{h,cpp}: every kind of damage a real communication.json can
// have (truncation, random bytes, wrong types, repeated keys, odd numbers, too many buckets).

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>

#include "readers/communication.h"
#include "readers/communication_test_util.h"

namespace cs::io {
namespace {

using test::all_diags;
using test::data;
using test::slurp;

TEST(Communication, RandomByteDamageNeverCrashes) {
  const std::string text = slurp(data("rank0_communication.json"));
  std::mt19937 rng(12345);
  for (int iter = 0; iter < 2000; ++iter) {
    std::string t = text;
    int flips = 1 + static_cast<int>(rng() % 4);
    for (int k = 0; k < flips; ++k) {
      size_t pos = rng() % t.size();
      const char pool[] = "{}[]\",:0a\\\x80\xff \n-eE.";
      t[pos] = pool[rng() % (sizeof pool - 1)];
    }
    readers::CommunicationFile f;
    Diagnostics diag;
    readers::parse_communication_json(t, "fuzz", f, diag);
    for (const auto& d : diag.items()) EXPECT_FALSE(d.what.empty());
  }
}

TEST(Communication, EmptyMissingAndBinaryFilesAreErrors) {
  struct Case {
    std::string path;
    std::string expect;
  };
  const std::vector<Case> cases = {
      {data("empty.json"), "empty"},
      {data("whitespace.json"), "empty"},
      {data("does_not_exist.json"), "not found"},
      {data("mismatch"), "directory"},
      {data("binary.json"), "not valid UTF-8"},
      {data("zeros.json"), "JSON"},
      {data("not_object.json"), "not a JSON object"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.path);
    readers::CommunicationFile f;
    Diagnostics diag;
    EXPECT_FALSE(readers::read_communication_json(c.path, f, diag));
    EXPECT_TRUE(f.steps.empty());
    ASSERT_EQ(diag.error_count(), 1u) << all_diags(diag);
    EXPECT_EQ(diag.items()[0].file, c.path);
    EXPECT_NE(diag.items()[0].what.find(c.expect), std::string::npos) << diag.items()[0].what;
    EXPECT_FALSE(diag.items()[0].hint.empty());
  }
  // The first bad byte of the binary file is at offset 7.
  readers::CommunicationFile f;
  Diagnostics diag;
  readers::read_communication_json(data("binary.json"), f, diag);
  EXPECT_EQ(diag.items()[0].offset, 7);
  EXPECT_EQ(diag.items()[0].line, 1);
}

// Issue 17, finding 9: a key written twice is resolved as Python's json.load (msprof-analyze)
// resolves it: the last value, at the first one's place; one warning for the file.
TEST(Communication, RepeatedKeysLastWins) {
  const auto op = [](const char* name, double ms) {
    return std::string("\"") + name +
           "\": {\"Communication Time Info\": {\"Elapse Time(ms)\": " + std::to_string(ms) + "}}";
  };
  const std::string json = "{\"step1\": {\"collective\": {" + op("a@1", 1) + ", " + op("b@1", 2) +
                           ", " + op("a@1", 3) + "}}, \"step2\": {\"collective\": {" +
                           op("c@1", 4) + "}}, \"step1\": {\"collective\": {" + op("d@1", 5) +
                           "}}}";
  readers::CommunicationFile f;
  Diagnostics diag;
  ASSERT_TRUE(readers::parse_communication_json(json, "communication.json", f, diag));
  ASSERT_EQ(f.steps.size(), 2u);
  EXPECT_EQ(f.steps[0].step, "step1");
  ASSERT_EQ(f.steps[0].collective.size(), 1u);  // the later step1 replaced the first
  EXPECT_EQ(f.steps[0].collective[0].name, "d@1");
  EXPECT_EQ(f.steps[1].step, "step2");
  ASSERT_EQ(diag.items().size(), 1u) << all_diags(diag);
  EXPECT_NE(diag.items()[0].what.find("2 key(s) written more than once (first: op 'a@1' of step "
                                      "'step1')"),
            std::string::npos)
      << all_diags(diag);
  // Within one step: the last value at the first one's place.
  readers::CommunicationFile g;
  Diagnostics d2;
  const std::string one = "{\"s\": {\"collective\": {" + op("a@1", 1) + ", " + op("b@1", 2) + ", " +
                          op("a@1", 3) + "}}}";
  ASSERT_TRUE(readers::parse_communication_json(one, "c.json", g, d2));
  ASSERT_EQ(g.steps[0].collective.size(), 2u);
  EXPECT_EQ(g.steps[0].collective[0].name, "a@1");
  EXPECT_EQ(g.steps[0].collective[0].time.get(readers::kElapseTimeMs), 3.0);
  EXPECT_EQ(g.steps[0].collective[1].name, "b@1");
  EXPECT_EQ(d2.warning_count(), 1u);
}

TEST(Communication, WrongTypesWarnAndSkipTheValue) {
  readers::CommunicationFile f;
  Diagnostics diag;
  ASSERT_TRUE(readers::read_communication_json(data("wrong_types_communication.json"), f, diag));
  EXPECT_EQ(diag.error_count(), 0u) << all_diags(diag);
  const std::string all = all_diags(diag);
  // Only step1 is an object; "not an op" is skipped; op 3 keeps its (empty) bandwidth block.
  ASSERT_EQ(f.steps.size(), 1u);
  ASSERT_EQ(f.steps[0].collective.size(), 2u);
  EXPECT_TRUE(f.steps[0].p2p.empty());
  const readers::CommOp& op = f.steps[0].collective[0];
  EXPECT_EQ(op.name, "hcom_allReduce__1@5");
  EXPECT_FALSE(op.time.has(readers::kStartTimestampUs));
  EXPECT_TRUE(op.time.has(readers::kElapseTimeMs));
  EXPECT_FALSE(op.time.has(readers::kTransitTimeMs));
  EXPECT_FALSE(op.time.has(readers::kWaitTimeMs));
  EXPECT_FALSE(op.time.has(readers::kSyncTimeMs));
  EXPECT_FALSE(op.time.has(readers::kIdleTimeMs));
  EXPECT_TRUE(op.time.has(readers::kWaitTimeRatio));
  EXPECT_TRUE(op.time.has(readers::kSyncTimeRatio));
  EXPECT_TRUE(op.time.num(readers::kSyncTimeRatio).is_int);
  // The warning names the op, the key and the kind of value found (never the value itself), with
  // line and byte offset.
  EXPECT_NE(all.find("op 'hcom_allReduce__1@5' of step 'step1': \"Start Timestamp(us)\" is a "
                     "string, expected a number"),
            std::string::npos)
      << all;
  EXPECT_NE(all.find("\"Idle Time(ms)\" is a boolean"), std::string::npos) << all;
  EXPECT_NE(all.find("\"Synchronization Time(ms)\" is null"), std::string::npos) << all;
  EXPECT_NE(all.find("\"Wait Time(ms)\" is an object"), std::string::npos) << all;
  for (const auto& d : diag.items()) {
    EXPECT_GT(d.line, 0) << d.to_string();
    EXPECT_GE(d.offset, 0) << d.to_string();
  }
  // HCCS: size skipped, the rest kept; the Size Distribution keeps only well-formed entries.
  ASSERT_EQ(op.transports.size(), 2u);  // "RDMA": "none" is skipped
  EXPECT_EQ(op.transports[0].name, "HCCS");
  EXPECT_FALSE(op.transports[0].has(readers::kTrSizeMb));
  EXPECT_TRUE(op.transports[0].has(readers::kTrTimeMs));
  ASSERT_EQ(op.size_distribution(op.transports[0]).size(), 2u);
  EXPECT_EQ(op.size_distribution(op.transports[0])[0].size_key, "1.0");
  EXPECT_EQ(op.size_distribution(op.transports[0])[1].size_key, "8.0");
  EXPECT_NE(all.find("\"RDMA\" is a string, expected an object"), std::string::npos) << all;
  EXPECT_NE(all.find("has 1 values"), std::string::npos) << all;
  EXPECT_NE(all.find("has 3 values"), std::string::npos) << all;
  EXPECT_EQ(op.transports[1].name, "PCIE");
  EXPECT_FALSE(op.transports[1].has_size_distribution);  // [] is not an object
  const readers::CommOp& op3 = f.steps[0].collective[1];
  EXPECT_EQ(op3.name, "hcom_allReduce__3@5");
  EXPECT_FALSE(op3.has_time_info);
  EXPECT_TRUE(op3.has_bandwidth_info);
  EXPECT_NE(all.find("\"p2p\" is a number, expected an object"), std::string::npos) << all;
  EXPECT_NE(all.find("step 'step2' is a string, expected an object"), std::string::npos) << all;
  EXPECT_NE(all.find("op 'hcom_allReduce__2@5' of step 'step1' is a string"), std::string::npos)
      << all;
}

TEST(Communication, NanInfinityAndOutOfRangeAreMissing) {
  readers::CommunicationFile f;
  Diagnostics diag;
  ASSERT_TRUE(readers::read_communication_json(data("nan_communication.json"), f, diag));
  EXPECT_EQ(diag.error_count(), 0u);
  EXPECT_EQ(diag.warning_count(), 6u) << all_diags(diag);
  const readers::CommOp& op = f.steps.at(0).collective.at(0);
  for (readers::TimeField fld :
       {readers::kStartTimestampUs, readers::kElapseTimeMs, readers::kTransitTimeMs,
        readers::kWaitTimeMs, readers::kSyncTimeMs})
    EXPECT_FALSE(op.time.has(fld)) << fld;
  EXPECT_TRUE(op.time.has(readers::kIdleTimeMs));
  EXPECT_TRUE(op.time.num(readers::kWaitTimeRatio).is_int);
  EXPECT_FALSE(op.time.num(readers::kSyncTimeRatio).is_int);
  EXPECT_FALSE(op.transports.at(0).has(readers::kTrSizeMb));
  EXPECT_TRUE(op.transports.at(0).has(readers::kTrTimeMs));
  for (const auto& d : diag.items()) {
    EXPECT_NE(d.what.find("not a finite number"), std::string::npos) << d.what;
    EXPECT_EQ(d.hint, "the value was treated as missing");
  }
  EXPECT_NE(diag.items()[0].what.find("\"Start Timestamp(us)\" is NaN"), std::string::npos);
  EXPECT_NE(diag.items()[3].what.find("is a number, not a finite number"), std::string::npos);
}

TEST(Communication, HugeAndExtremeNumbers) {
  readers::CommunicationFile f;
  Diagnostics diag;
  ASSERT_TRUE(readers::read_communication_json(data("huge_numbers_communication.json"), f, diag));
  EXPECT_TRUE(diag.empty()) << all_diags(diag);
  const readers::CommOp& op = f.steps.at(0).collective.at(0);
  EXPECT_EQ(op.group(), "18446744073709551615");
  EXPECT_TRUE(op.time.num(readers::kStartTimestampUs).is_int);
  EXPECT_DOUBLE_EQ(op.time.get(readers::kStartTimestampUs), 1e23);
  EXPECT_EQ(op.time.get(readers::kElapseTimeMs), 1.7976931348623157e308);
  EXPECT_EQ(op.time.get(readers::kTransitTimeMs), 5e-324);
  EXPECT_TRUE(op.time.num(readers::kWaitTimeMs).is_int);
  EXPECT_EQ(op.time.get(readers::kWaitTimeMs), 9223372036854775807.0);
  EXPECT_EQ(op.time.get(readers::kSyncTimeMs), -9223372036854775808.0);
  EXPECT_TRUE(op.time.num(readers::kIdleTimeMs).is_int);
  EXPECT_EQ(op.time.get(readers::kIdleTimeMs), 18446744073709551615.0);
  EXPECT_FALSE(op.time.num(readers::kWaitTimeRatio).is_int);  // 1E2 is a float in Python
  EXPECT_EQ(op.time.get(readers::kWaitTimeRatio), 100.0);
  EXPECT_TRUE(std::signbit(op.time.get(readers::kSyncTimeRatio)));
}

// simdjson 3.0.1's get_number() returns 0.0 for floats of more than 19 significant digits; such
// values must still be read exactly (as Python's float() would).
TEST(Communication, FloatsWithMoreThanNineteenDigitsAreExact) {
  const std::string text =
      R"J({"step1": {"collective": {"hcom_allReduce__1_1_1@7": {"Communication Time Info": {)J"
      R"J("Start Timestamp(us)": 1708156100001234.56789012345678901, )J"
      R"J("Elapse Time(ms)": 40.05491940625000001, "Transit Time(ms)": 0.1234567890123456789012, )J"
      R"J("Wait Time(ms)": 123456789012345678901234.5 , "Synchronization Time(ms)": 1.5, )J"
      R"J("Idle Time(ms)": 0.00000000000000000000000000001234567890123456789})J"
      R"J(}}, "p2p": {}}})J";
  readers::CommunicationFile f;
  Diagnostics diag;
  ASSERT_TRUE(readers::parse_communication_json(text, "long.json", f, diag));
  EXPECT_TRUE(diag.empty()) << all_diags(diag);
  const readers::CommOp& op = f.steps.at(0).collective.at(0);
  EXPECT_EQ(op.time.get(readers::kStartTimestampUs), 1708156100001234.56789012345678901);
  EXPECT_EQ(op.time.get(readers::kElapseTimeMs), 40.05491940625000001);
  EXPECT_EQ(op.time.get(readers::kTransitTimeMs), 0.1234567890123456789012);
  EXPECT_EQ(op.time.get(readers::kWaitTimeMs), 123456789012345678901234.5);
  EXPECT_EQ(op.time.get(readers::kSyncTimeMs), 1.5);
  EXPECT_EQ(op.time.get(readers::kIdleTimeMs), 0.00000000000000000000000000001234567890123456789);
  for (readers::TimeField t : {readers::kStartTimestampUs, readers::kElapseTimeMs,
                               readers::kTransitTimeMs, readers::kWaitTimeMs, readers::kIdleTimeMs})
    EXPECT_FALSE(op.time.num(t).is_int);
}

TEST(Communication, BrokenStructureMidFileKeepsOpsBefore) {
  const std::string path = data("broken_middle_communication.json");
  const std::string text = slurp(path);
  readers::CommunicationFile f;
  Diagnostics diag;
  ASSERT_TRUE(readers::read_communication_json(path, f, diag));
  ASSERT_EQ(f.steps.size(), 1u);
  ASSERT_EQ(f.steps[0].collective.size(), 2u);
  EXPECT_DOUBLE_EQ(f.steps[0].collective[1].time.get(readers::kElapseTimeMs), 2.5);
  ASSERT_EQ(diag.error_count(), 1u);
  const Diagnostic& d = diag.items()[0];
  EXPECT_EQ(d.line, 4);
  // The damage (the missing colon) is on line 4, after the op's key.
  int64_t line4 = static_cast<int64_t>(text.find("\"hcom_allReduce__3@5\""));
  EXPECT_GT(d.offset, line4);
  EXPECT_LT(d.offset, static_cast<int64_t>(text.find("\"hcom_allReduce__4@5\"")));
  EXPECT_NE(d.what.find("op 'hcom_allReduce__3@5' of step 'step'"), std::string::npos) << d.what;
  EXPECT_NE(d.hint.find("what came before was kept"), std::string::npos) << d.hint;
}

TEST(Communication, TrailingTextIsAWarning) {
  readers::CommunicationFile f;
  Diagnostics diag;
  ASSERT_TRUE(
      readers::read_communication_json(data("trailing_garbage_communication.json"), f, diag));
  EXPECT_EQ(f.steps.size(), 1u);
  EXPECT_EQ(diag.error_count(), 0u);
  ASSERT_EQ(diag.warning_count(), 1u);
  EXPECT_EQ(diag.items()[0].line, 2);
  EXPECT_NE(diag.items()[0].what.find("extra text"), std::string::npos);
}

TEST(Communication, ManyBadValuesAreCountedNotAllKept) {
  std::string text = R"({"step": {"collective": {)";
  for (int i = 0; i < 3000; ++i) {
    if (i) text += ",\n";
    text += "\"hcom_allReduce__" + std::to_string(i) +
            "@1\": {\"Communication Time Info\": {\"Elapse Time(ms)\": NaN}}";
  }
  text += "}}}";
  readers::CommunicationFile f;
  Diagnostics diag;
  ASSERT_TRUE(readers::parse_communication_json(text, "many", f, diag));
  EXPECT_EQ(f.steps[0].collective.size(), 3000u);
  EXPECT_EQ(diag.warning_count(), 3000u);
  EXPECT_LE(diag.items().size(), 100u);
  EXPECT_EQ(diag.items()[99].line, 100);
}

// The per-rank records are held for every rank of the job at once: keep them small.
TEST(Communication, RecordsStayCompact) {
  EXPECT_LE(sizeof(readers::CommTimeInfo), 72u);
  EXPECT_LE(sizeof(readers::TransportInfo), 40u);
  EXPECT_LE(sizeof(readers::CommOp), 160u);
}

// A transport counts its size buckets in 16 bits: beyond 65,535 entries the rest are skipped
// with a warning, and the next transport still sees only its own.
TEST(Communication, TooManySizeBucketsAreCutWithAWarning) {
  std::string sd;
  for (int i = 0; i < readers::TransportInfo::kMaxBuckets + 2; ++i)
    sd += (i ? ", \"" : "\"") + std::to_string(i) + ".0\": [1, 0.5]";
  const std::string text = R"J({"step1": {"collective": {"hcom_allReduce__1@9": {
    "Communication Bandwidth Info": {"RDMA": {"Size Distribution": {)J" +
                           sd + R"J(}},
      "HCCS": {"Size Distribution": {"8.0": [8, 1.5]}}}}}}})J";
  readers::CommunicationFile f;
  Diagnostics diag;
  ASSERT_TRUE(readers::parse_communication_json(text, "many buckets", f, diag)) << all_diags(diag);
  const readers::CommOp& op = f.steps.at(0).collective.at(0);
  ASSERT_EQ(op.transports.size(), 2u);
  EXPECT_EQ(op.size_distribution(op.transports[0]).size(), readers::TransportInfo::kMaxBuckets);
  ASSERT_EQ(op.size_distribution(op.transports[1]).size(), 1u);
  EXPECT_EQ(op.size_distribution(op.transports[1])[0].size_key, "8.0");
  EXPECT_EQ(diag.warning_count(), 1u);
  EXPECT_NE(all_diags(diag).find("more than 65535 entries"), std::string::npos) << all_diags(diag);
}

// Size buckets live in one array per op: each transport must still see only its own, in order.
TEST(Communication, SizeBucketsStayWithTheirTransport) {
  const std::string text = R"J({"step1": {"collective": {"hcom_allReduce__1@9": {
    "Communication Bandwidth Info": {
      "RDMA": {"Transit Size(MB)": 3, "Size Distribution": {"1.0": [1, 0.5], "2.0": [2, 1.5]}},
      "HCCS": {"Transit Size(MB)": 0, "Size Distribution": {}},
      "PCIE": {"Transit Size(MB)": 0},
      "SDMA": {"Size Distribution": {"4.0": [4, 2.5]}, "Transit Size(MB)": 4.0}}}}}})J";
  readers::CommunicationFile f;
  Diagnostics diag;
  ASSERT_TRUE(readers::parse_communication_json(text, "buckets", f, diag)) << all_diags(diag);
  const readers::CommOp& op = f.steps.at(0).collective.at(0);
  ASSERT_EQ(op.transports.size(), 4u);
  auto keys = [&](size_t t) {
    std::string k;
    for (const readers::SizeBucket& b : op.size_distribution(op.transports[t]))
      k += b.size_key + ";";
    return k;
  };
  EXPECT_EQ(keys(0), "1.0;2.0;");
  EXPECT_EQ(keys(1), "");
  EXPECT_TRUE(op.transports[1].has_size_distribution);
  EXPECT_EQ(keys(2), "");
  EXPECT_FALSE(op.transports[2].has_size_distribution);
  EXPECT_EQ(keys(3), "4.0;");
  EXPECT_EQ(op.transports[3].name, "SDMA");
  EXPECT_EQ(op.transports[3].get(readers::kTrSizeMb), 4.0);
  EXPECT_FALSE(op.transports[3].num(readers::kTrSizeMb).is_int);
  EXPECT_TRUE(op.transports[0].num(readers::kTrSizeMb).is_int);
}

}  // namespace
}  // namespace cs::io
