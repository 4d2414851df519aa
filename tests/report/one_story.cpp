// One story everywhere (issue 16): on the demo-shaped generated job (64 ranks, tp 4 x pp 2, rank 13
// computing 1.3x slower, the link 0 -> 4 at 30%), the summary, the CSVs and every section of
// report.html name the same slow rank and the same slow link as the generator's truth.json — in
// particular the wait-ratio section does not present rank 0 (the least-waiting rank, at the end of
// the slow link) as the late arrival.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <vector>

namespace fs = std::filesystem;

namespace {

std::string read(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// Every integer captured by group 1 of `re` in `text`.
std::set<long long> captured(const std::string& text, const std::string& re) {
  std::set<long long> out;
  const std::regex r(re);
  for (auto it = std::sregex_iterator(text.begin(), text.end(), r); it != std::sregex_iterator();
       ++it)
    out.insert(std::stoll((*it)[1].str()));
  return out;
}

// The text of the element with id `id` up to the next <section (the section's own HTML).
std::string section(const std::string& html, const std::string& id) {
  const size_t a = html.find("id=\"" + id + "\"");
  if (a == std::string::npos) return "";
  const size_t b = html.find("<section", a);
  return html.substr(a, b == std::string::npos ? std::string::npos : b - a);
}

}  // namespace

TEST(OneStory, DemoJobSlowRankAndSlowLink) {
  const fs::path dir = fs::temp_directory_path() / ("cs_story_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const std::string job = (dir / "job").string(), out = (dir / "out").string();
  ASSERT_EQ(std::system((std::string(CS_BINARY) + " generate " + job +
                         " --ranks 64 --tp 4 --pp 2 --steps 4 --seed 7 --slow-rank 13:1.3"
                         " --slow-link 0-4:0.3 > /dev/null 2>&1")
                            .c_str()),
            0);
  const fs::path stdout_file = dir / "stdout.txt";
  const int rc = std::system((std::string(CS_BINARY) + " cluster -d " + job + " -o " + out + " > " +
                              stdout_file.string() + " 2>/dev/null")
                                 .c_str());
  ASSERT_EQ(rc >> 8, 0);
  const fs::path res = fs::path(out) / "cluster_analysis_output";
  // The truth, written by the generator.
  const std::string truth = read(fs::path(job) / "truth.json");
  const auto truth_ranks =
      captured(truth.substr(truth.find("\"slow_ranks\"")), R"re(\{\s*"rank":\s*(\d+))re");
  ASSERT_EQ(truth_ranks, std::set<long long>{13});

  // The summary on stdout.
  const std::string summary = read(stdout_file);
  EXPECT_EQ(captured(summary, R"(Rank (\d+) is slow)"), truth_ranks) << summary;
  EXPECT_NE(summary.find("Slow link: HCCS link 0->4"), std::string::npos) << summary;
  // The CSVs.
  EXPECT_EQ(captured(read(res / "slow_ranks.csv"), R"(\n(\d+),)"), truth_ranks);
  EXPECT_EQ(captured(read(res / "slow_links.csv"), R"(\n(\d+),4,)"), std::set<long long>{0});

  const std::string html = read(res / "report.html");
  // Findings: the slow rank, and rank 0 only as a link end.
  const std::string findings = section(html, "findings");
  EXPECT_EQ(captured(findings, R"(Rank (\d+) looks slow)"), truth_ranks);
  EXPECT_NE(findings.find("Link 0 \u2192 4"), std::string::npos);
  EXPECT_EQ(captured(findings, R"re(data-rank="(\d+)")re"), truth_ranks);
  // An imbalance finding whose "most on rank N" is another rank says whom the diagnosis blames.
  const std::regex most(R"(most on rank (\d+)[^<]*<span class="ev">([^<]*)</span>)");
  size_t others = 0;
  for (auto it = std::sregex_iterator(findings.begin(), findings.end(), most);
       it != std::sregex_iterator(); ++it)
    if ((*it)[1].str() != "13") {
      ++others;
      EXPECT_NE((*it)[2].str().find("the diagnosis blames rank 13."), std::string::npos)
          << (*it)[0].str();
    }
  EXPECT_GE(others, 1u);  // the demo job: the most uncovered communication is on a waiting rank
  // Every rank: the labelled (red) dots are the slow rank.
  EXPECT_EQ(captured(section(html, "ranks"), R"re(<g data-rank="(\d+)" class="fl")re"),
            truth_ranks);
  EXPECT_NE(section(html, "ranks").find("\"slow\":[13]"), std::string::npos);
  // Step time: the rows marked judged slow.
  const std::string steps = section(html, "steps");
  EXPECT_EQ(captured(steps, R"re(<tr class="flag"><td class="n">(\d+)</td>)re"), truth_ranks);
  // Wait ratio: the judged-slow row is rank 13; rank 0 waits least and is said not to be slow,
  // because of the slow link; nothing calls it the late arrival.
  const std::string wait = section(html, "wait");
  EXPECT_EQ(captured(wait, R"re(<tr class="flag"><td class="n">(\d+)</td>)re"), truth_ranks);
  EXPECT_NE(wait.find("Rank 0 waits least but is not judged slow: it sits at the end of the slow "
                      "link 0 \u2192 4"),
            std::string::npos)
      << wait.substr(0, 3000);
  EXPECT_NE(wait.find("The diagnosis blames rank 13"), std::string::npos);
  EXPECT_EQ(html.find("late arrival"), std::string::npos);
  // The drill-down data and the matrix agree too.
  EXPECT_NE(html.find("\"slow_ranks\":[13]"), std::string::npos);
  // The group picker's first group holds the slow link: [index, ranks, links, min, median, max,
  // slow links, drawn].
  const std::string m = section(html, "matrix");
  const size_t gp = m.find("id=\"cs-groups\">[[");
  ASSERT_NE(gp, std::string::npos);
  std::vector<std::string> fields;
  std::stringstream first(m.substr(gp + 17, m.find(']', gp + 17) - gp - 17));
  for (std::string f; std::getline(first, f, ',');) fields.push_back(f);
  ASSERT_EQ(fields.size(), 8u) << m.substr(gp, 80);
  EXPECT_GT(std::stoi(fields[6]), 0) << m.substr(gp, 80);
  fs::remove_all(dir);
}

// The summary's last line points at report.html only when this run wrote it: a second run into
// the same directory without html must not send the user to the first run's page.
TEST(OneStory, ReportLineNeverPointsAtAStalePage) {
  const fs::path dir = fs::temp_directory_path() / ("cs_stale_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const std::string job = (dir / "job").string(), out = (dir / "out").string();
  ASSERT_EQ(std::system((std::string(CS_BINARY) + " generate " + job +
                         " --ranks 16 --tp 4 > /dev/null 2>&1")
                            .c_str()),
            0);
  const auto run = [&](const std::string& format) {
    const fs::path so = dir / ("stdout_" + format + ".txt");
    std::system((std::string(CS_BINARY) + " cluster -d " + job + " -o " + out + " --format " +
                 format + " > " + so.string() + " 2>/dev/null")
                    .c_str());
    return read(so);
  };
  const std::string first = run("html");
  // The last line: "Report: <abs path>/cluster_analysis_output/report.html".
  const size_t last = first.rfind("Report: ");
  ASSERT_NE(last, std::string::npos) << first;
  EXPECT_EQ(first.substr(last), "Report: " + fs::absolute(fs::path(out)).string() +
                                    "/cluster_analysis_output/report.html\n");
  const std::string second = run("csv");
  EXPECT_EQ(second.find("Report: "), std::string::npos) << second;
  fs::remove_all(dir);
}
