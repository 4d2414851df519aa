#include "msprof_analyze/recipes/operator_mfu/chip_peak.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string_view>
#include <system_error>
#include <vector>

#include <simdjson.h>

#include "msprof_analyze/recipes/operator_mfu/text_trim.h"

namespace cs::recipes::operator_mfu {

namespace fs = std::filesystem;

namespace {

constexpr int kMaxDepth = 10;  // levels below the rank directory msprof-analyze looks at

// "<prefix><1 or 2 digits>".
bool numbered(std::string_view name, std::string_view prefix) {
  if (!name.starts_with(prefix)) return false;
  name.remove_prefix(prefix.size());
  return (name.size() == 1 || name.size() == 2) &&
         std::all_of(name.begin(), name.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::vector<fs::path> sorted_dirs(const fs::path& dir) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (it->is_directory(ec) && !it->is_symlink(ec)) out.push_back(it->path());
  std::sort(out.begin(), out.end());
  return out;
}

// The first info.json.{n} in a device_{n} directory, walking top-down (names in order).
std::optional<fs::path> find_info_json(const fs::path& dir, int depth) {
  if (depth > kMaxDepth) return std::nullopt;
  const std::vector<fs::path> dirs = sorted_dirs(dir);
  for (const fs::path& d : dirs) {
    if (!numbered(d.filename().string(), "device_")) continue;
    std::vector<fs::path> files;
    std::error_code ec;
    for (fs::directory_iterator it(d, ec), end; !ec && it != end; it.increment(ec))
      if (numbered(it->path().filename().string(), "info.json.")) files.push_back(it->path());
    std::sort(files.begin(), files.end());
    if (!files.empty()) return files.front();
  }
  for (const fs::path& d : dirs)
    if (auto found = find_info_json(d, depth + 1)) return found;
  return std::nullopt;
}

// Python's float() of a JSON number or text; nullopt when it is neither or does not parse.
std::optional<double> as_float(simdjson::dom::element v) {
  double d = 0;
  int64_t i = 0;
  uint64_t u = 0;
  std::string_view s;
  if (v.get(i) == simdjson::SUCCESS) return static_cast<double>(i);
  if (v.get(u) == simdjson::SUCCESS) return static_cast<double>(u);
  if (v.get(d) == simdjson::SUCCESS) return d;
  if (v.get(s) != simdjson::SUCCESS) return std::nullopt;
  const std::string t(trim(s));
  if (t.empty()) return std::nullopt;
  char* end = nullptr;
  d = std::strtod(t.c_str(), &end);
  if (end != t.c_str() + t.size()) return std::nullopt;
  return d;
}

}  // namespace

PeakType peak_type(const std::string& input_types) {
  std::string_view rest = input_types;
  while (true) {
    const size_t semi = rest.find(';');
    const std::string_view part = trim(rest.substr(0, semi));
    if (!part.empty()) {
      std::string up(part);
      for (char& c : up) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      if (up == "FLOAT" || up == "FLOAT16" || up == "BF16" || up == "DT_BF16")
        return PeakType::kFloat16;
      return up == "INT8" ? PeakType::kInt8 : PeakType::kUnsupported;
    }
    if (semi == std::string_view::npos) return PeakType::kFloat16;
    rest.remove_prefix(semi + 1);
  }
}

double ChipPeak::peak_flops(PeakType t) const {
  if (t == PeakType::kUnsupported) return 0;
  return ai_core_num * aic_frequency_mhz *
         (t == PeakType::kInt8 ? 16.0 * 32 * 16 * 2 : 16.0 * 16 * 16 * 2) * 1000000.0;
}

bool read_chip_peak(const std::string& rank_dir, ChipPeak& out, std::string& problem) {
  const auto info = find_info_json(rank_dir, 0);
  if (!info) {
    out.file = rank_dir;
    problem = "no device_{id}/info.json.{id} in the rank directory";
    return false;
  }
  out.file = info->string();
  std::ifstream in(*info, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  if (!in) {
    problem = "cannot be read";
    return false;
  }
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  simdjson::dom::array devices;
  simdjson::dom::object device;
  if (parser.parse(text.str()).get(doc) != simdjson::SUCCESS) {
    problem = "not valid JSON";
    return false;
  }
  if (doc["DeviceInfo"].get(devices) != simdjson::SUCCESS || devices.size() == 0 ||
      devices.at(0).get(device) != simdjson::SUCCESS) {
    problem = "no DeviceInfo list with a device object";
    return false;
  }
  simdjson::dom::element cores, freq;
  const bool has_cores = device["ai_core_num"].get(cores) == simdjson::SUCCESS;
  const bool has_freq = device["aic_frequency"].get(freq) == simdjson::SUCCESS;
  double n = 0, f = 0;
  int64_t i = 0;
  if (has_cores && cores.get(i) == simdjson::SUCCESS) {
    n = static_cast<double>(i);
  } else if (has_cores && cores.get(n) != simdjson::SUCCESS) {
    problem = "DeviceInfo's ai_core_num is not a number";
    return false;
  }
  if (has_freq) {
    const auto v = as_float(freq);
    f = v.value_or(0);
  }
  if (!(n > 0) || !(f > 0) || !std::isfinite(n) || !std::isfinite(f)) {
    problem = "DeviceInfo's ai_core_num and aic_frequency must be positive numbers";
    return false;
  }
  out.ai_core_num = n;
  out.aic_frequency_mhz = f;
  return true;
}

}  // namespace cs::recipes::operator_mfu
