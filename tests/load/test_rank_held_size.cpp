// What the root holds per rank for the whole run (issue 38): a parked or emptied part holds no File
// (an empty MatrixFile alone allocates its string pool), an absent memory summary is one pointer,
// and the file lists go once the manifest is built; none of it changes what is read back.

#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "io/byte_buffer.h"
#include "load/heap_optional.h"
#include "load/rank_communication.h"
#include "load/rank_data.h"
#include "load/rank_data_codec.h"
#include "runtime/spill_file.h"

namespace cs::load {
namespace {

RankMatrix one_link_matrix() {
  readers::MatrixFile m;
  readers::MatrixStep step;
  step.step = "step1";
  readers::MatrixOp op;
  op.key = "allreduce-top1@42";
  readers::MatrixLink l;
  l.link_id = m.keep("0-1");
  l.op_name_id = m.keep("hcom_allReduce__844_2_1");
  l.has_op_name = true;
  l.set(readers::kLinkSizeMb, io::Num::real(12.0));
  op.links.push_back(l);
  step.collective.push_back(op);
  m.steps.push_back(step);
  return RankMatrix(std::move(m));
}

std::vector<char> bytes_of(const RankMatrix& m) {
  std::vector<char> out;
  m.packed_copy(out);
  return out;
}

TEST(ParkedFileHeld, EmptyPartsReadAsEmptyAndEditMakesOne) {
  RankMatrix m;  // nothing given: reads as an empty file in every state
  readers::MatrixFile scratch;
  EXPECT_TRUE(m.read(scratch).steps.empty());
  m.pack();
  EXPECT_TRUE(m.packed());
  EXPECT_TRUE(m.read(scratch).steps.empty());
  m.unpack();
  EXPECT_FALSE(m.packed());
  EXPECT_TRUE(m.read(scratch).steps.empty());
  // edit() on a part that never had data makes one to fill.
  RankMatrix fresh;
  fresh.edit().steps.emplace_back();
  EXPECT_EQ(fresh.read(scratch).steps.size(), 1u);
}

TEST(ParkedFileHeld, CopiesAreDeepInEveryStateAndKeepTheBytes) {
  const RankMatrix held = one_link_matrix();
  const std::vector<char> want = bytes_of(held);
  ASSERT_FALSE(want.empty());

  RankMatrix copy = held;  // held: the copy owns its own file
  copy.edit().steps.clear();
  EXPECT_EQ(bytes_of(held), want);  // the original is untouched
  readers::MatrixFile scratch;
  EXPECT_TRUE(copy.read(scratch).steps.empty());

  RankMatrix packed = held;
  packed.pack();
  RankMatrix packed_copy;
  packed_copy = packed;
  EXPECT_TRUE(packed_copy.packed());
  EXPECT_EQ(bytes_of(packed_copy), want);

  auto file = runtime::SpillFile::create();
  RankMatrix spilled = held;
  spilled.spill(file);
  ASSERT_TRUE(spilled.spilled());
  RankMatrix spilled_copy(spilled);
  EXPECT_EQ(bytes_of(spilled_copy), want);
  const readers::MatrixFile& back = spilled_copy.read(scratch);
  ASSERT_EQ(back.steps.size(), 1u);
  EXPECT_EQ(back.link_key(back.steps[0].collective[0].links[0]), "0-1");
  EXPECT_EQ(back.op_name(back.steps[0].collective[0].links[0]), "hcom_allReduce__844_2_1");

  // Emptied the way the stage list frees the matrix: nothing held, reads as empty.
  spilled = RankMatrix{};
  EXPECT_FALSE(spilled.spilled());
  EXPECT_TRUE(spilled.read(scratch).steps.empty());
}

// The root holds one RankData per rank for the whole run: a parked part holds its data, its
// packed pages or its spill block, one at a time (6 words, not 8).
TEST(RankDataHeld, AParkedPartIsSixWords) {
  static_assert(sizeof(RankCommunication) <= 6 * sizeof(void*));
  static_assert(sizeof(RankHost) <= 6 * sizeof(void*));
  RankCommunication c;
  readers::CommunicationFile f;
  f.steps.emplace_back();
  c.edit() = f;
  c.pack();
  EXPECT_TRUE(c.packed());
  EXPECT_FALSE(c.spilled());
  EXPECT_FALSE(c.packed_bytes().empty());
  c.unpack();
  EXPECT_FALSE(c.packed());
  EXPECT_TRUE(c.packed_bytes().empty());
  readers::CommunicationFile scratch;
  EXPECT_EQ(c.read(scratch).steps.size(), 1u);
}

TEST(HeapOptional, BehavesAsAnOptionalOfOnePointer) {
  static_assert(sizeof(HeapOptional<std::vector<int>>) == sizeof(void*));
  HeapOptional<std::vector<int>> a;
  EXPECT_FALSE(a);
  a = std::optional<std::vector<int>>();  // nothing: stays empty
  EXPECT_FALSE(a.has_value());
  a = std::vector<int>{1, 2, 3};
  ASSERT_TRUE(a);
  EXPECT_EQ(a->size(), 3u);
  HeapOptional<std::vector<int>> b = a;  // a deep copy
  b->push_back(4);
  EXPECT_EQ(a->size(), 3u);
  EXPECT_EQ((*b)[3], 4);
  b = std::optional<std::vector<int>>(std::vector<int>{9});
  EXPECT_EQ(*b, std::vector<int>{9});
  b = std::optional<std::vector<int>>();
  EXPECT_FALSE(b);
  HeapOptional<std::vector<int>> c = std::move(a);
  EXPECT_TRUE(c);
  c.reset();
  EXPECT_FALSE(c);
}

TEST(RankDataHeld, MemorySummaryRoundTripsThroughTheCodec) {
  RankData d;
  d.entry.rank = 3;
  memory::RankMemory m;
  m.series = "PTA+GE";
  m.peak_allocated = 123456789;
  m.steps.push_back({});
  d.memory = m;
  io::ByteWriter w;
  pack_rank_data(d, w);
  io::ByteReader r(w.data());
  RankData back = unpack_rank_data(r, false);
  ASSERT_TRUE(back.memory);
  EXPECT_EQ(*back.memory, m);

  RankData none;
  io::ByteWriter w2;
  pack_rank_data(none, w2);
  io::ByteReader r2(w2.data());
  EXPECT_FALSE(unpack_rank_data(r2, false).memory);
}

TEST(RankDataHeld, ReleaseEntryListsKeepsTheRestOfTheEntry) {
  std::vector<RankData> ranks(2);
  ranks[0].entry.rank = 0;
  ranks[0].entry.path = "/job/node_0_ascend_pt";
  ranks[0].entry.output_dir = "/job/node_0_ascend_pt/ASCEND_PROFILER_OUTPUT";
  ranks[0].entry.timestamp = "1708156041970";
  ranks[0].entry.files = {"ASCEND_PROFILER_OUTPUT/communication.json"};
  ranks[0].entry.problems = {"communication.json: 1 problem(s)"};
  ranks[0].entry.status = RankStatus::kPartial;
  ranks[1].entry.rank = 1;
  release_entry_lists(ranks);
  EXPECT_TRUE(ranks[0].entry.files.empty());
  EXPECT_EQ(ranks[0].entry.files.capacity(), 0u);
  EXPECT_TRUE(ranks[0].entry.problems.empty());
  EXPECT_EQ(ranks[0].entry.output_dir.capacity(), std::string().capacity());
  EXPECT_TRUE(ranks[0].entry.timestamp.empty());
  EXPECT_EQ(ranks[0].entry.path, "/job/node_0_ascend_pt");
  EXPECT_EQ(ranks[0].entry.status, RankStatus::kPartial);
  EXPECT_EQ(ranks[1].rank(), 1);
}

}  // namespace
}  // namespace cs::load
