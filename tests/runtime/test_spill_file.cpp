#include "runtime/spill_file.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace cs::runtime {
namespace {

// Blocks come back as written, wherever they lie, from several threads at once.
TEST(SpillFile, BlocksReadBackAsWritten) {
  auto spill = SpillFile::create();
  std::vector<std::string> texts;
  std::vector<SpillFile::Block> blocks;
  for (int i = 0; i < 50; ++i) {
    texts.push_back(std::string(static_cast<size_t>(i * 97 + 1), static_cast<char>('a' + i % 26)));
    blocks.push_back(spill->append(texts.back().data(), texts.back().size()));
  }
  uint64_t total = 0;
  for (const auto& t : texts) total += t.size();
  EXPECT_EQ(spill->size(), total);
  EXPECT_EQ(blocks[1].offset, blocks[0].size);
  std::vector<std::thread> readers;
  std::vector<int> bad(4, 0);
  for (int t = 0; t < 4; ++t)
    readers.emplace_back([&, t] {
      std::vector<char> buf;
      for (size_t i = 49; i < 50; --i) {
        spill->read(blocks[i], buf);
        if (std::string(buf.begin(), buf.end()) != texts[i]) ++bad[static_cast<size_t>(t)];
      }
    });
  for (auto& r : readers) r.join();
  EXPECT_EQ(bad, std::vector<int>(4, 0));
  std::vector<char> empty{'x'};
  spill->read(spill->append(nullptr, 0), empty);
  EXPECT_TRUE(empty.empty());
}

// A block beyond the end is a short read: an error, not garbage.
TEST(SpillFile, ShortReadThrows) {
  auto spill = SpillFile::create();
  spill->append("abc", 3);
  std::vector<char> buf;
  EXPECT_THROW(spill->read({1, 10}, buf), std::runtime_error);
}

// A directory that does not exist is named in the message, with what to do.
TEST(SpillFile, MissingDirectoryIsNamed) {
  try {
    SpillFile::create("/nonexistent-clusterscope-dir");
    FAIL() << "created a spill file in a missing directory";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent-clusterscope-dir"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("TMPDIR"), std::string::npos);
  }
}

// read_into, the readers' reused buffer: grows to the block, never shrinks, fills only the block.
TEST(SpillFile, ReadIntoGrowsOnlyAndReadsTheBlock) {
  auto spill = SpillFile::create();
  const std::string a(1000, 'a'), b(10, 'b');
  const auto ba = spill->append(a.data(), a.size());
  const auto bb = spill->append(b.data(), b.size());
  std::vector<char> buf;
  spill->read_into(ba, buf);
  ASSERT_EQ(buf.size(), 1000u);
  EXPECT_EQ(std::string(buf.data(), 1000), a);
  spill->read_into(bb, buf);
  EXPECT_EQ(buf.size(), 1000u);  // never shrunk
  EXPECT_EQ(std::string(buf.data(), 10), b);
  EXPECT_EQ(buf[10], 'a');  // past the block: left as it was
}

}  // namespace
}  // namespace cs::runtime
