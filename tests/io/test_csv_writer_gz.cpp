// write_table_csv_gz: the CSV text of write_table_csv, as one gzip member that zlib's own gzip
// reader (gzread) and the gzip tool give back byte for byte.
#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "io/csv/csv_writer.h"
#include "support/test_files.h"

namespace fs = std::filesystem;
using cs::io::Diagnostics;
using cs::io::Table;
using cs::test::slurp;
using cs::test::TempDir;

namespace {

// The decompressed bytes of a .gz file, read with zlib's gzip reader.
std::string gunzip(const fs::path& p) {
  gzFile f = gzopen(p.c_str(), "rb");
  EXPECT_NE(f, nullptr) << p;
  if (!f) return {};
  std::string out;
  char buf[1 << 16];
  for (int n; (n = gzread(f, buf, sizeof buf)) > 0;) out.append(buf, static_cast<size_t>(n));
  EXPECT_EQ(gzclose(f), Z_OK);
  return out;
}

Table big_table(int rows) {
  Table t("communication_ops");
  auto& k = t.add_string("op");
  auto& v = t.add_double("elapse_ms", "ms");
  auto& r = t.add_int("rank");
  for (int i = 0; i < rows; ++i) {
    k.strings.push_back("hcom_allReduce__" + std::to_string(i % 97) + (i % 11 == 0 ? ",x" : ""));
    v.doubles.push_back(i * 0.0012345);
    r.ints.push_back(i % 4096);
  }
  return t;
}

TEST(CsvWriterGz, SameTextAsThePlainCsvAcrossManyBuffers) {
  TempDir dir;
  const Table t = big_table(300000);  // several MiB of text: many 1 MiB blocks
  Diagnostics diag;
  const fs::path plain = dir.path() / "t.csv", gz = dir.path() / "t.csv.gz";
  ASSERT_TRUE(cs::io::write_table_csv(t, plain.string(), diag));
  ASSERT_TRUE(cs::io::write_table_csv_gz(t, gz.string(), diag));
  EXPECT_TRUE(diag.empty());
  const std::string text = slurp(plain);
  EXPECT_GT(text.size(), size_t{3} << 20);
  EXPECT_EQ(gunzip(gz), text);
  EXPECT_LT(fs::file_size(gz) * 4, text.size());  // it is compressed
  EXPECT_FALSE(fs::exists(gz.string() + ".tmp"));
  // The gzip tool, a reader we did not write, agrees.
  const fs::path back = dir.path() / "back.csv";
  ASSERT_EQ(std::system(("gzip -dc " + gz.string() + " > " + back.string()).c_str()), 0);
  EXPECT_EQ(slurp(back), text);
}

TEST(CsvWriterGz, EmptyTableIsItsHeader) {
  TempDir dir;
  Table t("communication_matrix");
  t.add_int("src_rank");
  t.add_int("dst_rank");
  Diagnostics diag;
  const fs::path gz = dir.path() / "m.csv.gz";
  ASSERT_TRUE(cs::io::write_table_csv_gz(t, gz.string(), diag));
  EXPECT_EQ(gunzip(gz), "src_rank,dst_rank\n");
}

TEST(CsvWriterGz, MissingDirectoryIsADiagnosticNotAFile) {
  TempDir dir;
  const std::string out = (dir.path() / "no_such_dir" / "t.csv.gz").string();
  Diagnostics diag;
  EXPECT_FALSE(cs::io::write_table_csv_gz(big_table(10), out, diag));
  ASSERT_EQ(diag.error_count(), 1u);
  EXPECT_EQ(diag.items().front().file, out);
  EXPECT_FALSE(fs::exists(out));
}

}  // namespace
