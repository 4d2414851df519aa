// Final outputs written through "<name>.tmp" and a rename (io/output_file.h), and the ledger of
// what a run wrote (io/output_ledger.h): a complete file only under its final name, the .tmp
// gone after a failure, the previous run's outputs removed at the start of the next, the user's
// own files never touched.

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "io/output_file.h"
#include "io/output_ledger.h"
#include "support/test_files.h"

namespace fs = std::filesystem;
using cs::io::Diagnostics;
using cs::io::OutputLedger;

namespace {

using cs::test::slurp;

void write_plain(const fs::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary);
  out << text;
}

// A fresh directory (tests/support/test_files.h) for a test whose ledger starts and ends empty.
struct TempDir : cs::test::TempDir {
  TempDir() : cs::test::TempDir("cs_output_files") { OutputLedger::instance().reset(); }
  ~TempDir() { OutputLedger::instance().reset(); }
};
}  // namespace

TEST(OutputFile, CommitPublishesTheCompleteFile) {
  TempDir dir;
  const fs::path out = dir.path() / "x.json";
  Diagnostics diag;
  cs::io::OutputFile f;
  ASSERT_TRUE(f.open(out.string(), diag));
  std::fputs("{\"a\": 1}", f.get());
  // Before the commit only the .tmp exists.
  EXPECT_FALSE(fs::exists(out));
  EXPECT_TRUE(fs::exists(out.string() + ".tmp"));
  ASSERT_TRUE(f.commit(diag)) << diag.items().front().to_string();
  EXPECT_EQ(slurp(out), "{\"a\": 1}");
  EXPECT_FALSE(fs::exists(out.string() + ".tmp"));
  ASSERT_EQ(OutputLedger::instance().written_files().size(), 1u);
  EXPECT_EQ(OutputLedger::instance().written_files()[0], out.string());
}

TEST(OutputFile, WithoutCommitNothingIsLeft) {
  TempDir dir;
  const fs::path out = dir.path() / "x.csv";
  write_plain(out, "old\n");
  {
    Diagnostics diag;
    cs::io::OutputFile f;
    ASSERT_TRUE(f.open(out.string(), diag));
    std::fputs("half", f.get());
  }  // destroyed without commit: an interrupted writer
  EXPECT_EQ(slurp(out), "old\n");
  EXPECT_FALSE(fs::exists(out.string() + ".tmp"));
  EXPECT_EQ(OutputLedger::instance().failed_files().size(), 1u);
}

TEST(OutputFile, FailedBodyLeavesNoFileAndOneError) {
  TempDir dir;
  const fs::path out = dir.path() / "x.json";
  Diagnostics diag;
  errno = 0;
  EXPECT_FALSE(cs::io::write_output_file(out.string(), diag, [](std::FILE* f) {
    std::fputs("{", f);
    errno = ENOSPC;
    return false;
  }));
  EXPECT_FALSE(fs::exists(out));
  EXPECT_FALSE(fs::exists(out.string() + ".tmp"));
  ASSERT_EQ(diag.error_count(), 1u);
  EXPECT_EQ(diag.items()[0].file, out.string());
  EXPECT_NE(diag.items()[0].what.find("No space left on device"), std::string::npos)
      << diag.items()[0].what;
  EXPECT_NE(diag.items()[0].hint.find("disk is full"), std::string::npos);
}

TEST(OutputFile, MissingDirectoryNamesTheFileAndErrno) {
  TempDir dir;
  const fs::path out = dir.path() / "missing" / "x.json";
  Diagnostics diag;
  EXPECT_FALSE(cs::io::write_output_text(out.string(), "{}", diag));
  ASSERT_EQ(diag.error_count(), 1u);
  EXPECT_EQ(diag.items()[0].file, out.string());
  EXPECT_NE(diag.items()[0].what.find("No such file or directory"), std::string::npos);
  EXPECT_FALSE(fs::exists(out.string() + ".tmp"));
}

// The rename fails (another run removed the directory meanwhile): the message gives the rename's
// own reason, not that of the clean-up after it.
TEST(OutputFile, FailedRenameGivesItsOwnReason) {
  TempDir dir;
  const fs::path sub = dir.path() / "out";
  fs::create_directories(sub);
  const fs::path out = sub / "x.h5";
  write_plain(out.string() + ".tmp", "data");
  fs::remove_all(sub / "x.h5.tmp");
  Diagnostics diag;
  EXPECT_FALSE(cs::io::publish_output(out.string() + ".tmp", out.string(), diag));
  ASSERT_EQ(diag.error_count(), 1u);
  EXPECT_EQ(diag.items()[0].file, out.string());
  EXPECT_NE(diag.items()[0].what.find("No such file or directory"), std::string::npos)
      << diag.items()[0].what;
  EXPECT_EQ(diag.items()[0].what.find("Success"), std::string::npos) << diag.items()[0].what;
  EXPECT_FALSE(fs::exists(out));
}

// A full disk (a file-size limit in a child): the write fails, the final name is untouched and
// the .tmp is removed.
TEST(OutputFile, FullDiskKeepsTheOldFileAndRemovesTheTmp) {
  TempDir dir;
  const fs::path out = dir.path() / "big.json";
  write_plain(out, "previous\n");
  const std::string text(512 * 1024, 'x');
  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    std::signal(SIGXFSZ, SIG_IGN);
    struct rlimit lim = {64 * 1024, 64 * 1024};
    ::setrlimit(RLIMIT_FSIZE, &lim);
    Diagnostics diag;
    const bool ok = cs::io::write_output_text(out.string(), text, diag);
    int code = ok ? 10 : 0;
    if (!ok && (diag.error_count() != 1 || diag.items()[0].file != out.string()))
      code = 11;
    else if (!ok && diag.items()[0].what.find("File too large") == std::string::npos)
      code = 12;
    ::_exit(code);
  }
  int st = 0;
  ASSERT_EQ(::waitpid(pid, &st, 0), pid);
  ASSERT_TRUE(WIFEXITED(st));
  EXPECT_EQ(WEXITSTATUS(st), 0) << "10: write succeeded, 11-12: wrong diagnostic";
  EXPECT_EQ(slurp(out), "previous\n");
  EXPECT_FALSE(fs::exists(out.string() + ".tmp"));
}

// The second run in a directory removes what the first one wrote (and its .tmp leftovers), and
// nothing else.
TEST(OutputLedger, NextRunRemovesThePreviousOutputsOnly) {
  TempDir dir;
  Diagnostics diag;
  auto& ledger = OutputLedger::instance();
  EXPECT_TRUE(ledger.begin(dir.path().string(), diag).empty());
  ASSERT_TRUE(cs::io::write_output_text((dir.path() / "a.csv").string(), "a\n", diag));
  ASSERT_TRUE(cs::io::write_output_text((dir.path() / "b.json").string(), "{}", diag));
  {
    cs::io::OutputFile f;  // a writer killed mid-way: its .tmp stays (simulated below)
    ASSERT_TRUE(f.open((dir.path() / "c.h5").string(), diag));
  }
  write_plain(dir.path() / "c.h5.tmp", "half");  // as `kill -9` would leave it
  write_plain(dir.path() / "notes.txt", "mine");
  write_plain(dir.path() / "mine.csv", "mine");
  write_plain(dir.path() / "old.json.tmp", "stale .tmp of an earlier version");
  write_plain(dir.path() / "mine.tmp", "a .tmp of the user's");
  ASSERT_TRUE(fs::exists(dir.path() / cs::io::kLedgerFileName));
  const std::string listed = slurp(dir.path() / cs::io::kLedgerFileName);
  EXPECT_NE(listed.find("a.csv\n"), std::string::npos) << listed;
  EXPECT_NE(listed.find("c.h5\n"), std::string::npos) << listed;

  ledger.reset();
  const auto removed = ledger.begin(dir.path().string(), diag);
  EXPECT_EQ(removed, (std::vector<std::string>{"a.csv", "b.json", "c.h5.tmp", "old.json.tmp"}));
  EXPECT_FALSE(fs::exists(dir.path() / "a.csv"));
  EXPECT_FALSE(fs::exists(dir.path() / "b.json"));
  EXPECT_FALSE(fs::exists(dir.path() / "c.h5.tmp"));
  EXPECT_FALSE(fs::exists(dir.path() / "old.json.tmp"));
  EXPECT_EQ(slurp(dir.path() / "notes.txt"), "mine");
  EXPECT_EQ(slurp(dir.path() / "mine.csv"), "mine");
  EXPECT_EQ(slurp(dir.path() / "mine.tmp"), "a .tmp of the user's");
  EXPECT_FALSE(diag.has_errors());
  // The new ledger lists nothing yet.
  EXPECT_EQ(slurp(dir.path() / cs::io::kLedgerFileName).find(".csv"), std::string::npos);
}

// A hand-edited ledger cannot make clusterscope remove files outside its directory.
TEST(OutputLedger, NamesOutsideTheDirectoryAreIgnored) {
  TempDir dir;
  fs::create_directories(dir.path() / "out");
  write_plain(dir.path() / "victim.csv", "keep");
  write_plain(dir.path() / "out" / cs::io::kLedgerFileName,
              "../victim.csv\n" + (dir.path() / "victim.csv").string() + "\n");
  Diagnostics diag;
  EXPECT_TRUE(OutputLedger::instance().begin((dir.path() / "out").string(), diag).empty());
  EXPECT_EQ(slurp(dir.path() / "victim.csv"), "keep");
}

// An interrupted run: every open .tmp removed, and no new one created afterwards.
TEST(OutputLedger, RemoveTemporariesClosesTheRun) {
  TempDir dir;
  Diagnostics diag;
  auto& ledger = OutputLedger::instance();
  ledger.begin(dir.path().string(), diag);
  cs::io::OutputFile open_one;
  ASSERT_TRUE(open_one.open((dir.path() / "x.csv").string(), diag));
  ASSERT_TRUE(fs::exists(dir.path() / "x.csv.tmp"));
  EXPECT_EQ(ledger.remove_temporaries(), 1u);
  EXPECT_FALSE(fs::exists(dir.path() / "x.csv.tmp"));
  cs::io::OutputFile late;
  EXPECT_FALSE(late.open((dir.path() / "y.csv").string(), diag));
  EXPECT_FALSE(fs::exists(dir.path() / "y.csv.tmp"));
}
