#include "io/output_ledger.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "io/diagnostics_print.h"

namespace cs::io {

namespace fs = std::filesystem;

namespace {

constexpr const char* kLedgerHeader =
    "# clusterscope: the files the last run wrote here; removed at the start of the next run\n";

// A ledger line clusterscope could have written: relative, no "..", no control characters.
bool safe_name(const std::string& name) {
  if (name.empty() || name.front() == '/' || name.front() == '#') return false;
  for (unsigned char c : name)
    if (c < 0x20) return false;
  for (const auto& part : fs::path(name))
    if (part == ".." || part == ".") return false;
  return true;
}

// A .tmp left by an earlier clusterscope run: "<name>.<ext>.tmp" for an output extension of ours.
bool stale_temporary(const std::string& name) {
  static const char* kExts[] = {".csv.tmp", ".json.tmp", ".h5.tmp", ".html.tmp", ".db.tmp"};
  for (const char* ext : kExts) {
    const std::string e(ext);
    if (name.size() > e.size() && name.compare(name.size() - e.size(), e.size(), e) == 0)
      return true;
  }
  return false;
}

// Removes dir/name when it is a regular file (never a directory or a link's target).
bool remove_file(const fs::path& p, Diagnostics& diag) {
  std::error_code ec;
  const auto st = fs::symlink_status(p, ec);
  if (ec || !fs::is_regular_file(st)) return false;
  if (!fs::remove(p, ec) || ec) {
    diag.error(p.string(), 0, "cannot remove this output of the previous run: " + ec.message(),
               "remove it by hand or choose another output directory with -o");
    return false;
  }
  return true;
}

// Writes `ledger` holding only its header (a new, empty list).
void start_ledger_file(const fs::path& ledger, Diagnostics& diag) {
  std::FILE* f = std::fopen(ledger.string().c_str(), "wb");
  if (!f || std::fputs(kLedgerHeader, f) < 0 || std::fclose(f) != 0) {
    if (f) std::fclose(f);
    diag.warn(ledger.string(), 0, "cannot write the list of this run's outputs",
              "the next run will not know which files to replace; check the directory's "
              "permissions");
  }
}

}  // namespace

OutputLedger& OutputLedger::instance() {
  static OutputLedger ledger;
  return ledger;
}

std::vector<std::string> OutputLedger::begin(const std::string& dir, Diagnostics& diag) {
  std::lock_guard<std::mutex> lock(mu_);
  dir_ = fs::path(dir).lexically_normal().string();
  listed_.clear();
  std::vector<std::string> removed;
  const fs::path ledger = fs::path(dir_) / kLedgerFileName;
  {
    std::ifstream in(ledger);
    std::string line;
    while (std::getline(in, line)) {
      if (!safe_name(line)) continue;
      if (remove_file(fs::path(dir_) / line, diag)) removed.push_back(line);
      if (remove_file(fs::path(dir_) / (line + ".tmp"), diag)) removed.push_back(line + ".tmp");
    }
  }
  std::error_code ec;
  for (fs::directory_iterator it(dir_, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (stale_temporary(name) && remove_file(it->path(), diag)) removed.push_back(name);
  }
  std::sort(removed.begin(), removed.end());
  removed.erase(std::unique(removed.begin(), removed.end()), removed.end());
  start_ledger_file(ledger, diag);
  return removed;
}

void OutputLedger::extend(const std::string& dir, Diagnostics& diag) {
  std::lock_guard<std::mutex> lock(mu_);
  dir_ = fs::path(dir).lexically_normal().string();
  listed_.clear();
  const fs::path ledger = fs::path(dir_) / kLedgerFileName;
  {
    std::ifstream in(ledger);
    std::string line;
    while (std::getline(in, line))
      if (safe_name(line)) listed_.insert(line);
  }
  std::error_code ec;
  for (fs::directory_iterator it(dir_, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (stale_temporary(name)) remove_file(it->path(), diag);
  }
  if (fs::exists(ledger, ec)) return;
  start_ledger_file(ledger, diag);
}

void OutputLedger::finish() {
  std::lock_guard<std::mutex> lock(mu_);
  if (dir_.empty()) return;
  const std::string ledger = (fs::path(dir_) / kLedgerFileName).string();
  const std::string tmp = ledger + ".tmp";
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) return;
  bool ok = std::fputs(kLedgerHeader, f) >= 0;
  for (const std::string& name : listed_) ok = ok && std::fprintf(f, "%s\n", name.c_str()) > 0;
  ok = std::fclose(f) == 0 && ok;
  if (!ok || std::rename(tmp.c_str(), ledger.c_str()) != 0) std::remove(tmp.c_str());
}

void OutputLedger::reset() {
  std::lock_guard<std::mutex> lock(mu_);
  dir_.clear();
  listed_.clear();
  open_.clear();
  written_.clear();
  failed_.clear();
  closed_ = false;
}

std::string OutputLedger::relative_to_dir(const std::string& path) const {
  if (dir_.empty()) return {};
  const fs::path rel = fs::path(path).lexically_normal().lexically_relative(dir_);
  const std::string name = rel.string();
  return safe_name(name) ? name : std::string();
}

void OutputLedger::started(const std::string& path) {
  std::lock_guard<std::mutex> lock(mu_);
  started_locked(path);
}

std::FILE* OutputLedger::open_temporary(const std::string& path) {
  std::lock_guard<std::mutex> lock(mu_);
  if (closed_) {
    errno = EINTR;
    return nullptr;
  }
  started_locked(path);
  return std::fopen((path + ".tmp").c_str(), "wb");
}

void OutputLedger::started_locked(const std::string& path) {
  open_.insert(path);
  const std::string name = relative_to_dir(path);
  if (name.empty() || !listed_.insert(name).second) return;
  // Appended and closed at once: the list survives a crash of this process.
  if (std::FILE* f = std::fopen((fs::path(dir_) / kLedgerFileName).string().c_str(), "ab")) {
    std::fprintf(f, "%s\n", name.c_str());
    std::fclose(f);
  }
}

void OutputLedger::written(const std::string& path) {
  std::lock_guard<std::mutex> lock(mu_);
  open_.erase(path);
  written_.push_back(path);
}

void OutputLedger::failed(const std::string& path) {
  std::lock_guard<std::mutex> lock(mu_);
  if (open_.erase(path) == 0) return;  // already reported
  failed_.push_back(path);
}

size_t OutputLedger::remove_temporaries() {
  std::lock_guard<std::mutex> lock(mu_);
  closed_ = true;
  size_t n = 0;
  for (const std::string& p : open_) {
    std::error_code ec;
    if (fs::remove_all(p + ".tmp", ec) > 0) ++n;
  }
  return n;
}

std::vector<std::string> OutputLedger::written_files() const {
  std::lock_guard<std::mutex> lock(mu_);
  return written_;
}

std::vector<std::string> OutputLedger::failed_files() const {
  std::lock_guard<std::mutex> lock(mu_);
  return failed_;
}

void OutputLedger::interrupted(const std::string& signal_name, const std::string& dir, bool print) {
  remove_temporaries();
  const std::vector<std::string> written = written_files();
  if (print && written.empty())
    print_message("interrupted (" + signal_name +
                  ") \u2014 no results written; partial files removed");
  else if (print)
    print_message("interrupted (" + signal_name +
                  ") \u2014 partial files removed; complete before the interrupt: " +
                  output_name_list(written, dir) + " (in " + dir + ")");
  std::fflush(stdout);
  std::fflush(stderr);
}

std::string output_name_list(const std::vector<std::string>& paths, const std::string& dir,
                             size_t max) {
  std::string out;
  for (size_t i = 0; i < paths.size() && i < max; ++i) {
    if (i) out += ", ";
    out += fs::path(paths[i]).lexically_relative(dir).string();
  }
  if (paths.size() > max) out += " and " + std::to_string(paths.size() - max) + " more";
  return out;
}

}  // namespace cs::io
