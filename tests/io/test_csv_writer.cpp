// CSV writer: exact text for the cases that matter (quoting, number spelling, empty tables),
// atomic replace and error paths, and a round trip read back by Python's csv module.

#include "io/csv/csv_writer.h"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cinttypes>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include "support/missing_tool.h"
#include "support/test_files.h"

namespace fs = std::filesystem;
using cs::io::Diagnostics;
using cs::io::Table;

namespace {

using cs::test::run_merged;
using cs::test::slurp;
using cs::test::TempDir;

Table all_types_table() {
  Table t("mixed");
  auto& s = t.add_string("name");
  auto& i = t.add_int("rank");
  auto& d = t.add_double("value");  // no unit: exact (shortest round trip)
  s.strings = {
      "plain",   "a,b", "say \"hi\"", "line1\nline2", "cr\rhere", "", "\xe4\xb8\xad\xe6\x96\x87 ok",
      " spaced "};
  i.ints = {
      0,       -1, std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::min(), 42, 7,
      1000000, 3};
  d.doubles = {0.1 + 0.2,
               std::numeric_limits<double>::quiet_NaN(),
               std::numeric_limits<double>::infinity(),
               -std::numeric_limits<double>::infinity(),
               1e20,
               -0.0,
               std::numeric_limits<double>::denorm_min(),
               3.0};
  return t;
}

}  // namespace

TEST(CsvWriter, QuotesOnlyWhenNeeded) {
  std::string s;
  cs::io::append_csv_field(s, "plain text");
  EXPECT_EQ(s, "plain text");
  s.clear();
  cs::io::append_csv_field(s, "a,b");
  EXPECT_EQ(s, "\"a,b\"");
  s.clear();
  cs::io::append_csv_field(s, "say \"hi\"");
  EXPECT_EQ(s, "\"say \"\"hi\"\"\"");
  s.clear();
  cs::io::append_csv_field(s, "x\ny");
  EXPECT_EQ(s, "\"x\ny\"");
  s.clear();
  cs::io::append_csv_field(s, "x\ry");
  EXPECT_EQ(s, "\"x\ry\"");
  s.clear();
  cs::io::append_csv_field(s, "\xe4\xb8\xad;'tab\t'");  // UTF-8, semicolon, tab: left alone
  EXPECT_EQ(s, "\xe4\xb8\xad;'tab\t'");
}

// Issue 17, finding 9: invalid UTF-8 and NUL bytes from a damaged input become U+FFFD; valid
// UTF-8 is left alone. Checked against Python: b"a\xff\x00b,\xc3\xa9".decode("utf-8",
// "replace").replace("\x00", "\ufffd").encode() == b"a\xef\xbf\xbd\xef\xbf\xbdb,\xc3\xa9".
TEST(CsvWriter, InvalidUtf8AndNulReplaced) {
  std::string s;
  cs::io::append_csv_field(s, std::string_view("a\xff\x00"
                                               "b,\xc3\xa9",
                                               7));
  EXPECT_EQ(s,
            "\"a\xef\xbf\xbd\xef\xbf\xbd"
            "b,\xc3\xa9\"");
  s.clear();
  cs::io::append_csv_field(s, "cut \xe4\xb8");  // a sequence cut short
  EXPECT_EQ(s, "cut \xef\xbf\xbd\xef\xbf\xbd");
  s.clear();
  const std::string long_ascii(100, 'x');
  cs::io::append_csv_field(s, long_ascii + std::string(1, '\0'));  // past the 8-byte fast path
  EXPECT_EQ(s, long_ascii + "\xef\xbf\xbd");
}

TEST(CsvWriter, ExactTextForAllColumnTypes) {
  EXPECT_EQ(cs::io::table_to_csv(all_types_table()),
            "name,rank,value\n"
            "plain,0,0.30000000000000004\n"
            "\"a,b\",-1,nan\n"
            "\"say \"\"hi\"\"\",9223372036854775807,inf\n"
            "\"line1\nline2\",-9223372036854775808,-inf\n"
            "\"cr\rhere\",42,1e+20\n"
            ",7,-0\n"
            "\xe4\xb8\xad\xe6\x96\x87 ok,1000000,5e-324\n"
            " spaced ,3,3\n");
}

// Issue 15, point 9: numbers with the digits their column needs. Times to the nanosecond (us: 3
// decimals, ms: 6), MB to the byte, rates and ratios to 6 significant digits; counts and
// unit-less columns exact. Python agrees: f"{71.87163054120971:.3f}" == "71.872",
// f"{0.123456789:.6g}" == "0.123457", f"{1234567.89:.6g}" == "1.23457e+06" (1234570), and
// f"{7.0000005:.6f}" == "7.000000" (the double is below 7.0000005).
TEST(CsvWriter, NumbersWithTheDigitsTheirUnitNeeds) {
  Table t("digits");
  t.add_double("t_us", "us").doubles = {71.87163054120971, 3.0, -0.0001, 1e20, 0.0005};
  t.add_double("t_ms", "ms").doubles = {0.07187163054120971, 12.5, 1.0 / 3, -2.0000004, 0};
  t.add_double("size_mb", "MB").doubles = {0.1 + 0.2, 1024, 1e-7, 7.0000005, 2};
  t.add_double("bw", "GB/s").doubles = {0.123456789, 1234567.89, 5e-12, 20, 1.0 / 3};
  t.add_double("ratio", "ratio").doubles = {2.0 / 3, 1, 0, -0.000123456789, 0.5};
  t.add_double("pct", "%").doubles = {99.99999, 12.345678, 100, 0.001, 50};
  t.add_double("flops", "FLOP").doubles = {1342177280.0, 0.1 + 0.2, 1e20, 3, 1.5};
  t.add_double("score", "ms per step").doubles = {1.23456789, 0, 2, 3, 4};
  EXPECT_EQ(cs::io::table_to_csv(t),
            "t_us,t_ms,size_mb,bw,ratio,pct,flops,score\n"
            "71.872,0.071872,0.3,0.123457,0.666667,100,1342177280,1.234568\n"
            "3,12.5,1024,1234570,1,12.3457,0.30000000000000004,0\n"
            "0,0.333333,0,5e-12,0,100,1e+20,2\n"
            "1e+20,-2,7,20,-0.000123457,0.001,3,3\n"
            "0.001,0,2,0.333333,0.5,50,1.5,4\n");
  // NaN and infinities stay as they are under every rule.
  std::string s;
  cs::io::append_csv_number(s, std::numeric_limits<double>::quiet_NaN(),
                            cs::io::csv_number_rule("us"));
  s += ',';
  cs::io::append_csv_number(s, -std::numeric_limits<double>::infinity(),
                            cs::io::csv_number_rule("ratio"));
  EXPECT_EQ(s, "nan,-inf");
}

// append_csv_number skips the rounding when a number's shortest text has no more digits than its
// rule keeps; every number must still come out as printf's rounding read back and written
// shortest (computed here with snprintf and strtod) would write it.
TEST(CsvWriter, NumbersAsPrintfRoundingReadBack) {
  auto reference = [](double v, cs::io::CsvNumberRule rule) {
    char buf[512];
    if (rule.kind == cs::io::CsvNumberRule::Kind::kDecimals)
      std::snprintf(buf, sizeof buf, "%.*f", rule.digits, v);
    else
      std::snprintf(buf, sizeof buf, "%.*g", rule.digits, v);
    double r = std::strtod(buf, nullptr);
    if (r == 0) r = 0;
    char out[64];
    std::snprintf(out, sizeof out, "%.17g", r);
    // The shortest text that reads back as r.
    for (int p = 1; p <= 17; ++p) {
      std::snprintf(out, sizeof out, "%.*g", p, r);
      if (std::strtod(out, nullptr) == r) break;
    }
    return std::strtod(out, nullptr);
  };
  uint64_t seed = 42;
  auto next = [&] {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    return seed >> 11;
  };
  for (const char* unit : {"us", "ms", "MB", "s", "ns", "ratio", "GB/s", "%"}) {
    const auto rule = cs::io::csv_number_rule(unit);
    for (int i = 0; i < 20000; ++i) {
      double v;
      switch (i % 5) {
        case 0:  // a decimal of a few digits, as a profiler writes them
          v = static_cast<double>(next() % 100000000) / std::pow(10.0, next() % 10);
          break;
        case 1:  // any bits
          v = static_cast<double>(next()) / static_cast<double>(1ULL << (next() % 64));
          break;
        case 2:  // halves and quarters at every rounding position
          v = (static_cast<double>(next() % 100000) + 0.5) / std::pow(10.0, next() % 9);
          break;
        case 3:  // large and tiny magnitudes
          v = std::pow(10.0, static_cast<double>(next() % 60) - 30) * (1 + (next() % 7) / 8.0);
          break;
        default:
          v = static_cast<double>(next() % 1000) * 0.001;
      }
      if (next() % 3 == 0) v = -v;
      std::string got;
      cs::io::append_csv_number(got, v, rule);
      ASSERT_EQ(std::strtod(got.c_str(), nullptr), reference(v, rule)) << unit << " " << v;
      std::string shortest;
      cs::io::append_csv_number(shortest, reference(v, rule), {});
      ASSERT_EQ(got, shortest) << unit << " " << v;
    }
  }
}

TEST(CsvWriter, EncodedStringColumnWritesLikePlain) {
  Table plain = all_types_table();
  Table encoded("all_types");
  cs::io::DictionaryEncoder names(encoded.add_encoded_string("name"));
  for (const std::string& s : plain.columns[0].strings) names.push(s);
  encoded.add_int("rank").ints = plain.columns[1].ints;
  encoded.add_double("value").doubles = plain.columns[2].doubles;
  EXPECT_EQ(encoded.rows(), plain.rows());
  EXPECT_EQ(cs::io::table_to_csv(encoded), cs::io::table_to_csv(plain));
  // Repeats share one dictionary entry; codes follow the rows.
  Table t("t");
  cs::io::DictionaryEncoder e(t.add_encoded_string("step"));
  for (const char* s : {"step1", "step1", "step2", "step1"}) e.push(s);
  EXPECT_EQ(t.columns[0].dict, (std::vector<std::string>{"step1", "step2"}));
  EXPECT_EQ(t.columns[0].codes, (std::vector<uint32_t>{0, 0, 1, 0}));
  EXPECT_EQ(cs::io::table_to_csv(t), "step\nstep1\nstep1\nstep2\nstep1\n");
}

TEST(CsvWriter, HeaderNamesAreQuotedToo) {
  Table t("t");
  t.add_int("a,b").ints = {1};
  t.add_double("c\"d").doubles = {2.5};
  EXPECT_EQ(cs::io::table_to_csv(t), "\"a,b\",\"c\"\"d\"\n1,2.5\n");
}

TEST(CsvWriter, EmptyTables) {
  Table no_rows("empty");
  no_rows.add_string("key");
  no_rows.add_double("value", "ms");
  EXPECT_EQ(cs::io::table_to_csv(no_rows), "key,value\n");

  Table no_columns("nothing");
  EXPECT_EQ(cs::io::table_to_csv(no_columns), "\n");
}

TEST(CsvWriter, LoneEmptyFieldIsNotABlankLine) {
  Table t("one");
  t.add_string("s").strings = {"", "x", ""};
  EXPECT_EQ(cs::io::table_to_csv(t), "s\n\"\"\nx\n\"\"\n");
}

TEST(CsvWriter, RaggedTableThrowsInTableToCsv) {
  Table t("bad");
  t.add_int("a").ints = {1, 2};
  t.add_int("b").ints = {1};
  EXPECT_THROW(cs::io::table_to_csv(t), std::logic_error);
}

TEST(CsvWriter, WritesFileAtomicallyAndReplaces) {
  TempDir dir;
  const fs::path out = dir.path() / "mixed.csv";
  {
    std::ofstream old(out);
    old << "old content\n";
  }
  Diagnostics diag;
  Table t = all_types_table();
  ASSERT_TRUE(cs::io::write_table_csv(t, out.string(), diag));
  EXPECT_TRUE(diag.empty());
  EXPECT_EQ(slurp(out), cs::io::table_to_csv(t));
  EXPECT_FALSE(fs::exists(out.string() + ".tmp"));
}

TEST(CsvWriter, LargeTableStreamsInSeveralFlushes) {
  TempDir dir;
  Table t("big");
  auto& k = t.add_string("key");
  auto& v = t.add_double("v");
  for (int i = 0; i < 200000; ++i) {
    k.strings.push_back("op_" + std::to_string(i) + (i % 7 == 0 ? ",x" : ""));
    v.doubles.push_back(i * 0.001);
  }
  const fs::path out = dir.path() / "big.csv";
  Diagnostics diag;
  ASSERT_TRUE(cs::io::write_table_csv(t, out.string(), diag));
  const std::string text = slurp(out);
  EXPECT_GT(text.size(), size_t{2} << 20);  // more than one 1 MiB buffer
  EXPECT_EQ(text, cs::io::table_to_csv(t));
}

TEST(CsvWriter, MissingDirectoryIsADiagnostic) {
  TempDir dir;
  const std::string out = (dir.path() / "no_such_dir" / "t.csv").string();
  Diagnostics diag;
  EXPECT_FALSE(cs::io::write_table_csv(all_types_table(), out, diag));
  ASSERT_EQ(diag.error_count(), 1u);
  const auto& d = diag.items().front();
  EXPECT_EQ(d.file, out);
  EXPECT_NE(d.what.find("No such file or directory"), std::string::npos) << d.what;
  EXPECT_NE(d.hint.find("does not exist"), std::string::npos) << d.hint;
  EXPECT_FALSE(fs::exists(out));
}

TEST(CsvWriter, RaggedTableIsADiagnosticNotAFile) {
  TempDir dir;
  Table t("bad");
  t.add_int("a").ints = {1, 2};
  t.add_int("b").ints = {1};
  const std::string out = (dir.path() / "bad.csv").string();
  Diagnostics diag;
  EXPECT_FALSE(cs::io::write_table_csv(t, out, diag));
  ASSERT_EQ(diag.error_count(), 1u);
  EXPECT_NE(diag.items()[0].what.find("column b has 1 rows, expected 2"), std::string::npos);
  EXPECT_FALSE(fs::exists(out));
  EXPECT_FALSE(fs::exists(out + ".tmp"));
}

// A full disk, simulated with a file-size limit in a child process: the write fails with a
// diagnostic, the temporary file is removed and the previous file under the final name survives.
TEST(CsvWriter, DiskFullKeepsThePreviousFile) {
  TempDir dir;
  const fs::path out = dir.path() / "full.csv";
  {
    std::ofstream old(out);
    old << "previous\n";
  }
  Table t("big");
  auto& v = t.add_double("v");
  for (int i = 0; i < 300000; ++i) v.doubles.push_back(i * 1.1);

  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    std::signal(SIGXFSZ, SIG_IGN);  // write() then fails with EFBIG instead of killing us
    struct rlimit lim = {64 * 1024, 64 * 1024};
    ::setrlimit(RLIMIT_FSIZE, &lim);
    Diagnostics diag;
    bool ok = cs::io::write_table_csv(t, out.string(), diag);
    int code = ok ? 10 : 0;
    if (!ok) {
      const auto& d = diag.items().front();
      if (d.file != out.string()) code = 11;
      if (d.what.find("cannot write file") == std::string::npos) code = 12;
      if (d.hint.find("disk is full") == std::string::npos) code = 13;
    }
    ::_exit(code);
  }
  int st = 0;
  ASSERT_EQ(::waitpid(pid, &st, 0), pid);
  ASSERT_TRUE(WIFEXITED(st));
  EXPECT_EQ(WEXITSTATUS(st), 0) << "10: write succeeded, 11-13: wrong diagnostic";
  EXPECT_EQ(slurp(out), "previous\n");
  EXPECT_FALSE(fs::exists(out.string() + ".tmp"));
}

// Python's csv module and float() read the file back to the same strings, ints and doubles
// (bit for bit, NaN as NaN).
TEST(CsvWriter, PythonCsvModuleReadsItBack) {
  std::string probe;
  if (run_merged("/usr/bin/python3 -c 'import csv, struct'", probe) != 0)
    CS_MISSING_TOOL("/usr/bin/python3 (" << probe << ")");
  TempDir dir;
  Table t = all_types_table();
  const fs::path csv = dir.path() / "mixed.csv";
  Diagnostics diag;
  ASSERT_TRUE(cs::io::write_table_csv(t, csv.string(), diag));

  // Expected values in an unambiguous encoding: one line per column,
  // "<type> <hex name> <cell>...", strings as hex bytes ("-" when empty), doubles as bits.
  const fs::path expected = dir.path() / "expected.txt";
  {
    std::ofstream e(expected);
    auto hex = [](const std::string& s) {
      if (s.empty()) return std::string("-");
      std::string h;
      char b[3];
      for (unsigned char c : s) {
        std::snprintf(b, sizeof b, "%02x", c);
        h += b;
      }
      return h;
    };
    for (const auto& c : t.columns) {
      switch (c.type) {
        case cs::io::ColumnType::kString:
          e << "s " << hex(c.name);
          for (const auto& s : c.strings) e << ' ' << hex(s);
          break;
        case cs::io::ColumnType::kInt:
          e << "i " << hex(c.name);
          for (auto v : c.ints) e << ' ' << v;
          break;
        case cs::io::ColumnType::kDouble:
          e << "d " << hex(c.name);
          for (double v : c.doubles) {
            uint64_t bits;
            std::memcpy(&bits, &v, sizeof bits);
            char b[20];
            std::snprintf(b, sizeof b, "%016" PRIx64, bits);
            e << ' ' << b;
          }
          break;
      }
      e << '\n';
    }
  }
  const std::string script = R"PY(
import csv, math, struct, sys
rows = list(csv.reader(open(sys.argv[1], newline='', encoding='utf-8')))
header, body = rows[0], rows[1:]
unhex = lambda h: b'' if h == '-' else bytes.fromhex(h)
for j, line in enumerate(open(sys.argv[2])):
    kind, name, *cells = line.split()
    assert header[j].encode() == unhex(name), (header[j], name)
    assert len(body) == len(cells), (len(body), len(cells))
    for r, cell in enumerate(cells):
        got = body[r][j]
        if kind == 's':
            assert got.encode() == unhex(cell), (r, got, cell)
        elif kind == 'i':
            assert int(got) == int(cell), (r, got, cell)
        else:
            want = struct.unpack('>d', bytes.fromhex(cell))[0]
            g = float(got)
            same = (math.isnan(g) and math.isnan(want)) or struct.pack('>d', g) == struct.pack('>d', want)
            assert same, (r, got, want)
print('ok', len(body))
)PY";
  const fs::path py = dir.path() / "check.py";
  std::ofstream(py) << script;
  std::string out;
  int rc = run_merged(
      "/usr/bin/python3 " + py.string() + " " + csv.string() + " " + expected.string(), out);
  EXPECT_EQ(rc, 0) << out;
  EXPECT_EQ(out, "ok 8\n");
}
