// ARCHITECTURE.md is a map that cannot drift: every source folder has a row in its folder table
// ("| `folder/` | ..."), and every link CMake makes between our libraries (target_link_libraries
// from one cs_* library, or the clusterscope binary, to another cs_* library) is written in its
// dependency list ("folder/ → dep/ dep/ (comment)", or "folder/ (nothing of ours)"). A folder
// added later (its cs_library in CMakeLists.txt, its .cpp files) is simply demanded there; so is a
// link added or removed. And namespaces follow folders: the code of folder a/b/ is in cs::b (io/'s
// format families share cs::io). The parsers are tested on small texts first, so that a parser
// that finds nothing cannot pass the real check.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "support/file_text.h"

namespace fs = std::filesystem;

namespace {

using cs::test::slurp;

using Edges = std::map<std::string, std::set<std::string>>;  // folder/ -> folders/ it links

// A CMake file's text without its comments (a '#' outside a quoted string to the end of the line).
std::string strip_cmake_comments(const std::string& text) {
  std::string out;
  bool quoted = false, comment = false;
  for (char c : text) {
    if (c == '\n') {
      comment = false;
      quoted = false;
    } else if (comment) {
      continue;
    } else if (c == '"') {
      quoted = !quoted;
    } else if (c == '#' && !quoted) {
      comment = true;
      continue;
    }
    out += c;
  }
  return out;
}

// The arguments of every call `command(...)` in a comment-free CMake text, split at whitespace.
std::vector<std::vector<std::string>> cmake_calls(const std::string& text,
                                                  const std::string& command) {
  std::vector<std::vector<std::string>> calls;
  const std::regex start("\\b" + command + "\\s*\\(");
  for (std::sregex_iterator m(text.begin(), text.end(), start), end; m != end; ++m) {
    const size_t open = m->position() + m->length();
    const size_t close = text.find(')', open);
    if (close == std::string::npos) break;
    std::istringstream args(text.substr(open, close - open));
    std::vector<std::string> call;
    for (std::string a; args >> a;) call.push_back(a);
    calls.push_back(call);
  }
  return calls;
}

// Our libraries and the binary, by target name, each with its folder ("load/"), from one CMake file
// (`dir` is the file's folder relative to the repository root, "" for the root):
// cs_library(<name> <folder>), add_library(cs_<x> ...) in a folder's own CMakeLists.txt, and the
// binary `clusterscope`, whose sources are cli/'s.
void collect_targets(const std::string& text, const std::string& dir,
                     std::map<std::string, std::string>& folder_of) {
  for (const auto& call : cmake_calls(text, "cs_library")) {
    if (call.size() >= 2) folder_of[call[0]] = call[1] + "/";
  }
  for (const auto& call : cmake_calls(text, "add_library")) {
    if (!call.empty() && call[0].rfind("cs_", 0) == 0 && !dir.empty())
      folder_of[call[0]] = dir + "/";
  }
  for (const auto& call : cmake_calls(text, "add_executable")) {
    if (!call.empty() && call[0] == "clusterscope") folder_of[call[0]] = "cli/";
  }
}

// The links between our targets in one CMake file, folder to folder.
void collect_links(const std::string& text, const std::map<std::string, std::string>& folder_of,
                   Edges& edges) {
  for (const auto& call : cmake_calls(text, "target_link_libraries")) {
    if (call.empty() || !folder_of.count(call[0])) continue;
    const std::string& from = folder_of.at(call[0]);
    edges[from];  // a library that links none of ours is still a library
    for (size_t i = 1; i < call.size(); ++i) {
      auto to = folder_of.find(call[i]);
      if (to != folder_of.end() && to->second != from) edges[from].insert(to->second);
    }
  }
}

// The folder table's rows: "| `folder/` | ...".
std::set<std::string> documented_folders(const std::string& doc) {
  std::set<std::string> folders;
  const std::regex row(R"(^\| `([A-Za-z0-9_./<>-]+/)` \|)");
  std::istringstream lines(doc);
  for (std::string line; std::getline(lines, line);) {
    std::smatch m;
    if (std::regex_search(line, m, row)) folders.insert(m[1]);
  }
  return folders;
}

// The dependency list's lines: "folder/ → a/ b/ (comment)" or "folder/ (nothing of ours)";
// the folders named in parentheses are comments, not links.
Edges documented_links(const std::string& doc) {
  Edges edges;
  const std::regex line_re(R"(^([a-z][A-Za-z0-9_./-]*/)\s+(→|\()(.*)$)");
  std::istringstream lines(doc);
  for (std::string line; std::getline(lines, line);) {
    std::smatch m;
    if (!std::regex_match(line, m, line_re)) continue;
    auto& deps = edges[m[1]];
    if (m[2] != "→") continue;
    std::string rest = m[3];
    std::string plain;
    int depth = 0;
    for (char c : rest) {
      if (c == '(') ++depth;
      if (depth == 0) plain += c;
      if (c == ')' && depth > 0) --depth;
    }
    std::istringstream words(plain);
    for (std::string w; words >> w;) {
      if (w.size() > 1 && w.back() == '/') deps.insert(w);
    }
  }
  return edges;
}

// Folders holding our sources (.cpp or .h), relative to root with a trailing '/': all but tests/
// (which mirrors them), build trees and hidden folders.
std::set<std::string> source_folders(const fs::path& root) {
  std::set<std::string> folders;
  for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator();
       ++it) {
    const fs::path rel = fs::relative(it->path(), root);
    const std::string first = rel.begin()->string();
    if (it->is_directory()) {
      if (first == "tests" || first.rfind("build", 0) == 0 || first.rfind(".", 0) == 0) {
        it.disable_recursion_pending();
      }
      continue;
    }
    const std::string ext = it->path().extension().string();
    if (ext == ".cpp" || ext == ".h") folders.insert(rel.parent_path().generic_string() + "/");
  }
  return folders;
}

// A recipe's own folder, msprof_analyze/recipes/<name>/: compiled into cs_recipes, mapped by the
// one `msprof_analyze/recipes/<name>/` row of the folder table.
constexpr const char* kRecipesFolder = "msprof_analyze/recipes/";
constexpr const char* kRecipeRow = "msprof_analyze/recipes/<name>/";

bool is_recipe_folder(const std::string& folder) {
  const std::string prefix = kRecipesFolder;
  return folder.rfind(prefix, 0) == 0 && folder != prefix &&
         folder.find('/', prefix.size()) == folder.size() - 1;
}

// The namespace a folder's code lives in: cs::<its last part> ("msprof_analyze/documents/" ->
// cs::documents), except io/'s format families, which share cs::io (io/sqlite/ nests
// cs::io::sqlite), the generator's parts (generator/job/, generator/db_export/), which share
// cs::generator, the report's pages (report/cluster_page/, report/compare_page/: cs::report), and a
// recipe's folder, which nests in its library's (msprof_analyze/recipes/slow_rank/ ->
// cs::recipes::slow_rank).
std::string folder_namespace(const std::string& folder) {
  if (folder.rfind("io/", 0) == 0) return "cs::io";
  if (folder.rfind("generator/", 0) == 0) return "cs::generator";
  if (folder.rfind("report/", 0) == 0) return "cs::report";
  if (is_recipe_folder(folder)) {
    const size_t start = std::string(kRecipesFolder).size();
    return "cs::recipes::" + folder.substr(start, folder.size() - start - 1);
  }
  std::string f = folder.substr(0, folder.size() - 1);
  const size_t slash = f.rfind('/');
  return "cs::" + (slash == std::string::npos ? f : f.substr(slash + 1));
}

// The namespaces of ours (cs, cs::...) a source text opens, with their line numbers.
std::vector<std::pair<int, std::string>> opened_namespaces(const std::string& text) {
  std::vector<std::pair<int, std::string>> out;
  const std::regex open_re(R"(^\s*namespace (cs(::\w+)*) \{)");
  std::istringstream lines(text);
  int n = 0;
  for (std::string line; std::getline(lines, line);) {
    ++n;
    std::smatch m;
    if (std::regex_search(line, m, open_re)) out.emplace_back(n, m[1]);
  }
  return out;
}

// What the map lacks, one line each (empty: the map is complete).
std::vector<std::string> map_problems(const std::set<std::string>& sources, const Edges& cmake,
                                      const std::set<std::string>& rows, const Edges& listed) {
  std::vector<std::string> problems;
  for (const auto& f : sources) {
    const bool mapped = rows.count(f) || (is_recipe_folder(f) && rows.count(kRecipeRow));
    if (!mapped) problems.push_back(f + " has no row in the folder table");
  }
  for (const auto& [from, tos] : cmake) {
    if (!rows.count(from) && !sources.count(from)) {
      problems.push_back(from + " (a library) has no row in the folder table");
    }
    auto line = listed.find(from);
    if (line == listed.end()) {
      problems.push_back(from + " has no line in the dependency list");
      continue;
    }
    for (const auto& to : tos) {
      if (!line->second.count(to)) {
        problems.push_back(from + " links " + to + " in CMakeLists.txt; the dependency list " +
                           "does not say so");
      }
    }
    for (const auto& to : line->second) {
      if (!tos.count(to)) {
        problems.push_back("the dependency list says " + from + " → " + to +
                           "; CMakeLists.txt has no such link");
      }
    }
  }
  for (const auto& [from, tos] : listed) {
    if (!cmake.count(from)) {
      problems.push_back("the dependency list has " + from + ", which is no library of ours");
    }
  }
  return problems;
}

TEST(ArchitectureMapParsers, ReadCMakeTargetsAndLinks) {
  const std::string cmake = strip_cmake_comments(
      "cs_library(cs_a a)  # cs_library(cs_z z)\n"
      "cs_library(cs_b_c b/c)\n"
      "target_link_libraries(cs_a PUBLIC Threads::Threads)\n"
      "target_link_libraries(cs_b_c PUBLIC cs_a\n  PRIVATE MPI::MPI_C) # cs_x\n"
      "add_executable(clusterscope ${SOURCES})\n"
      "target_link_libraries(clusterscope PRIVATE cs_b_c cs_a)\n");
  std::map<std::string, std::string> folder_of;
  collect_targets(cmake, "", folder_of);
  collect_targets(strip_cmake_comments("add_library(cs_f STATIC x.cpp)\n"), "f", folder_of);
  EXPECT_EQ(folder_of,
            (std::map<std::string, std::string>{
                {"cs_a", "a/"}, {"cs_b_c", "b/c/"}, {"clusterscope", "cli/"}, {"cs_f", "f/"}}));
  Edges edges;
  collect_links(cmake, folder_of, edges);
  EXPECT_EQ(edges, (Edges{{"a/", {}}, {"b/c/", {"a/"}}, {"cli/", {"a/", "b/c/"}}}));
}

TEST(ArchitectureMapParsers, ReadTheDocument) {
  const std::string doc =
      "```\n"
      "a/        (nothing of ours)\n"
      "b/c/ → a/ (and SQLite, as in d/)\n"
      "cli/ → b/c/ a/\n"
      "```\n"
      "| folder | what |\n|---|---|\n| `a/` | the a |\n| `b/c/` | the c |\n"
      "Text mentioning `x/` in a sentence.\n";
  EXPECT_EQ(documented_folders(doc), (std::set<std::string>{"a/", "b/c/"}));
  EXPECT_EQ(documented_links(doc), (Edges{{"a/", {}}, {"b/c/", {"a/"}}, {"cli/", {"a/", "b/c/"}}}));
}

TEST(ArchitectureMapParsers, ReportEveryGap) {
  const Edges cmake{{"a/", {}}, {"b/", {"a/"}}, {"n/", {"a/"}}};
  const std::set<std::string> sources{"a/", "b/", "n/", "n/sub/"};
  EXPECT_TRUE(map_problems({"a/", "b/"}, {{"a/", {}}, {"b/", {"a/"}}}, {"a/", "b/"},
                           {{"a/", {}}, {"b/", {"a/"}}})
                  .empty());
  // A new folder n/ (a library linking a/) and its subfolder, undocumented.
  const auto p1 = map_problems(sources, cmake, {"a/", "b/"}, {{"a/", {}}, {"b/", {"a/"}}});
  EXPECT_EQ(p1.size(), 3u) << ::testing::PrintToString(p1);
  // A link missing from the list, and one the list has that CMake does not.
  const auto p2 = map_problems(sources, cmake, {"a/", "b/", "n/", "n/sub/"},
                               {{"a/", {}}, {"b/", {}}, {"n/", {"a/", "b/"}}});
  ASSERT_EQ(p2.size(), 2u) << ::testing::PrintToString(p2);
  EXPECT_NE(p2[0].find("b/ links a/"), std::string::npos);
  EXPECT_NE(p2[1].find("n/ → b/"), std::string::npos);
}

TEST(ArchitectureMap, EveryFolderAndLinkIsInArchitectureMd) {
  const fs::path root = CS_SOURCE_DIR;
  const std::string doc = slurp(root / "ARCHITECTURE.md");
  ASSERT_FALSE(doc.empty()) << "ARCHITECTURE.md is missing";
  // Every CMakeLists.txt outside tests/ and build trees: the targets first, then the links.
  std::vector<std::pair<std::string, std::string>> cmake_files;  // folder, comment-free text
  for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator();
       ++it) {
    const fs::path rel = fs::relative(it->path(), root);
    const std::string first = rel.begin()->string();
    if (it->is_directory()) {
      if (first == "tests" || first.rfind("build", 0) == 0 || first.rfind(".", 0) == 0) {
        it.disable_recursion_pending();
      }
      continue;
    }
    if (it->path().filename() == "CMakeLists.txt") {
      cmake_files.emplace_back(rel.parent_path().generic_string(),
                               strip_cmake_comments(slurp(it->path())));
    }
  }
  std::map<std::string, std::string> folder_of;
  for (const auto& [dir, text] : cmake_files) collect_targets(text, dir, folder_of);
  ASSERT_GT(folder_of.size(), 10u) << "the CMake parser found too few libraries";
  ASSERT_TRUE(folder_of.count("clusterscope")) << "no add_executable(clusterscope ...) found";
  Edges cmake;
  for (const auto& [dir, text] : cmake_files) collect_links(text, folder_of, cmake);
  ASSERT_GT(cmake.size(), 10u);

  const auto sources = source_folders(root);
  ASSERT_TRUE(sources.count("runtime/") && sources.count("cli/"));
  for (const auto& [target, folder] : folder_of) {
    EXPECT_TRUE(fs::is_directory(root / folder))
        << target << "'s folder " << folder << " is missing";
  }
  const auto rows = documented_folders(doc);
  for (const auto& row : rows) {
    if (row == kRecipeRow) continue;  // the pattern row of every recipe's folder
    EXPECT_TRUE(fs::is_directory(root / row))
        << "ARCHITECTURE.md's folder table has a row for " << row << ", which does not exist";
  }
  const auto problems = map_problems(sources, cmake, rows, documented_links(doc));
  for (const auto& p : problems) {
    ADD_FAILURE() << "ARCHITECTURE.md: " << p
                  << " \u2014 write it in ARCHITECTURE.md (folder table: one row per source "
                     "folder; dependency list: exactly the cs_* links of CMakeLists.txt)";
  }
}

TEST(ArchitectureMapParsers, FolderNamespaces) {
  EXPECT_EQ(folder_namespace("load/"), "cs::load");
  EXPECT_EQ(folder_namespace("frame/"), "cs::frame");
  EXPECT_EQ(folder_namespace("msprof_analyze/documents/"), "cs::documents");
  EXPECT_EQ(folder_namespace("io/"), "cs::io");
  EXPECT_EQ(folder_namespace("io/json/"), "cs::io");
  EXPECT_EQ(folder_namespace("generator/db_export/"), "cs::generator");
  EXPECT_EQ(folder_namespace("msprof_analyze/recipes/slow_rank/"), "cs::recipes::slow_rank");
  EXPECT_EQ(folder_namespace("msprof_analyze/recipes/"), "cs::recipes");
  EXPECT_FALSE(is_recipe_folder("recipes/slow_rank/"));  // a recipe outside msprof_analyze/
  EXPECT_FALSE(is_recipe_folder("msprof_analyze/recipes/slow_rank/sub/"));
  const auto opened = opened_namespaces(
      "namespace cs::load {\n}  // namespace cs::load\nnamespace {\nnamespace fs = x;\n"
      "namespace detail {\n  namespace cs::io::sqlite {\n");
  EXPECT_EQ(opened,
            (std::vector<std::pair<int, std::string>>{{1, "cs::load"}, {6, "cs::io::sqlite"}}));
}

// Namespaces follow folders: every namespace of ours a folder's code opens is the folder's
// (folder_namespace) or one nested in it.
TEST(ArchitectureMap, NamespacesFollowFolders) {
  const fs::path root = CS_SOURCE_DIR;
  size_t checked = 0;
  for (const auto& folder : source_folders(root)) {
    const std::string want = folder_namespace(folder);
    for (const auto& entry : fs::directory_iterator(root / folder)) {
      const std::string ext = entry.path().extension().string();
      if (ext != ".cpp" && ext != ".h") continue;
      for (const auto& [line, ns] : opened_namespaces(slurp(entry.path()))) {
        ++checked;
        EXPECT_TRUE(ns == want || ns.rfind(want + "::", 0) == 0)
            << folder << entry.path().filename().string() << ":" << line << ": namespace " << ns
            << " in " << folder << ", whose namespace is " << want
            << " \u2014 name it after its folder (scripts/rename_namespace.py moves one)";
      }
    }
  }
  EXPECT_GT(checked, 100u);  // the scan found the namespaces at all
}

// MPI and HDF5 meet in one seam (docs/parallel_hdf5.md): only mpi/ includes <mpi.h>; mpi/ never
// sees HDF5; io/ names MPI's types (MPI_Comm, MPI_Info, which the parallel HDF5's header brings)
// only in io/hdf5/hdf5_mpio.cpp, which opens HDF5's MPI-IO driver, and in hdf5_library.cpp, which
// declares that HDF5 function; cluster/ joins the two (cluster/hdf5_mpi.h). Comments are ignored.
TEST(ArchitectureMap, MpiAndHdf5MeetOnlyInTheirSeam) {
  const fs::path root = CS_SOURCE_DIR;
  auto code_of = [](const std::string& text) {  // the text without // comments
    std::string out;
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);)
      out += line.substr(0, line.find("//")) + "\n";
    return out;
  };
  const std::set<std::string> mpi_types_allowed = {"io/hdf5/hdf5_mpio.cpp",
                                                   "io/hdf5/hdf5_library.cpp"};
  size_t files = 0;
  for (const auto& folder : source_folders(root)) {
    for (const auto& entry : fs::directory_iterator(root / folder)) {
      const std::string ext = entry.path().extension().string();
      if (ext != ".cpp" && ext != ".h") continue;
      ++files;
      const std::string name = folder + entry.path().filename().string();
      const std::string code = code_of(slurp(entry.path()));
      if (folder != "mpi/") {
        EXPECT_EQ(code.find("#include <mpi.h>"), std::string::npos)
            << name << " includes <mpi.h>: only mpi/ does (its header has no MPI types)";
      }
      if (folder == "mpi/") {
        EXPECT_TRUE(code.find("hdf5") == std::string::npos && code.find("H5") == std::string::npos)
            << name << ": mpi/ knows nothing of HDF5 (cluster/hdf5_mpi.h joins them)";
      }
      if (folder.rfind("io/", 0) == 0 && !mpi_types_allowed.count(name)) {
        EXPECT_TRUE(code.find("MPI_Comm") == std::string::npos &&
                    code.find("MPI_Info") == std::string::npos)
            << name << " names an MPI type: in io/ only io/hdf5/hdf5_mpio.cpp does";
      }
    }
  }
  EXPECT_GT(files, 100u);
}

}  // namespace
