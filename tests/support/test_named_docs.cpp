// Every document a source comment names exists in the repository: a comment that points a reader
// at "docs/formats.md §4" or "tests/data/SOURCES.md" must lead somewhere. Names resolve from the
// repository root, from docs/ ("formats.md" is docs/formats.md) or from the commenting file's
// folder; "formats.md §N" must name a section docs/formats.md has ("## §N ...").
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "support/file_text.h"

namespace fs = std::filesystem;

namespace {

using cs::test::slurp;

bool is_source(const fs::path& p) {
  static const std::set<std::string> kExt = {".cpp", ".h", ".py", ".sh", ".cmake", ".in"};
  return kExt.count(p.extension().string()) > 0 || p.filename() == "CMakeLists.txt";
}

// Folders that hold no sources of ours: build trees, git, test data other than its scripts.
bool skipped_dir(const fs::path& rel) {
  const std::string first = rel.begin()->string();
  return first.rfind("build", 0) == 0 || first.rfind(".", 0) == 0;
}

TEST(NamedDocs, EveryDocumentACommentNamesExists) {
  const fs::path root = CS_SOURCE_DIR;
  const std::string formats = slurp(root / "docs" / "formats.md");
  ASSERT_FALSE(formats.empty()) << "docs/formats.md is missing";
  const std::regex doc_name(R"(([A-Za-z0-9_./-]+\.md)(\s+§(\d+))?)");
  size_t named = 0;
  for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator();
       ++it) {
    const fs::path rel = fs::relative(it->path(), root);
    if (it->is_directory()) {
      if (skipped_dir(rel)) it.disable_recursion_pending();
      continue;
    }
    if (!it->is_regular_file() || !is_source(it->path())) continue;
    std::istringstream lines(slurp(it->path()));
    std::string line;
    for (int n = 1; std::getline(lines, line); ++n) {
      for (std::sregex_iterator m(line.begin(), line.end(), doc_name), end; m != end; ++m) {
        const std::string name = (*m)[1];
        if (name.find("://") != std::string::npos || name.front() == '/') continue;
        ++named;
        const bool found = fs::exists(root / name) || fs::exists(root / "docs" / name) ||
                           fs::exists(it->path().parent_path() / name);
        EXPECT_TRUE(found) << rel.string() << ":" << n << ": names " << name
                           << ", which is not in the repository \u2014 write it in docs/ or fix "
                              "the comment";
        if (found && (*m)[3].matched && fs::path(name).filename() == "formats.md") {
          EXPECT_NE(formats.find("## §" + (*m)[3].str() + " "), std::string::npos)
              << rel.string() << ":" << n << ": docs/formats.md has no section §" << (*m)[3]
              << " \u2014 add it or fix the comment";
        }
      }
    }
  }
  EXPECT_GT(named, 20u);  // the scan found the comments at all
}

}  // namespace
