// CsvReader on the real Ascend samples (tests/data/ascend) and on hand-made bad files
// (tests/data/malformed/csv_*): every problem must come back as a diagnostic naming the file and
// a position, never as a crash.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "io/csv/csv_reader.h"

namespace cs::io {
namespace {

const std::string kAscend = std::string(CS_TEST_DATA) + "/ascend/";
const std::string kBad = std::string(CS_TEST_DATA) + "/malformed/";

using Rows = std::vector<std::vector<std::string>>;

struct ReadResult {
  bool opened = false;
  std::vector<std::string> header;
  Rows rows;
  std::vector<int64_t> lines;
  std::vector<int64_t> offsets;
  size_t max_capacity = 0;
};

ReadResult read_all(const std::string& path, Diagnostics& diag, size_t buffer = 1 << 20,
                    bool allow_short = false) {
  ReadResult out;
  CsvReader r(path, diag);
  r.set_buffer_size(buffer);
  r.set_allow_short_rows(allow_short);
  out.opened = r.open();
  if (!out.opened) return out;
  out.header = r.header();
  CsvRow row;
  while (r.next(row)) {
    out.rows.emplace_back(row.fields.begin(), row.fields.end());
    out.lines.push_back(row.line);
    out.offsets.push_back(row.offset);
    out.max_capacity = std::max(out.max_capacity, r.buffer_capacity());
  }
  return out;
}

std::string all_text(const Diagnostics& d) {
  std::string s;
  for (const auto& x : d.items()) s += x.to_string() + "\n";
  return s;
}

// Every diagnostic names the file and a line or a byte offset.
void expect_positioned(const Diagnostics& d, const std::string& path) {
  ASSERT_FALSE(d.empty());
  for (const auto& x : d.items()) {
    EXPECT_EQ(x.file, path);
    EXPECT_TRUE(x.line > 0 || x.offset >= 0) << x.to_string();
    EXPECT_FALSE(x.hint.empty()) << x.to_string();
  }
}

TEST(CsvReader, RealKernelDetails) {
  Diagnostics diag;
  auto r = read_all(kAscend + "kernel_details.csv", diag);
  ASSERT_TRUE(r.opened) << all_text(diag);
  EXPECT_TRUE(diag.empty()) << all_text(diag);
  ASSERT_EQ(r.header.size(), 46u);
  EXPECT_EQ(r.header[0], "Step Id");
  EXPECT_EQ(r.header[45], "cube_utilization(%)");
  ASSERT_EQ(r.rows.size(), 29u);  // the last row has no trailing newline
  const auto& first = r.rows[0];
  EXPECT_EQ(first[4], "aclnnMatmul_MatMulCommon_MatMulV2");
  EXPECT_EQ(first[8], "1736413971558972.912\t");    // quoted, with the producer's TAB
  EXPECT_EQ(first[14], "\"81920,4096;8192,512\"");  // """...""" unquoted once
  EXPECT_EQ(first[17], "\"4096,512\"");
  EXPECT_EQ(first[45], "79.295");
  const auto& last = r.rows[28];
  EXPECT_EQ(last[4], "aclnnAdd_AddAiCore_Add");
  EXPECT_EQ(last[14], "\";\"");
  EXPECT_EQ(last[17], "\"\"");
  EXPECT_EQ(last[45], "0");
  EXPECT_EQ(r.lines[0], 2);
  EXPECT_EQ(r.lines[28], 30);
  for (const auto& row : r.rows) EXPECT_EQ(row.size(), 46u);
}

TEST(CsvReader, TinyBuffersGiveTheSameRows) {
  Diagnostics d0;
  auto ref = read_all(kAscend + "kernel_details.csv", d0);
  for (size_t buf : {16, 17, 33, 100, 401, 4096}) {
    Diagnostics d;
    auto r = read_all(kAscend + "kernel_details.csv", d, buf);
    EXPECT_TRUE(d.empty()) << all_text(d);
    EXPECT_EQ(r.rows, ref.rows) << "buffer " << buf;
    EXPECT_EQ(r.lines, ref.lines);
    EXPECT_EQ(r.offsets, ref.offsets);
  }
}

TEST(CsvReader, RealSmallKernelTable) {
  Diagnostics diag;
  auto r = read_all(kAscend + "kernel_details_small.csv", diag);
  ASSERT_TRUE(r.opened);
  EXPECT_TRUE(diag.empty()) << all_text(diag);
  ASSERT_EQ(r.header.size(), 7u);
  ASSERT_EQ(r.rows.size(), 8u);
  EXPECT_EQ(r.rows[0][0], "Cast16");
  EXPECT_EQ(r.rows[0][4], "932.0498");
  EXPECT_EQ(r.rows[7][0], "atomic_memset-1_18_186609_1");
  EXPECT_EQ(r.rows[7][5], "177181.28");
  EXPECT_EQ(r.rows[1][1], "N/A");
}

TEST(CsvReader, RealClusterStepTrace) {
  Diagnostics diag;
  CsvReader r(kAscend + "cluster_step_trace_time.csv", diag);
  ASSERT_TRUE(r.open());
  EXPECT_EQ(r.header().size(), 11u);
  EXPECT_EQ(r.column("Step"), 0);
  EXPECT_EQ(r.column("Index"), 2);
  EXPECT_EQ(r.column("Communication(Not Overlapped and Exclude Receive)"), 10);
  EXPECT_EQ(r.column("Preparing"), -1);  // older header
  CsvRow row;
  int n = 0;
  double comm_sum = 0;
  while (r.next(row)) {
    ++n;
    EXPECT_EQ(row[0], "");  // Step left empty by the producer
    double v = 0;
    ASSERT_TRUE(parse_number(row[r.column("Communication")], v));
    if (row[1] == "rank") comm_sum += v;
    if (n == 1) {
      EXPECT_EQ(row[2], "0");
      ASSERT_TRUE(parse_number(row[3], v));
      EXPECT_DOUBLE_EQ(v, 80309.68717187493);
    }
    if (row[1] == "stage") {
      EXPECT_EQ(row[2], "(0, 1, 2, 3, 4, 5, 6, 7)");  // a quoted cell with commas
      ASSERT_TRUE(parse_number(row[6], v));
      EXPECT_DOUBLE_EQ(v, 763600.77);
    }
  }
  EXPECT_EQ(n, 9);
  EXPECT_EQ(r.rows_read(), 9);
  EXPECT_EQ(r.rows_skipped(), 0);
  EXPECT_NEAR(comm_sum,
              689255.834328125 + 133462.45670312498 + 532336.0719531251 + 267350.04000000004 +
                  480702.39 + 763600.77 + 245691.95 + 541416.29,
              1e-6);
  EXPECT_TRUE(diag.empty()) << all_text(diag);
}

TEST(CsvReader, QuirksQuotesNewlinesCrlfBom) {
  Diagnostics diag;
  auto r = read_all(kBad + "csv_quirks.csv", diag);
  ASSERT_TRUE(r.opened);
  EXPECT_TRUE(diag.empty()) << all_text(diag);
  EXPECT_EQ(r.header[0], "Step Id");        // BOM removed
  EXPECT_EQ(r.header[9], "Output Shapes");  // CR removed
  ASSERT_EQ(r.rows.size(), 3u);             // the blank line is skipped
  EXPECT_EQ(r.rows[0][1], "hcom_allReduce__184_0_1\nat train.py:42");
  EXPECT_EQ(r.rows[0][2], "Hcom, AllReduce");
  EXPECT_EQ(r.rows[0][9], "\"say \"hi\"\"");
  EXPECT_EQ(r.rows[1][0], " 20 ");
  EXPECT_EQ(r.rows[1][9], "\"1536,4096\"");
  EXPECT_EQ(r.rows[2][9], "");                          // last row, no newline
  EXPECT_EQ(r.lines, (std::vector<int64_t>{2, 5, 6}));  // the quoted newline counts
  for (size_t buf : {16, 20, 64}) {
    Diagnostics d;
    EXPECT_EQ(read_all(kBad + "csv_quirks.csv", d, buf).rows, r.rows) << buf;
  }
}

TEST(CsvReader, CrlfAndBomFiles) {
  for (const char* name : {"csv_crlf.csv", "csv_bom.csv"}) {
    Diagnostics diag;
    auto r = read_all(kBad + name, diag);
    ASSERT_TRUE(r.opened) << name;
    EXPECT_TRUE(diag.empty()) << all_text(diag);
    EXPECT_EQ(r.header.front(), "Name");
    EXPECT_EQ(r.header.back(), "Block Dim");
    ASSERT_EQ(r.rows.size(), 3u);
    EXPECT_EQ(r.rows[2][6], "0");  // no CR left on the last field
    EXPECT_EQ(r.rows[1][5], "199251.9502");
  }
}

TEST(CsvReader, OpenTextMatchesFile) {
  Diagnostics diag;
  CsvReader r("inline", diag);
  ASSERT_TRUE(r.open_text("a,b\r\n1,\"x,\"\"y\"\"\"\r\n", "inline"));
  CsvRow row;
  ASSERT_TRUE(r.next(row));
  EXPECT_EQ(row[1], "x,\"y\"");
  EXPECT_EQ(row[5], "");  // beyond the row
  EXPECT_EQ(row[-1], "");
  EXPECT_FALSE(r.next(row));
  EXPECT_EQ(r.bytes_read(), 18);
}

TEST(CsvReader, MissingFile) {
  Diagnostics diag;
  CsvReader r(kBad + "does_not_exist.csv", diag);
  EXPECT_FALSE(r.open());
  ASSERT_EQ(diag.items().size(), 1u);
  EXPECT_EQ(diag.items()[0].file, kBad + "does_not_exist.csv");
  EXPECT_NE(diag.items()[0].what.find("file not found"), std::string::npos);
  CsvRow row;
  EXPECT_FALSE(r.next(row));  // reading a reader that failed to open just ends
  CsvReader never_opened("x", diag);
  EXPECT_FALSE(never_opened.next(row));
}

TEST(CsvReader, EmptyAndBlankFiles) {
  for (const char* name : {"csv_empty.csv", "csv_blank_lines.csv"}) {
    Diagnostics diag;
    auto r = read_all(kBad + name, diag);
    EXPECT_FALSE(r.opened) << name;
    expect_positioned(diag, kBad + name);
    EXPECT_EQ(diag.error_count(), 1u) << all_text(diag);
  }
  Diagnostics diag;
  read_all(kBad + "csv_empty.csv", diag);
  EXPECT_NE(diag.items()[0].what.find("empty"), std::string::npos);
}

TEST(CsvReader, BinaryFile) {
  Diagnostics diag;
  auto r = read_all(kBad + "csv_binary.csv", diag);
  EXPECT_FALSE(r.opened);
  expect_positioned(diag, kBad + "csv_binary.csv");
  EXPECT_NE(diag.items()[0].what.find("binary"), std::string::npos) << all_text(diag);
  EXPECT_EQ(diag.items()[0].offset, 3);
}

TEST(CsvReader, Utf16File) {
  Diagnostics diag;
  EXPECT_FALSE(read_all(kBad + "csv_utf16.csv", diag).opened);
  expect_positioned(diag, kBad + "csv_utf16.csv");
  EXPECT_NE(diag.items()[0].what.find("UTF-16"), std::string::npos);
}

TEST(CsvReader, ZeroFilledTail) {
  Diagnostics diag;
  auto r = read_all(kBad + "csv_zero_filled_tail.csv", diag, 64);
  ASSERT_TRUE(r.opened);
  EXPECT_EQ(r.rows.size(), 3u);  // the rows before the zeros
  expect_positioned(diag, kBad + "csv_zero_filled_tail.csv");
  // The cut row, then the NUL bytes.
  ASSERT_EQ(diag.items().size(), 2u) << all_text(diag);
  EXPECT_EQ(diag.items()[0].line, 5);
  EXPECT_NE(diag.items()[1].what.find("NUL byte at byte 265"), std::string::npos) << all_text(diag);
}

TEST(CsvReader, TruncatedMidRow) {
  Diagnostics diag;
  auto r = read_all(kBad + "csv_truncated_mid_row.csv", diag);
  ASSERT_TRUE(r.opened);
  EXPECT_EQ(r.rows.size(), 3u);
  expect_positioned(diag, kBad + "csv_truncated_mid_row.csv");
  ASSERT_EQ(diag.items().size(), 1u);
  const auto& d = diag.items()[0];
  EXPECT_EQ(d.line, 5);
  EXPECT_EQ(d.offset, 239);
  EXPECT_NE(d.what.find("row has 4 fields, header has 7"), std::string::npos) << d.what;
  // The row's text is not echoed (issue 17, finding 8): line and offset say where it is.
  EXPECT_EQ(d.what.find("Add18"), std::string::npos) << d.what;
  EXPECT_NE(d.what.find("(a row of "), std::string::npos) << d.what;
  EXPECT_NE(d.hint.find("ends inside"), std::string::npos) << d.hint;
}

TEST(CsvReader, TruncatedMidQuote) {
  for (size_t buf : {size_t{16}, size_t{1} << 20}) {
    Diagnostics diag;
    auto r = read_all(kBad + "csv_truncated_mid_quote.csv", diag, buf);
    ASSERT_TRUE(r.opened);
    ASSERT_EQ(r.rows.size(), 1u);
    EXPECT_EQ(r.rows[0][7], "\"81920,4096;8192,512\"");
    expect_positioned(diag, kBad + "csv_truncated_mid_quote.csv");
    ASSERT_EQ(diag.items().size(), 1u) << all_text(diag);
    EXPECT_EQ(diag.items()[0].line, 3);
    EXPECT_NE(diag.items()[0].what.find("not closed"), std::string::npos);
  }
}

TEST(CsvReader, WrongFieldCounts) {
  Diagnostics diag;
  auto r = read_all(kBad + "csv_wrong_field_count.csv", diag);
  ASSERT_TRUE(r.opened);
  ASSERT_EQ(r.rows.size(), 3u);
  EXPECT_EQ(r.rows[2][0], "atomic_memset-1_18_186609_1");
  EXPECT_EQ(r.lines, (std::vector<int64_t>{2, 4, 6}));
  expect_positioned(diag, kBad + "csv_wrong_field_count.csv");
  ASSERT_EQ(diag.items().size(), 2u);
  EXPECT_EQ(diag.items()[0].line, 3);
  EXPECT_NE(diag.items()[0].what.find("row has 6 fields, header has 7"), std::string::npos);
  EXPECT_EQ(diag.items()[1].line, 5);
  EXPECT_NE(diag.items()[1].what.find("row has 9 fields"), std::string::npos);

  // Short rows can be accepted (missing optional trailing columns); long ones never are.
  Diagnostics d2;
  auto r2 = read_all(kBad + "csv_wrong_field_count.csv", d2, 1 << 20, true);
  EXPECT_EQ(r2.rows.size(), 4u);
  EXPECT_EQ(d2.items().size(), 1u);
}

TEST(CsvReader, RowTextIsNotEchoedInTheDiagnostic) {
  std::string text = "a,b\n" + std::string(5000, 'x') + "\n1,2\n";
  Diagnostics diag;
  CsvReader r("long", diag);
  ASSERT_TRUE(r.open_text(text, "long"));
  CsvRow row;
  ASSERT_TRUE(r.next(row));
  EXPECT_EQ(row[1], "2");
  ASSERT_EQ(diag.items().size(), 1u);
  EXPECT_LT(diag.items()[0].what.size(), 300u);
  EXPECT_EQ(diag.items()[0].what.find("xxx"), std::string::npos);
  EXPECT_NE(diag.items()[0].what.find("a row of 5000 bytes"), std::string::npos);
}

// Issue 17, finding 7: a run of millions of commas costs no memory per field. A header that wide
// stops the reader (one error); a row that wide is skipped, the rows after it are read.
TEST(CsvReader, FieldCountIsBounded) {
  const std::string wide(CsvReader::kMaxFields + 10, ',');
  {
    Diagnostics diag;
    CsvReader r("wide_header", diag);
    EXPECT_FALSE(r.open_text("a" + wide + "\n1,2\n", "wide_header"));
    ASSERT_EQ(diag.error_count(), 1u) << all_text(diag);
    EXPECT_NE(diag.items()[0].what.find("more than 65536 fields in a row (65547) in the header"),
              std::string::npos)
        << all_text(diag);
  }
  Diagnostics diag;
  CsvReader r("wide_row", diag);
  ASSERT_TRUE(r.open_text("a,b\n" + wide + "\n1,2\n", "wide_row"));
  CsvRow row;
  ASSERT_TRUE(r.next(row));
  EXPECT_EQ(row[0], "1");
  EXPECT_FALSE(r.next(row));
  ASSERT_EQ(diag.items().size(), 1u) << all_text(diag);
  EXPECT_EQ(diag.items()[0].line, 2);
  EXPECT_LT(r.buffer_capacity(), size_t{1} << 20);
}

// Memory stays at the read buffer's size, whatever the file size; one giant row grows it.
TEST(CsvReader, StreamingKeepsTheBufferSmall) {
  auto path = std::filesystem::temp_directory_path() / "cs_test_csv_streaming.csv";
  {
    std::ofstream f(path, std::ios::binary);
    f << "id,name,value\n";
    for (int i = 0; i < 200000; ++i) f << i << ",\"kernel, " << i << "\"," << i * 0.5 << "\n";
    f << "200000,\"" << std::string(300000, 'g') << "\",1\n";
    f << "200001,last,2\n";
  }
  Diagnostics diag;
  CsvReader r(path.string(), diag);
  r.set_buffer_size(64 << 10);
  ASSERT_TRUE(r.open());
  CsvRow row;
  int64_t n = 0;
  double sum = 0;
  size_t max_cap_before_giant = 0;
  while (r.next(row)) {
    double v = 0;
    ASSERT_TRUE(parse_number(row[2], v)) << row.line;
    sum += v;
    if (n < 200000) max_cap_before_giant = std::max(max_cap_before_giant, r.buffer_capacity());
    if (n == 123456) {
      EXPECT_EQ(row[1], "kernel, 123456");
    }
    ++n;
  }
  EXPECT_EQ(n, 200002);
  EXPECT_DOUBLE_EQ(sum, 0.5 * 199999.0 * 200000.0 / 2 + 3);
  EXPECT_EQ(max_cap_before_giant, size_t{64} << 10);
  EXPECT_GE(r.buffer_capacity(), size_t{300000});
  EXPECT_EQ(r.bytes_read(), static_cast<int64_t>(std::filesystem::file_size(path)));
  EXPECT_TRUE(diag.empty());
  std::filesystem::remove(path);
}

TEST(CsvReader, UnterminatedQuoteSwallowsTheRest) {
  std::string text = "a,b\n1,\"open\n" + std::string(200, 'z') + "\n";
  Diagnostics diag;
  CsvReader r("t", diag);
  ASSERT_TRUE(r.open_text(text, "t"));
  CsvRow row;
  EXPECT_FALSE(r.next(row));
  ASSERT_EQ(diag.items().size(), 1u);
  EXPECT_EQ(diag.items()[0].line, 2);
}

// Everything a reader saw: header, rows with positions, diagnostics.
std::string transcript(CsvReader& r, const Diagnostics& diag, bool opened) {
  std::string t = opened ? "open\n" : "failed\n";
  if (opened) {
    for (const auto& h : r.header()) t += h + "|";
    t += "\n";
    CsvRow row;
    while (r.next(row)) {
      t += std::to_string(row.line) + "@" + std::to_string(row.offset) + ":";
      for (auto f : row.fields) (t += f) += "|";
      t += "\n";
    }
  }
  for (const auto& d : diag.items()) t += d.to_string() + " @" + std::to_string(d.offset) + "\n";
  return t;
}

// Random damage to the real sample (stray quotes, commas, newlines, CRs, NULs, cuts): reading
// through any buffer size gives exactly what reading it in one piece gives, and never crashes.
TEST(CsvReader, DamagedFilesReadTheSameWithAnyBuffer) {
  std::ifstream in(kAscend + "kernel_details.csv", std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string base = ss.str();
  const std::string path =
      (std::filesystem::temp_directory_path() / "cs_test_csv_damaged.csv").string();
  std::mt19937 rng(12345);
  const char* inserts[] = {"\"", ",", "\n", "\r", "(NUL)", "\"\""};
  int differing_row_counts = 0;
  for (int round = 0; round < 300; ++round) {
    std::string s = base;
    int edits = 1 + static_cast<int>(rng() % 5);
    for (int k = 0; k < edits; ++k) {
      size_t at = rng() % (s.size() + 1);
      unsigned kind = rng() % 8;
      if (kind < 6) {
        s.insert(at, kind == 4 ? std::string(1, '\0') : std::string(inserts[kind]));
      } else if (kind == 6 && at < s.size()) {
        s.erase(at, 1);
      } else {
        s.resize(at);
      }
    }
    {
      std::ofstream out(path, std::ios::binary);
      out << s;
    }
    Diagnostics d0;
    CsvReader whole(path, d0);
    bool ok0 = whole.open_text(s, path);
    const std::string want = transcript(whole, d0, ok0);
    if (whole.rows_read() != 29) ++differing_row_counts;
    for (size_t buf : {16, 29, 64, 301}) {
      Diagnostics d;
      CsvReader r(path, d);
      r.set_buffer_size(buf);
      bool ok = r.open();
      ASSERT_EQ(transcript(r, d, ok), want) << "round " << round << " buffer " << buf;
    }
  }
  EXPECT_GT(differing_row_counts, 100);  // the damage did something
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace cs::io
