// StringPool (io/string_pool.h): interning, dense ids, look-ups, and views that stay valid while
// the pool grows.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "io/string_pool.h"

namespace {

using cs::io::hash_bytes;
using cs::io::kNoString;
using cs::io::StringPool;

TEST(StringPool, InternsOnceWithDenseIds) {
  StringPool p;
  EXPECT_EQ(p.intern("aten::mm"), 0u);
  EXPECT_EQ(p.intern("aten::add"), 1u);
  EXPECT_EQ(p.intern("aten::mm"), 0u);
  EXPECT_EQ(p.intern(""), 2u);
  EXPECT_EQ(p.intern(std::string("aten::add")), 1u);
  EXPECT_EQ(p.size(), 3u);
  EXPECT_EQ(p.str(0), "aten::mm");
  EXPECT_EQ(p.str(2), "");
  EXPECT_EQ(p.str(kNoString), "");
  EXPECT_EQ(p.find("aten::add"), 1u);
  EXPECT_EQ(p.find("aten::mul"), kNoString);
  EXPECT_EQ(StringPool().find("x"), kNoString);
}

TEST(StringPool, ManyStringsKeepTheirIdsAndViews) {
  StringPool p;
  std::vector<std::string> texts;
  // Short, word-sized and long strings that differ only in the middle or at one end.
  const std::string tail(150, 'k');
  for (int i = 0; i < 20000; ++i) {
    std::string s = std::to_string(i);
    if (i % 3 == 1) s = "void cutlass::Kernel<" + s + ">" + tail;
    if (i % 3 == 2) s = tail + s + tail;
    texts.push_back(s);
  }
  std::vector<std::string_view> views;
  for (size_t i = 0; i < texts.size(); ++i) {
    ASSERT_EQ(p.intern(texts[i]), i);
    views.push_back(p.str(static_cast<uint32_t>(i)));
  }
  for (size_t i = 0; i < texts.size(); ++i) {
    EXPECT_EQ(p.intern(texts[i]), i);
    EXPECT_EQ(p.find(texts[i]), i);
    EXPECT_EQ(views[i], texts[i]);  // views taken before the pool grew
    EXPECT_EQ(views[i].data(), p.str(static_cast<uint32_t>(i)).data());
  }
  StringPool moved = std::move(p);
  EXPECT_EQ(moved.size(), texts.size());
  EXPECT_EQ(moved.find(texts[12345]), 12345u);
  EXPECT_EQ(views[7], texts[7]);
}

TEST(StringPool, HashDependsOnEveryByteAndTheLength) {
  const std::string s = "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)";
  const uint64_t h = hash_bytes(s.data(), s.size());
  EXPECT_EQ(h, hash_bytes(s.data(), s.size()));
  for (size_t i = 0; i < s.size(); ++i) {
    std::string t = s;
    t[i] ^= 1;
    EXPECT_NE(hash_bytes(t.data(), t.size()), h) << i;
  }
  for (size_t n = 0; n < s.size(); ++n) EXPECT_NE(hash_bytes(s.data(), n), h) << n;
  EXPECT_NE(hash_bytes("ab", 2), hash_bytes("ba", 2));
  EXPECT_NE(hash_bytes("", 0), hash_bytes("\0", 1));
}

}  // namespace
