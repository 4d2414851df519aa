#include "msprof_analyze/recipes/operator_mfu/kernel_mfu.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <map>
#include <set>
#include <tuple>
#include <utility>

#include "frame/pandas_math.h"
#include "io/py_format.h"

namespace cs::recipes::operator_mfu {

namespace {

// A kernel with both its op and its shapes (the inner join on name, start and end).
struct Joined {
  const OpKernel* op;
  const KernelShape* shape;
};

using Key = std::tuple<std::optional<std::string>, int64_t, int64_t>;

}  // namespace

std::optional<ParsedFlops> parse_flops(const std::optional<std::string>& message) {
  if (!message) return std::nullopt;
  std::string_view s = *message;
  if (!s.empty() && s.back() == '\n') s.remove_suffix(1);  // "$" matches before a final newline
  if (s.find('\n') != std::string_view::npos) return std::nullopt;
  size_t digits = 0;
  while (digits < s.size() && s[digits] >= '0' && s[digits] <= '9') ++digits;
  if (digits == 0 || digits + 1 >= s.size() || s[digits] != '-') return std::nullopt;
  ParsedFlops p;
  p.name = std::string(s.substr(digits + 1));
  const auto [end, ec] = std::from_chars(s.data(), s.data() + digits, p.flops);
  if (ec != std::errc() || end != s.data() + digits) {  // beyond int64: a float, as pandas reads it
    p.real = true;
    p.flops_real = std::strtod(std::string(s.substr(0, digits)).c_str(), nullptr);
  }
  if (!(p.value() > 0)) return std::nullopt;
  return p;
}

std::vector<KernelMfu> kernel_mfu(const std::vector<OpKernel>& compute_kernels,
                                  const std::vector<KernelShape>& shapes,
                                  const std::vector<FlopsRange>& ranges, const ChipPeak& chip,
                                  MfuSkips& skips) {
  std::vector<std::pair<FlopsRange, ParsedFlops>> records;
  for (const FlopsRange& r : ranges)
    if (auto p = parse_flops(r.message))
      records.push_back({r, std::move(*p)});
    else
      ++skips.malformed;
  if (records.empty()) return {};
  // Shapes rows by key (in their order), then the join in op-kernel order.
  std::map<Key, std::vector<const KernelShape*>> by_key;
  for (const KernelShape& s : shapes) {
    if ((s.input_shapes && *s.input_shapes == "N/A") ||
        (s.output_shapes && *s.output_shapes == "N/A"))
      continue;
    by_key[{s.kernel, s.kernel_ts, s.kernel_end}].push_back(&s);
  }
  std::vector<Joined> joined;
  for (const OpKernel& k : compute_kernels) {
    auto it = by_key.find({k.kernel, k.kernel_ts, k.kernel_end});
    if (it == by_key.end()) continue;
    for (const KernelShape* s : it->second) joined.push_back({&k, s});
  }
  std::stable_sort(joined.begin(), joined.end(), [](const Joined& a, const Joined& b) {
    return std::tie(a.op->op_ts, a.op->kernel_ts, a.op->kernel_end) <
           std::tie(b.op->op_ts, b.op->kernel_ts, b.op->kernel_end);
  });
  std::vector<KernelMfu> out;
  if (joined.empty()) return out;
  for (const auto& [range, flops] : records) {
    if (range.end <= range.start) continue;
    const auto lo = std::lower_bound(joined.begin(), joined.end(), range.start,
                                     [](const Joined& j, int64_t t) { return j.op->op_ts < t; });
    const auto hi = std::upper_bound(joined.begin(), joined.end(), range.end,
                                     [](int64_t t, const Joined& j) { return t < j.op->op_ts; });
    std::vector<const Joined*> kernels;
    std::set<std::pair<int64_t, int64_t>> seen;
    int64_t total = 0;
    for (auto it = lo; it != hi; ++it)
      if (seen.insert({it->op->kernel_ts, it->op->kernel_end}).second) {
        kernels.push_back(&*it);
        total += it->shape->duration;
      }
    if (kernels.empty() || total <= 0) continue;
    const auto& types = kernels.front()->shape->input_types;
    const PeakType type = types ? peak_type(*types) : PeakType::kFloat16;
    if (type == PeakType::kUnsupported) {
      skips.unsupported.push_back(*types);
      continue;
    }
    const double peak = chip.peak_flops(type);
    for (const Joined* j : kernels) {
      const int64_t d = j->shape->duration;
      if (d <= 0) continue;
      const double per_second = flops.value() / (static_cast<double>(d) * 1e-9);
      out.push_back({j->op->kernel, j->op->kernel_ts, j->op->kernel_end, per_second / peak, flops,
                     d, peak, per_second / 1e12, j->shape->input_shapes, j->shape->output_shapes});
    }
  }
  return out;
}

std::string average_mfu(const std::vector<std::vector<size_t>>& calls,
                        const std::vector<double>& mfu) {
  std::string out;
  const size_t width = calls.empty() ? 0 : calls.front().size();
  for (size_t pos = 0; pos < width; ++pos) {
    std::vector<double> valid;
    for (const auto& call : calls)
      if (pos < call.size() && mfu[call[pos]] > 0) valid.push_back(mfu[call[pos]]);
    if (valid.empty()) continue;
    const double mean = frame::numpy_sum(valid) / static_cast<double>(valid.size());
    if (!out.empty()) out += ',';
    out += io::py_repr(frame::numpy_round(mean * 100, 2)) + "%";
  }
  return out;
}

}  // namespace cs::recipes::operator_mfu
