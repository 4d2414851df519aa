// io/xlsx: the ZIP container and the one-sheet workbook.
// - ZipWriter: every entry read back by hand from the archive's bytes (local header, raw inflate
//   with zlib, CRC-32), the central directory's count and offset, names in order.
// - xlsx_cell_name on values worked out by hand ("A1", "Z1", "AA1", "XFD1048576").
// - XlsxSheet: the parts a reader needs, a string cell in the shared string table (escaped, the
//   _xHHHH_ rule, counted), a number with 16 significant digits, "" written blank, "=..." as a
//   formula, merged ranges, the stored column width of XlsxWriter (40 -> 40.7109375).
#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>

#include "io/xlsx/xlsx_writer.h"
#include "io/xlsx/zip_writer.h"
#include "support/test_files.h"

namespace fs = std::filesystem;

namespace {

uint32_t u16(const std::string& b, size_t at) {
  return static_cast<uint8_t>(b[at]) | static_cast<uint32_t>(static_cast<uint8_t>(b[at + 1])) << 8;
}
uint32_t u32(const std::string& b, size_t at) {
  return u16(b, at) | u16(b, at + 2) << 16;
}

// name -> content of every entry, read through the local headers (checked against their CRC).
std::map<std::string, std::string> unzip(const std::string& b) {
  std::map<std::string, std::string> out;
  size_t at = 0;
  while (u32(b, at) == 0x04034b50) {
    EXPECT_EQ(u16(b, at + 8), 8u);  // deflate
    const uint32_t crc = u32(b, at + 14), packed = u32(b, at + 18), size = u32(b, at + 22);
    const uint32_t name_len = u16(b, at + 26), extra = u16(b, at + 28);
    const std::string name = b.substr(at + 30, name_len);
    std::string data(size, '\0');
    z_stream z{};
    EXPECT_EQ(inflateInit2(&z, -15), Z_OK);
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(b.data() + at + 30 + name_len + extra));
    z.avail_in = packed;
    z.next_out = reinterpret_cast<Bytef*>(data.data());
    z.avail_out = size;
    EXPECT_EQ(inflate(&z, Z_FINISH), Z_STREAM_END) << name;
    inflateEnd(&z);
    EXPECT_EQ(crc32(0, reinterpret_cast<const Bytef*>(data.data()), size), crc) << name;
    out[name] = data;
    at += 30 + name_len + extra + packed;
  }
  EXPECT_EQ(u32(b, at), 0x02014b50u);  // the central directory follows the last entry
  const size_t end = b.size() - 22;
  EXPECT_EQ(u32(b, end), 0x06054b50u);
  EXPECT_EQ(u16(b, end + 10), out.size());
  EXPECT_EQ(u32(b, end + 16), at);
  return out;
}

TEST(ZipWriter, EntriesReadBack) {
  cs::io::ZipWriter zip;
  std::string error, bytes;
  const std::string big(100000, 'x');
  ASSERT_TRUE(zip.add("a.txt", "hello", error)) << error;
  ASSERT_TRUE(zip.add("dir/b.xml", big, error)) << error;
  ASSERT_TRUE(zip.add("empty", "", error)) << error;
  ASSERT_TRUE(zip.finish(bytes, error)) << error;
  EXPECT_LT(bytes.size(), 2000u);  // 100 kB of one letter deflates to almost nothing
  const auto files = unzip(bytes);
  ASSERT_EQ(files.size(), 3u);
  EXPECT_EQ(files.at("a.txt"), "hello");
  EXPECT_EQ(files.at("dir/b.xml"), big);
  EXPECT_EQ(files.at("empty"), "");
}

TEST(XlsxWriter, CellNames) {
  using cs::io::xlsx_cell_name;
  EXPECT_EQ(xlsx_cell_name(0, 0), "A1");
  EXPECT_EQ(xlsx_cell_name(0, 25), "Z1");
  EXPECT_EQ(xlsx_cell_name(0, 26), "AA1");
  EXPECT_EQ(xlsx_cell_name(9, 27), "AB10");
  EXPECT_EQ(xlsx_cell_name(1048575, 16383), "XFD1048576");
}

TEST(XlsxWriter, SheetParts) {
  cs::test::TempDir dir("xlsx_writer");
  cs::io::XlsxSheet sheet("Sheet1");
  cs::io::XlsxFormat f;
  f.font_name = "Times New Roman";
  f.bold = true;
  const int bold = sheet.add_format(f);
  EXPECT_EQ(sheet.add_format(f), bold);
  sheet.write(0, 0, "a<b & _x0041_", bold);
  sheet.write(0, 1, "a<b & _x0041_", 0);
  sheet.number(1, 0, 1500.0, 0);
  sheet.number(1, 1, 0.1 + 0.2, 0);
  sheet.write(2, 0, "", bold);
  sheet.write(2, 1, "=SUM(A2:B2)", 0);
  sheet.write(3, 0, "m", 0);
  sheet.merge(3, 0, 5, 0, 0);
  sheet.column_width(0, 40);
  sheet.row_height(0, 27);
  cs::io::Diagnostics diag;
  const fs::path path = dir.path() / "x.xlsx";
  ASSERT_TRUE(sheet.save(path.string(), diag));
  const auto files = unzip(cs::test::slurp(path));
  for (const char* part :
       {"[Content_Types].xml", "_rels/.rels", "xl/workbook.xml", "xl/_rels/workbook.xml.rels",
        "xl/styles.xml", "xl/sharedStrings.xml", "xl/worksheets/sheet1.xml"})
    EXPECT_EQ(files.count(part), 1u) << part;
  const std::string& strings = files.at("xl/sharedStrings.xml");
  EXPECT_NE(strings.find("count=\"3\" uniqueCount=\"2\""), std::string::npos) << strings;
  EXPECT_NE(strings.find("<t>a&lt;b &amp; _x005F_x0041_</t>"), std::string::npos) << strings;
  const std::string& s = files.at("xl/worksheets/sheet1.xml");
  EXPECT_NE(s.find("<c r=\"A1\" s=\"1\" t=\"s\"><v>0</v></c><c r=\"B1\" t=\"s\"><v>0</v></c>"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("<c r=\"A2\"><v>1500</v></c><c r=\"B2\"><v>0.3</v></c>"), std::string::npos)
      << s;
  EXPECT_NE(s.find("<c r=\"A3\" s=\"1\"/><c r=\"B3\"><f>SUM(A2:B2)</f><v>0</v></c>"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("<c r=\"A5\"/>"), std::string::npos) << s;
  EXPECT_NE(s.find("<mergeCell ref=\"A4:A6\"/>"), std::string::npos) << s;
  EXPECT_NE(s.find("width=\"40.7109375\""), std::string::npos) << s;
  EXPECT_NE(s.find("<row r=\"1\" ht=\"27\" customHeight=\"1\">"), std::string::npos) << s;
}

}  // namespace
