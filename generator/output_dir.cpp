#include "generator/output_dir.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <string_view>
#include <system_error>
#include <vector>

namespace cs::generator {

namespace fs = std::filesystem;

namespace {

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c));
  });
}

// The trace generate --framework kineto writes per rank: rank-N.json.
bool is_generated_trace_name(std::string_view n) {
  return n.starts_with("rank-") && ends_with(n, ".json") && n.size() > 10 &&
         all_digits(n.substr(5, n.size() - 10));
}

// A rank directory any producer could have written (discovery's names).
bool is_rank_dir_name(std::string_view n) {
  return ends_with(n, "_ascend_pt") || ends_with(n, "_ascend_ms") || n.starts_with("PROF_");
}

// The names generate gives its rank directories: devnode-NNNN_PID_TS_ascend_pt (or _ascend_ms).
bool is_generated_rank_dir_name(std::string_view n) {
  if (!n.starts_with("devnode-")) return false;
  if (!ends_with(n, "_ascend_pt") && !ends_with(n, "_ascend_ms")) return false;
  n.remove_prefix(8);
  n.remove_suffix(10);
  for (int field = 0; field < 3; ++field) {  // NNNN, PID, TS
    const size_t us = n.find('_');
    if ((us == std::string_view::npos) != (field == 2)) return false;
    if (!all_digits(n.substr(0, us))) return false;
    n.remove_prefix(us == std::string_view::npos ? n.size() : us + 1);
  }
  return true;
}

// truth.json written by `clusterscope generate` (its "generator" member says so).
bool is_generated_truth(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::string head(4096, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<size_t>(in.gcount()));
  return head.find("\"generator\": \"clusterscope generate\"") != std::string::npos;
}

// "a, b, c and 4 more".
std::string some_names(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < names.size() && i < 3; ++i) out += (i ? ", " : "") + names[i];
  if (names.size() > 3) out += " and " + std::to_string(names.size() - 3) + " more";
  return out;
}

}  // namespace

OutputDirState prepare_output_dir(const std::string& out_dir, bool force, io::Diagnostics& diag,
                                  size_t* removed) {
  if (removed) *removed = 0;
  std::error_code ec;
  const fs::file_status st = fs::status(out_dir, ec);
  if (!fs::exists(st)) return OutputDirState::kReady;  // created by generate
  if (!fs::is_directory(st)) {
    diag.error(out_dir, 0, "exists and is not a directory",
               "give generate a new or empty directory");
    return OutputDirState::kRefused;
  }
  std::vector<std::string> names;
  for (fs::directory_iterator it(out_dir, ec), end; !ec && it != end; it.increment(ec))
    names.push_back(it->path().filename().string());
  if (ec) {
    diag.error(out_dir, 0, "cannot read the directory: " + ec.message(),
               "check its permissions, or give generate another directory");
    return OutputDirState::kFailed;
  }
  if (names.empty()) return OutputDirState::kReady;
  std::sort(names.begin(), names.end());
  if (!force) {
    diag.error(out_dir, 0,
               "the directory is not empty (" + std::to_string(names.size()) +
                   " entries: " + some_names(names) + ")",
               "give generate a new or empty directory, or --force to replace an earlier "
               "generate's output there (other files are kept)");
    return OutputDirState::kRefused;
  }
  const fs::path dir(out_dir);
  const bool generated = is_generated_truth(dir / "truth.json");
  std::vector<std::string> ours, foreign;
  for (const auto& n : names) {
    if (generated &&
        (n == "truth.json" || is_generated_rank_dir_name(n) || is_generated_trace_name(n))) {
      ours.push_back(n);
    } else if (is_rank_dir_name(n)) {
      foreign.push_back(n);
    }
  }
  if (!foreign.empty()) {
    diag.error(out_dir, 0,
               "holds " + std::to_string(foreign.size()) + " rank director" +
                   (foreign.size() == 1 ? "y" : "ies") + " an earlier generate did not write (" +
                   some_names(foreign) + ")",
               "give generate a new or empty directory: --force removes only what generate "
               "wrote, and two clusters in one directory would be analysed as one");
    return OutputDirState::kRefused;
  }
  for (const auto& n : ours) {
    fs::remove_all(dir / n, ec);
    if (ec) {
      diag.error((dir / n).string(), 0, "cannot remove: " + ec.message(),
                 "remove it by hand, or give generate another directory");
      return OutputDirState::kFailed;
    }
    if (removed) ++*removed;
  }
  return OutputDirState::kReady;
}

}  // namespace cs::generator
