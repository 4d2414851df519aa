// A wrong choice on the command line exits 2 with one line that names the option's valid values
// (read from the option's one string <-> enum table), and a stray positional word is an error,
// not silently ignored. Every check runs before any input is read.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "cli/cli_test_util.h"
#include "support/test_data.h"

namespace fs = std::filesystem;
using cs::test::read_file;
using cs::test::run_command;

namespace {

using cs::test::kTextJob;

// Runs `clusterscope ARGS`; returns the exit status, the output in `text`.
int run_logged(const std::string& args, std::string& text) {
  static const fs::path dir = cs::test::temp_dir("cli_mistakes");
  const fs::path log = dir / "log.txt";
  const int rc = run_command(std::string(CS_BINARY) + " " + args, log.string());
  text = read_file(log);
  return rc;
}

struct Mistake {
  const char* args;  // after "clusterscope"
  const char* says;  // the whole message after "clusterscope: <command>: "
};

TEST(CliMistakes, WrongChoiceExits2ListingTheValidValues) {
  const std::string d = " -d " + kTextJob + " -o /nonexistent-cs-out";
  const std::string profile = " " + kTextJob;
  const Mistake cases[] = {
      {"cluster --format cvs", "unknown format 'cvs' \u2014 valid: all, json, csv, hdf5, html"},
      {"cluster --format json,cvs",
       "unknown format 'cvs' \u2014 valid: all, json, csv, hdf5, html"},
      {"cluster -m bogus",
       "unknown mode 'bogus' \u2014 valid: all, communication_time, communication_matrix, "
       "step_trace, operators, diagnosis, or a recipe: "},
      {"cluster --mode bogus", "unknown mode 'bogus' \u2014 valid: all, communication_time"},
      {"cluster --group-by shape",
       "unknown --group-by 'shape' \u2014 valid: type, name, name+shapes"},
      {"cluster --order-by median",
       "unknown --order-by 'median' \u2014 valid: total, mean, max, cv"},
      {"cluster --data-type sql", "unknown --data-type 'sql' \u2014 valid: auto, text, db"},
      {"cluster --data_type sql", "unknown --data-type 'sql' \u2014 valid: auto, text, db"},
      {"cluster --export_type csv", "unknown --export_type 'csv' \u2014 valid: db, text"},
      {"cluster --export-type csv", "unknown --export_type 'csv' \u2014 valid: db, text"},
      {"cluster --op-tables cvs", "unknown --op-tables 'cvs' \u2014 valid: hdf5, csv, csv.gz"},
  };
  for (const Mistake& m : cases) {
    std::string text;
    EXPECT_EQ(run_logged(std::string(m.args) + d, text), 2) << m.args << "\n" << text;
    EXPECT_NE(text.find(std::string("clusterscope: cluster: ") + m.says), std::string::npos)
        << m.args << "\n"
        << text;
    EXPECT_EQ(text.find("cluster_analysis_output"), std::string::npos) << m.args << "\n" << text;
  }
  const Mistake top_cases[] = {
      {"top --aggregate-by shape", "unknown --aggregate-by 'shape' \u2014 valid: none, type, name"},
      {"top --aggregate median", "unknown --aggregate 'median' \u2014 valid: sum, mean, max"},
      {"top --order-by bytes", "unknown --order-by 'bytes' \u2014 valid: time, memory, flops"},
  };
  const Mistake generate_cases[] = {
      {"generate --framework tensorflow",
       "unknown --framework 'tensorflow' \u2014 valid: pytorch, mindspore, msprof, pt, ms, kineto"},
      {"generate --export-type csv", "unknown --export-type 'csv' \u2014 valid: text, db, both"},
  };
  for (const Mistake& m : generate_cases) {
    std::string text;
    EXPECT_EQ(run_logged(std::string(m.args) + " /nonexistent-cs-generate --ranks 2", text), 2)
        << m.args << "\n"
        << text;
    EXPECT_NE(text.find(std::string("clusterscope: generate: ") + m.says), std::string::npos)
        << m.args << "\n"
        << text;
  }
  for (const Mistake& m : top_cases) {
    std::string text;
    EXPECT_EQ(run_logged(std::string(m.args) + profile, text), 2) << m.args << "\n" << text;
    EXPECT_NE(text.find(std::string("clusterscope: top: ") + m.says), std::string::npos)
        << m.args << "\n"
        << text;
  }
}

TEST(CliMistakes, StrayPositionalWordIsAnError) {
  const fs::path out = cs::test::temp_dir("cli_mistakes_extra");
  const char* cases[] = {
      "cluster -d DIR extra",  "cluster extra -d DIR",          "top DIR extra",
      "compare DIR DIR extra", "merge DIR -o OUT/m.json extra", "generate OUT --ranks 2 extra",
  };
  for (const char* c : cases) {
    std::string args = c;
    for (const auto& [from, to] :
         {std::pair<std::string, std::string>{"DIR", kTextJob}, {"OUT", out.string()}})
      for (size_t at; (at = args.find(from)) != std::string::npos;) args.replace(at, 3, to);
    std::string text;
    EXPECT_EQ(run_logged(args, text), 2) << args << "\n" << text;
    EXPECT_NE(text.find("extra"), std::string::npos) << args << "\n" << text;
  }
  // Nothing was generated or analysed.
  EXPECT_TRUE(fs::is_empty(out)) << out;
}

}  // namespace
