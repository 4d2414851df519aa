// io::pack_table / unpack_table: every column kind comes back as it went in, bit for bit, and a
// short or damaged buffer is an exception, never a wrong table.
#include "io/table_codec.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>

using cs::io::ByteReader;
using cs::io::ByteWriter;
using cs::io::Table;

namespace {

Table every_kind() {
  Table t("step_trace");
  auto& step = t.add_string("Step");
  step.strings = {"1", "", "step 3 \xe2\x80\x94 \"quoted\""};
  auto& rank = t.add_int("rank");
  rank.ints = {0, -7, std::numeric_limits<int64_t>::max()};
  auto& free = t.add_double("Free", "us");
  free.doubles = {1.5, std::nan(""), -std::numeric_limits<double>::infinity()};
  auto& group = t.add_encoded_string("group");
  group.dict = {"tp", "dp"};
  group.codes = {1, 0, 1};
  return t;
}

Table round_trip(const Table& t) {
  ByteWriter w;
  cs::io::pack_table(t, w);
  ByteReader r(w.data());
  Table back = cs::io::unpack_table(r);
  EXPECT_TRUE(r.done());
  return back;
}

}  // namespace

TEST(TableCodec, EveryColumnKindComesBackBitForBit) {
  const Table t = every_kind();
  const Table back = round_trip(t);
  EXPECT_EQ(back.name, "step_trace");
  ASSERT_EQ(back.columns.size(), 4u);
  EXPECT_EQ(back.rows(), 3u);
  for (size_t c = 0; c < 4; ++c) {
    EXPECT_EQ(back.columns[c].name, t.columns[c].name);
    EXPECT_EQ(back.columns[c].unit, t.columns[c].unit);
    EXPECT_EQ(back.columns[c].type, t.columns[c].type);
    EXPECT_EQ(back.columns[c].encoded, t.columns[c].encoded);
  }
  EXPECT_EQ(back.columns[0].strings, t.columns[0].strings);
  EXPECT_EQ(back.columns[1].ints, t.columns[1].ints);
  ASSERT_EQ(back.columns[2].doubles.size(), 3u);
  for (size_t i = 0; i < 3; ++i)  // NaN too: compared as bits
    EXPECT_EQ(std::memcmp(&back.columns[2].doubles[i], &t.columns[2].doubles[i], sizeof(double)),
              0);
  EXPECT_EQ(back.columns[3].str(0), "dp");
  EXPECT_EQ(back.columns[3].str(1), "tp");
  EXPECT_EQ(back.columns[3].dict, t.columns[3].dict);
  EXPECT_TRUE(back.columns[3].strings.empty());
}

TEST(TableCodec, AnEmptyTableAndAColumnWithoutRowsComeBack) {
  EXPECT_EQ(round_trip(Table("nothing")).columns.size(), 0u);
  Table t("no_rows");
  t.add_double("x", "ms");
  const Table back = round_trip(t);
  ASSERT_EQ(back.columns.size(), 1u);
  EXPECT_EQ(back.columns[0].unit, "ms");
  EXPECT_EQ(back.rows(), 0u);
}

TEST(TableCodec, EveryShortBufferThrows) {
  ByteWriter w;
  cs::io::pack_table(every_kind(), w);
  const std::vector<char>& full = w.data();
  for (size_t n = 0; n < full.size(); ++n) {
    ByteReader r(full.data(), n);
    EXPECT_THROW(cs::io::unpack_table(r), std::runtime_error) << "cut at " << n;
  }
}

TEST(TableCodec, ABadStringCodeOrColumnTypeThrows) {
  Table t("bad");
  auto& g = t.add_encoded_string("group");
  g.dict = {"tp"};
  g.codes = {0, 1};  // 1 has no dictionary entry
  ByteWriter w;
  cs::io::pack_table(t, w);
  ByteReader r(w.data());
  EXPECT_THROW(cs::io::unpack_table(r), std::runtime_error);

  ByteWriter w2;
  cs::io::pack_table(every_kind(), w2);
  std::vector<char> bytes = w2.data();
  // the first column's type byte: after the name, the column count, the column's name and unit
  const size_t type_at = 4 + 10 + 4 + 4 + 4 + 4 + 0;
  ASSERT_EQ(bytes[type_at], 0);  // kString
  bytes[type_at] = 9;
  ByteReader r2(bytes);
  EXPECT_THROW(cs::io::unpack_table(r2), std::runtime_error);
}

TEST(TableCodec, ColumnByColumnIsTheSameBytesAndItsSizeIsExact) {
  const Table t = every_kind();
  ByteWriter whole;
  cs::io::pack_table(t, whole);
  ByteWriter pieces;
  cs::io::pack_table_head(t, pieces);
  for (const cs::io::Column& c : t.columns) {
    const size_t before = pieces.size();
    cs::io::pack_column(c, pieces);
    EXPECT_EQ(pieces.size() - before, cs::io::packed_column_size(c)) << c.name;
  }
  EXPECT_EQ(pieces.data(), whole.data());
}

TEST(Table, ReserveRowsMakesRoomInEveryColumnKindWithoutAddingRows) {
  cs::io::Table t("t");
  cs::io::Column& s = t.add_string("s");
  cs::io::Column& e = t.add_encoded_string("e");
  cs::io::Column& i = t.add_int("i");
  cs::io::Column& d = t.add_double("d");
  t.reserve_rows(1000);
  EXPECT_EQ(t.rows(), 0u);
  EXPECT_GE(s.strings.capacity(), 1000u);
  EXPECT_GE(e.codes.capacity(), 1000u);
  EXPECT_GE(i.ints.capacity(), 1000u);
  EXPECT_GE(d.doubles.capacity(), 1000u);
  // Filling within the room allocates no more: the columns stay where they are.
  const int64_t* at = i.ints.data();
  for (int k = 0; k < 1000; ++k) i.ints.push_back(k);
  EXPECT_EQ(i.ints.data(), at);
}
