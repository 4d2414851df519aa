#include "readers/transport_name.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "io/num_fields.h"
#include "readers/communication.h"

namespace cs::io {
namespace {

TEST(TransportName, BuiltinNamesAndEmpty) {
  EXPECT_TRUE(readers::TransportName().empty());
  EXPECT_EQ(readers::TransportName().view(), "");
  readers::TransportName h("HCCS");
  EXPECT_FALSE(h.empty());
  EXPECT_EQ(h, "HCCS");
  EXPECT_EQ(h, std::string_view("HCCS"));
  EXPECT_EQ(h, readers::TransportName("HCCS"));
  EXPECT_FALSE(h == readers::TransportName("RDMA"));
  EXPECT_EQ(sizeof(readers::TransportName), 2u);
}

TEST(TransportName, OtherNamesAreAddedOnceAndKeepTheirText) {
  readers::TransportName a("UB-link"), b("UB-link"), c("UB-link2");
  EXPECT_EQ(a.id(), b.id());
  EXPECT_NE(a.id(), c.id());
  EXPECT_EQ(a.view(), "UB-link");
  EXPECT_EQ(c.view(), "UB-link2");
  // A name is matched on its whole text, not on a prefix of a built-in one.
  EXPECT_NE(readers::TransportName("HCCSX").id(), readers::TransportName("HCCS").id());
}

TEST(TransportName, ThreadsAddingTheSameNamesAgreeOnTheirIds) {
  constexpr int kThreads = 4, kNames = 200;
  std::vector<std::vector<uint16_t>> ids(kThreads, std::vector<uint16_t>(kNames));
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&ids, t] {
      for (int i = 0; i < kNames; ++i) {
        readers::TransportName n("threaded-" + std::to_string(i));
        ids[t][i] = n.id();
        // The text is readable at once by the thread that made it.
        if (n.view() != "threaded-" + std::to_string(i)) ids[t][i] = 0;
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 1; t < kThreads; ++t) EXPECT_EQ(ids[t], ids[0]);
  for (uint16_t id : ids[0]) EXPECT_NE(id, 0);
}

// A file that writes data as transport names fills the process-wide table: the readers then
// warn and skip those transports instead of growing without bound. Run in a child process (a
// death test) so the full table does not leak into the other tests.
TEST(TransportNameDeathTest, AFullTableIsReportedAndTheRestIsRead) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        bool ok = true;
        int made = 0;
        for (int i = 0; i < 2 * static_cast<int>(readers::kMaxTransportNames); ++i) {
          readers::TransportName t;
          if (readers::TransportName::make("filler-" + std::to_string(i), t)) ++made;
        }
        ok = ok && made < static_cast<int>(readers::kMaxTransportNames);
        // Known names still work; a new one does not.
        readers::TransportName h;
        ok = ok && readers::TransportName::make("HCCS", h) && h == "HCCS";
        readers::TransportName n;
        ok = ok && !readers::TransportName::make("one more", n) && n.empty();
        const std::string text = R"J({"step1": {"collective": {"hcom_allReduce__1@9": {
            "Communication Bandwidth Info": {"HCCS": {"Transit Size(MB)": 1},
                                             "one more": {"Transit Size(MB)": 2}}}}}})J";
        readers::CommunicationFile f;
        Diagnostics diag;
        ok = ok && readers::parse_communication_json(text, "full", f, diag);
        ok = ok && f.steps.at(0).collective.at(0).transports.size() == 1;
        ok = ok && diag.warning_count() == 1 &&
             diag.items()[0].what.find("one name too many") != std::string::npos;
        std::exit(ok ? 0 : 1);
      },
      testing::ExitedWithCode(0), "");
}

TEST(NumFields, KeepsValueKindAndPresence) {
  NumFields<5> f;
  EXPECT_FALSE(f.has(2));
  EXPECT_EQ(f.num(2).v, 0.0);
  EXPECT_FALSE(f.num(2).is_int);
  f.set(2, Num::integer(7));
  f.set(4, Num::real(0.5));
  EXPECT_TRUE(f.has(2));
  EXPECT_TRUE(f.num(2).is_int);
  EXPECT_EQ(f.get(2), 7.0);
  EXPECT_FALSE(f.num(4).is_int);
  f.set(2, Num::real(1.5));  // set again as a float: the int bit is cleared
  EXPECT_FALSE(f.num(2).is_int);
  EXPECT_TRUE(f.has(2));
  EXPECT_FALSE(f.has(0));
}

}  // namespace
}  // namespace cs::io
