// Replays every input kept for the fuzz harnesses — the seeds and each crasher or timeout the
// fuzzers found (tests/data/fuzz/<harness>/) — through the same harness functions the libFuzzer
// binaries call. Built with the normal compiler, so the Release and ASan+UBSan passes both run it:
// a reader that crashes, trips a sanitizer or hangs on a kept input fails here.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <vector>

#include "fuzz/harnesses.h"

namespace fs = std::filesystem;

namespace {

const fs::path kCorpus = fs::path(CS_TEST_DATA) / "fuzz";

std::vector<fs::path> inputs_of(const std::string& harness) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(kCorpus / harness, ec))
    if (e.is_regular_file()) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<uint8_t> bytes_of(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

class Replay : public ::testing::TestWithParam<cs::fuzz::Harness> {};

TEST_P(Replay, EveryKeptInputRunsCleanAndFast) {
  const cs::fuzz::Harness& h = GetParam();
  std::vector<fs::path> files = inputs_of(h.name);
  // A harness with no input here would test nothing: each has at least its seeds.
  ASSERT_FALSE(files.empty()) << "no inputs in " << (kCorpus / h.name);
  for (const auto& f : files) {
    std::vector<uint8_t> data = bytes_of(f);
    // On a crash the last line printed names the input.
    std::fprintf(stderr, "replay %s (%zu bytes)\n", f.c_str(), data.size());
    auto start = std::chrono::steady_clock::now();
    EXPECT_EQ(h.fn(data.data(), data.size()), 0) << f;
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    // libFuzzer's -timeout in scripts/fuzz.sh is 10 s; a kept input must stay well below it.
    EXPECT_LT(s, 5.0) << f << " took " << s << " s";
  }
}

std::string name_of(const ::testing::TestParamInfo<cs::fuzz::Harness>& info) {
  return info.param.name;
}

INSTANTIATE_TEST_SUITE_P(Harnesses, Replay, ::testing::ValuesIn(cs::fuzz::harnesses()), name_of);

TEST(ReplayCorpus, EveryFolderBelongsToAHarness) {
  std::set<std::string> folders;
  for (const auto& e : fs::directory_iterator(kCorpus))
    if (e.is_directory()) folders.insert(e.path().filename().string());
  for (const auto& h : cs::fuzz::harnesses()) {
    EXPECT_EQ(folders.count(h.name), 1u) << "no folder for harness " << h.name;
    folders.erase(h.name);
  }
  EXPECT_TRUE(folders.empty()) << "a folder with no harness: " << *folders.begin();
}

TEST(ReplayCorpus, HarnessesAreFoundByName) {
  ASSERT_NE(cs::fuzz::find_harness("trace_view"), nullptr);
  EXPECT_EQ(cs::fuzz::find_harness("trace_view")->fn, &cs::fuzz::trace_view);
  EXPECT_EQ(cs::fuzz::find_harness("no_such_reader"), nullptr);
}

}  // namespace
