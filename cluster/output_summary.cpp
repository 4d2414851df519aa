#include "cluster/output_summary.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "runtime/progress.h"

namespace cs::cluster {

namespace fs = std::filesystem;

namespace {

// 1310720 -> "1,310,720".
std::string with_commas(size_t n) {
  std::string digits = std::to_string(n), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

}  // namespace

std::vector<OutputFileSize> output_file_sizes(const std::vector<std::string>& paths,
                                              const std::string& out_dir) {
  std::vector<OutputFileSize> files;
  const fs::path dir = fs::path(out_dir).lexically_normal();
  for (const std::string& p : paths) {
    const fs::path rel = fs::path(p).lexically_normal().lexically_relative(dir);
    if (rel.empty() || *rel.begin() == "..") continue;
    std::error_code ec;
    const uintmax_t size = fs::file_size(p, ec);
    if (ec) continue;
    files.push_back({rel.string(), static_cast<uint64_t>(size)});
  }
  std::stable_sort(
      files.begin(), files.end(),
      [](const OutputFileSize& a, const OutputFileSize& b) { return a.bytes > b.bytes; });
  return files;
}

std::string outputs_line(const std::vector<OutputFileSize>& files,
                         const std::map<std::string, size_t>& op_rows, OpTables where,
                         bool hdf5_written) {
  uint64_t total = 0;
  for (const OutputFileSize& f : files) total += f.bytes;
  std::string s = "Outputs: " + runtime::human_bytes(total) + " in " +
                  std::to_string(files.size()) + (files.size() == 1 ? " file" : " files");
  const size_t named = std::min<size_t>(3, files.size());
  for (size_t i = 0; i < named; ++i)
    s += (i == 0 ? " (" : ", ") + files[i].name + " " + runtime::human_bytes(files[i].bytes);
  if (named > 0) s += ")";
  if (!op_rows.empty()) {
    s += "; per-op tables ";
    size_t i = 0;
    for (const auto& [name, rows] : op_rows) {
      s += (i == 0                    ? ""
            : i + 1 == op_rows.size() ? " and "
                                      : ", ") +
           name + " (" + with_commas(rows) + " rows)";
      ++i;
    }
    const std::string h5 = hdf5_written ? "cluster_analysis.h5" : "";
    switch (where) {
      case OpTables::kHdf5:
        s += hdf5_written
                 ? " in " + h5 + " only (--op-tables csv or csv.gz writes them as text too)"
                 : " not written (--format without hdf5; --op-tables csv writes them)";
        break;
      case OpTables::kCsv:
        s += " as <name>.csv" + (hdf5_written ? " and in " + h5 : std::string());
        break;
      case OpTables::kCsvGz:
        s += " as <name>.csv.gz" + (hdf5_written ? " and in " + h5 : std::string());
        break;
    }
  }
  return s + "\n";
}

}  // namespace cs::cluster
