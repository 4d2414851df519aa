// Slow-link detection from link observations (global ranks, transit size and time).

#include "analysis/slow_link.h"

#include <gtest/gtest.h>

#include "analysis/link_observations.h"

#include <sys/resource.h>

#include <bit>
#include <cmath>
#include <csignal>
#include <limits>
#include <random>
#include <set>
#include <stdexcept>

namespace cs::analysis {
namespace {

// A ring allreduce per step in each of `groups` groups of 8 ranks (HCCS inside a node) and a DP
// ring across nodes (RDMA). `slow` maps (src, dst) to a bandwidth factor (0.3 = 30% speed).
std::vector<analysis::LinkObservation> ring_cluster(
    int groups, int steps, const std::map<std::pair<int, int>, double>& slow, uint64_t seed = 1) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> jitter(0.97, 1.03);
  std::vector<analysis::LinkObservation> obs;
  // Observations hold views: the names live as long as the test program.
  static std::set<std::string> names;
  auto name = [](std::string s) { return std::string_view(*names.insert(std::move(s)).first); };
  auto add = [&](const std::string& key, int a, int b, const char* tr, double mb, double gbps) {
    auto it = slow.find({a, b});
    const double bw = gbps * jitter(rng) * (it == slow.end() ? 1.0 : it->second);
    obs.push_back({name(key), a, b, tr, mb, mb / bw});
  };
  for (int s = 1; s <= steps; ++s) {
    for (int g = 0; g < groups; ++g)
      for (int i = 0; i < 8; ++i) {
        add("allreduce-total@tp" + std::to_string(g), g * 8 + i, g * 8 + (i + 1) % 8, "HCCS", 64,
            16.6);
        add("allreduce-top1@tp" + std::to_string(g), g * 8 + i, g * 8 + (i + 1) % 8, "HCCS", 8,
            17);  // a derived key: must be ignored
        add("allreduce-total@tp" + std::to_string(g), g * 8 + i, g * 8 + i, "LOCAL", 64, 60);
      }
    for (int i = 0; i < 8; ++i)
      for (int g = 0; g < groups; ++g)
        add("allreduce-total@dp" + std::to_string(i), g * 8 + i, ((g + 1) % groups) * 8 + i, "RDMA",
            32, 11.4);
  }
  return obs;
}

TEST(SlowLink, Helpers) {
  EXPECT_EQ(analysis::nominal_gbps("HCCS", false), 18);
  EXPECT_EQ(analysis::nominal_gbps("HCCS", true), 28);
  EXPECT_EQ(analysis::nominal_gbps("RDMA", false), 12.5);
  EXPECT_EQ(analysis::nominal_gbps("RDMA", true), 25);
  EXPECT_EQ(analysis::nominal_gbps("PCIE", true), 20);
  EXPECT_EQ(analysis::nominal_gbps("SIO", true), 0);
  // is_derived_matrix_key: tests/io/test_comm_keys.cpp.
}

TEST(SlowLink, CleanClusterHasNone) {
  for (uint64_t seed = 1; seed <= 5; ++seed)
    EXPECT_TRUE(analysis::find_slow_links(ring_cluster(4, 4, {}, seed)).empty()) << seed;
}

TEST(SlowLink, FindsHccsLinkAt30And70Percent) {
  for (double f : {0.3, 0.7}) {
    auto found = analysis::find_slow_links(ring_cluster(4, 4, {{{10, 11}, f}}));
    ASSERT_EQ(found.size(), 1u) << f;
    EXPECT_EQ(found[0].src_rank, 10);
    EXPECT_EQ(found[0].dst_rank, 11);
    EXPECT_EQ(found[0].transport, "HCCS");
    EXPECT_NEAR(found[0].ratio, f, 0.03);
    EXPECT_NEAR(found[0].expected_gbps, 16.6, 0.3);
    EXPECT_NEAR(found[0].bandwidth_gbps, 16.6 * f, 0.5);
    EXPECT_EQ(found[0].nominal_gbps, 18);
    EXPECT_NE(found[0].evidence.find("HCCS link 10->11"), std::string::npos);
    EXPECT_NE(found[0].evidence.find("nominal 18 GB/s"), std::string::npos) << found[0].evidence;
  }
}

TEST(SlowLink, FindsRdmaLinkAndOrdersBySlowest) {
  auto found = analysis::find_slow_links(ring_cluster(4, 3, {{{3, 11}, 0.7}, {{0, 1}, 0.3}}));
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].src_rank, 0);
  EXPECT_EQ(found[0].transport, "HCCS");
  EXPECT_EQ(found[1].src_rank, 3);
  EXPECT_EQ(found[1].dst_rank, 11);
  EXPECT_EQ(found[1].transport, "RDMA");
  auto t = analysis::slow_links_table(found);
  t.validate();
  EXPECT_EQ(t.name, "slow_links");
  EXPECT_EQ(t.rows(), 2u);
  EXPECT_EQ(t.find("src_rank")->ints[1], 3);
  EXPECT_NEAR(t.find("ratio")->doubles[0], 0.3, 0.02);
}

// A link carrying small packets is slow by nature: it is compared with other small transfers.
TEST(SlowLink, SizeClassesKeepSmallTransfersApart) {
  auto obs = ring_cluster(2, 2, {});
  for (int i = 0; i < 8; ++i) obs.push_back({"send-total@pp", i, i + 8, "HCCS", 0.01, 0.01 / 2.0});
  EXPECT_TRUE(analysis::find_slow_links(obs).empty());
}

TEST(SlowLink, IgnoresBadObservations) {
  std::vector<analysis::LinkObservation> obs = {
      {"allreduce-total@g", 0, 1, "HCCS", 0, 0},
      {"allreduce-total@g", 0, 1, "HCCS", 10, -1},
      {"allreduce-total@g", 1, 1, "HCCS", 10, 100},
  };
  EXPECT_TRUE(analysis::find_slow_links(obs).empty());
  EXPECT_TRUE(analysis::find_slow_links(std::vector<analysis::LinkObservation>{}).empty());
}

// The adapter leaves out what find_slow_links() ignores (derived keys, LOCAL and self links) and
// keeps the rest in link order.
TEST(SlowLink, ObservationsLeaveOutIgnoredLinks) {
  documents::GlobalLinks links;
  documents::GlobalLinks::Chunk chunk;
  auto op = [&](const char* key) {
    chunk.ops.push_back({"step1", key, "1", &chunk.names});
    return &chunk.ops.back();
  };
  const documents::GlobalLinkOp* total = op("allreduce-total@1");
  const documents::GlobalLinkOp* top = op("allreduce-top1@1");
  const documents::GlobalLinkOp* info = op("Total Op Info@1");
  auto link = [&](const documents::GlobalLinkOp* o, int src, int dst, const char* tr) {
    documents::GlobalLink l;
    l.op = o;
    l.src_rank = src;
    l.dst_rank = dst;
    l.transport = readers::TransportName(tr);
    l.size_mb = 8;
    l.time_ms = 1;
    chunk.links.push_back(l);
  };
  link(total, 0, 1, "HCCS");
  link(total, 1, 1, "HCCS");  // self
  link(total, 1, 0, "LOCAL");
  link(total, 1, 2, "RDMA");
  link(top, 0, 1, "HCCS");
  link(info, 0, 1, "HCCS");
  links.append(std::move(chunk));
  const auto obs = analysis::link_observations(links);
  ASSERT_EQ(obs.size(), 2u);
  EXPECT_EQ(obs[0].op_key, "allreduce-total@1");
  EXPECT_EQ(obs[0].transport, "HCCS");
  EXPECT_EQ(obs[1].src_rank, 1);
  EXPECT_EQ(obs[1].dst_rank, 2);
  EXPECT_EQ(obs[1].transport, "RDMA");
}

}  // namespace
}  // namespace cs::analysis

namespace cs::analysis {
namespace {

// Issue 15: "Slow link: HCCS 0->3 ... 0.06 GB/s (over 1 transfers, 0 MB)". A link with one tiny
// transfer (or a few under 1 MB) carries latency, not bandwidth: it is counted as unjudged, never
// a finding; a link with enough transfers at the same low speed is a finding.
TEST(SlowLink, TooLittleDataIsNotJudged) {
  std::vector<analysis::LinkObservation> obs;
  for (int src = 0; src < 8; ++src)
    for (int k = 0; k < 5; ++k)
      obs.push_back({"hcom_allReduce__1_1_1@g", src, (src + 1) % 8, "HCCS", 8.0, 0.5});
  obs.push_back(
      {"hcom_allReduce__1_1_1@g", 0, 3, "HCCS", 0.0004, 0.0066});  // 0.06 GB/s, 1 transfer
  int unjudged = -1;
  auto f = analysis::find_slow_links(obs, {}, &unjudged);
  EXPECT_TRUE(f.empty()) << f.front().evidence;
  EXPECT_EQ(unjudged, 1);
  // Five 8 MB transfers at a quarter of the speed: enough data, found.
  for (int k = 0; k < 5; ++k) obs.push_back({"hcom_allReduce__1_1_1@g", 2, 5, "HCCS", 8.0, 2.0});
  f = analysis::find_slow_links(obs, {}, &unjudged);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].src_rank, 2);
  EXPECT_EQ(f[0].dst_rank, 5);
  EXPECT_EQ(unjudged, 1);
}

// Issue 17, finding 5: sizes of 1.7e308 MB each are finite, their sums are not; the summary said
// "-nan MB". Such a link is counted as overflowed and never judged (no inf or nan in evidence).
TEST(SlowLink, OverflowingSumsAreNotJudged) {
  std::vector<analysis::LinkObservation> obs;
  for (int src = 0; src < 8; ++src)
    for (int k = 0; k < 5; ++k)
      obs.push_back({"hcom_allReduce__1_1_1@g", src, (src + 1) % 8, "HCCS", 8.0, 0.5});
  for (int k = 0; k < 5; ++k)  // 2 -> 5: five transfers of 1.7e308 MB
    obs.push_back({"hcom_allReduce__1_1_1@g", 2, 5, "HCCS", 1.7e308, 2.0});
  obs.push_back({"hcom_allReduce__1_1_1@g", 4, 6, "HCCS", 1.7e308, 1e-3});  // bandwidth inf
  int unjudged = -1, overflowed = -1;
  const auto f = analysis::find_slow_links(obs, {}, &unjudged, &overflowed);
  EXPECT_EQ(overflowed, 1);  // 2 -> 5; 4 -> 6 has no finite bandwidth at all and is left out
  for (const auto& x : f) {
    EXPECT_EQ(x.evidence.find("nan"), std::string::npos) << x.evidence;
    EXPECT_EQ(x.evidence.find("inf"), std::string::npos) << x.evidence;
  }
  EXPECT_TRUE(f.empty()) << f.front().evidence;
}

}  // namespace
}  // namespace cs::analysis

namespace cs::analysis {
namespace {

// The findings over a LinkObservationSet of `obs` are those over `obs`, every double the same
// bits, with the same unjudged and overflowed counts.
void expect_set_matches_vector(const std::vector<LinkObservation>& obs, const SlowLinkOptions& opts,
                               const std::string& at) {
  LinkObservationSet set;
  set.add(obs);
  int unjudged_v = -1, overflowed_v = -1, unjudged_s = -2, overflowed_s = -2;
  const auto v = find_slow_links(obs, opts, &unjudged_v, &overflowed_v);
  const auto s = find_slow_links(set, opts, &unjudged_s, &overflowed_s);
  EXPECT_EQ(unjudged_s, unjudged_v) << at;
  EXPECT_EQ(overflowed_s, overflowed_v) << at;
  ASSERT_EQ(s.size(), v.size()) << at;
  auto bits = [](double d) { return std::bit_cast<uint64_t>(d); };
  for (size_t i = 0; i < v.size(); ++i) {
    EXPECT_EQ(s[i].src_rank, v[i].src_rank) << at;
    EXPECT_EQ(s[i].dst_rank, v[i].dst_rank) << at;
    EXPECT_EQ(s[i].transport, v[i].transport) << at;
    EXPECT_EQ(bits(s[i].bandwidth_gbps), bits(v[i].bandwidth_gbps)) << at;
    EXPECT_EQ(bits(s[i].expected_gbps), bits(v[i].expected_gbps)) << at;
    EXPECT_EQ(bits(s[i].ratio), bits(v[i].ratio)) << at;
    EXPECT_EQ(bits(s[i].z), bits(v[i].z)) << at;
    EXPECT_EQ(bits(s[i].nominal_gbps), bits(v[i].nominal_gbps)) << at;
    EXPECT_EQ(s[i].observations, v[i].observations) << at;
    EXPECT_EQ(bits(s[i].size_mb), bits(v[i].size_mb)) << at;
    EXPECT_EQ(bits(s[i].time_ms), bits(v[i].time_ms)) << at;
    EXPECT_EQ(s[i].evidence, v[i].evidence) << at;
  }
}

// Issue 38: the compact set (32-byte records, what find_slow_links() skips left out at add())
// finds what the vector finds, on every input above and on a noisy mixture with bad numbers.
TEST(SlowLink, CompactSetMatchesVector) {
  const SlowLinkOptions defaults;
  expect_set_matches_vector(ring_cluster(4, 4, {}, 3), defaults, "clean");
  expect_set_matches_vector(ring_cluster(4, 4, {{{10, 11}, 0.3}}), defaults, "hccs 30%");
  expect_set_matches_vector(ring_cluster(4, 3, {{{3, 11}, 0.7}, {{0, 1}, 0.3}}), defaults, "rdma");
  std::vector<LinkObservation> mixed = ring_cluster(8, 5, {{{3, 11}, 0.5}, {{17, 18}, 0.2}}, 7);
  ASSERT_FALSE(find_slow_links(mixed).empty());
  for (int i = 0; i < 8; ++i) mixed.push_back({"send-total@pp", i, i + 8, "HCCS", 0.01, 0.005});
  mixed.push_back({"allreduce-total@g", 0, 1, "HCCS", 0, 0});
  mixed.push_back({"allreduce-total@g", 0, 1, "HCCS", 10, -1});
  mixed.push_back({"allreduce-total@g", 2, 1, "HCCS", std::nan(""), 1});
  mixed.push_back({"allreduce-total@g", 2, 1, "HCCS", 1, std::numeric_limits<double>::infinity()});
  mixed.push_back({"allreduce-total@g", 4, 6, "HCCS", 1.7e308, 1e-3});  // bandwidth inf
  mixed.push_back({"allreduce-total@g", 1, 1, "HCCS", 10, 100});
  mixed.push_back({"Total Op Info@g", 1, 2, "HCCS", 10, 100});
  for (int k = 0; k < 5; ++k) mixed.push_back({"allreduce-total@g", 2, 5, "HCCS", 1.7e308, 2.0});
  mixed.push_back({"hcom_allReduce__1_1_1@g", 0, 3, "HCCS", 0.0004, 0.0066});
  for (int k = 0; k < 5; ++k) mixed.push_back({"hcom_allReduce__1_1_1@g", 2, 5, "HCCS", 8.0, 2.0});
  expect_set_matches_vector(mixed, defaults, "mixed");
  SlowLinkOptions bigger;
  bigger.min_size_mb = 16;
  expect_set_matches_vector(mixed, bigger, "min_size_mb 16");
  // The left-out observations are only those skipped anyway: never more than the vector keeps.
  LinkObservationSet set;
  set.add(mixed);
  size_t usable = 0;
  for (const auto& o : mixed)
    usable += o.src_rank != o.dst_rank && o.transport != "LOCAL" &&
              !is_derived_matrix_key(o.op_key) && o.size_mb > 0 && o.time_ms > 0 &&
              std::isfinite(o.size_mb) && std::isfinite(o.time_ms) &&
              std::isfinite(o.size_mb / o.time_ms);
  EXPECT_EQ(set.size(), usable);
  EXPECT_EQ(set.to_vector().size(), usable);
  // A set that left out what a smaller min_size_mb would judge cannot be judged with it.
  LinkObservationSet coarse(16);
  coarse.add(mixed);
  EXPECT_THROW(find_slow_links(coarse, defaults), std::invalid_argument);
  int unjudged = -1;
  EXPECT_EQ(find_slow_links(coarse, bigger, &unjudged).size(),
            find_slow_links(mixed, bigger).size());
}

// Observations of many links (three chunks and part of a fourth), one slow link among them.
std::vector<LinkObservation> many_observations() {
  std::vector<LinkObservation> obs;
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> jitter(0.95, 1.05);
  for (int k = 0; k < 55'000; ++k) {
    const int src = k % 512, dst = (k * 7 + 1) % 512;
    const double slow = (src == 3 && dst == 22) ? 0.3 : 1.0;
    obs.push_back({k % 3 ? "allreduce-total@g" : "send-total@pp", src, dst, k % 5 ? "HCCS" : "RDMA",
                   64.0, 64.0 / (20.0 * slow * jitter(rng))});
  }
  return obs;
}

// Full chunks parked in a spill file (issue 38: ~25 MB at 16,384 ranks otherwise) are read back
// in order: the same observations and the same findings, bit for bit, as the set held whole.
TEST(SlowLink, ParkedSetMatchesTheHeldOne) {
  const std::vector<LinkObservation> obs = many_observations();
  LinkObservationSet held, parked;
  held.add(obs);
  parked.park_in(runtime::SpillFile::create());
  parked.add(obs);
  EXPECT_EQ(parked.parked_chunks(), 3u);
  EXPECT_EQ(parked.park_problem(), "");
  const auto a = held.to_vector(), b = parked.to_vector();
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].op_key, b[i].op_key);
    EXPECT_EQ(a[i].src_rank, b[i].src_rank);
    EXPECT_EQ(a[i].dst_rank, b[i].dst_rank);
    EXPECT_EQ(a[i].transport, b[i].transport);
    EXPECT_EQ(std::bit_cast<uint64_t>(a[i].size_mb), std::bit_cast<uint64_t>(b[i].size_mb));
    EXPECT_EQ(std::bit_cast<uint64_t>(a[i].time_ms), std::bit_cast<uint64_t>(b[i].time_ms));
  }
  expect_set_matches_vector(obs, {}, "held");
  const auto want = find_slow_links(held);
  const auto got = find_slow_links(parked);
  ASSERT_FALSE(want.empty());
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(got[i].evidence, want[i].evidence);
}

// A spill file that cannot be written past its first chunk (a file size limit, as on a full
// disk): that chunk is read from the file, the rest stays held, park_problem() says why, and
// the findings are the same.
TEST(SlowLink, ParkedSetKeepsTheRestWhenTheFileFails) {
  const std::vector<LinkObservation> obs = many_observations();
  LinkObservationSet held, parked;
  held.add(obs);
  parked.park_in(runtime::SpillFile::create());
  rlimit before{};
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &before), 0);
  const auto old_handler = std::signal(SIGXFSZ, SIG_IGN);  // write() fails with EFBIG instead
  rlimit limit = before;
  limit.rlim_cur = 600 * 1024;  // one 512 KiB chunk
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &limit), 0);
  parked.add(obs);
  setrlimit(RLIMIT_FSIZE, &before);
  std::signal(SIGXFSZ, old_handler);
  EXPECT_EQ(parked.parked_chunks(), 1u);
  EXPECT_NE(parked.park_problem(), "");
  EXPECT_EQ(parked.size(), held.size());
  const auto want = find_slow_links(held);
  const auto got = find_slow_links(parked);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(got[i].evidence, want[i].evidence);
}

}  // namespace
}  // namespace cs::analysis
