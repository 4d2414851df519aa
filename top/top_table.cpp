#include "top/top_table.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <map>

#include "report/display_format.h"
#include "report/table_view.h"

namespace cs::top {

namespace {

constexpr double kTableNaN = std::numeric_limits<double>::quiet_NaN();

struct Row {
  std::string name, type;
  size_t calls = 0;
  double time = 0, flops = 0, bytes = 0;
  double max_call = -1;
  const OpCall* longest = nullptr;
  size_t flops_n = 0, bytes_n = 0;
};

bool same_ci(const std::string& a, const std::string& b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

// Folds the n-th value `v` (n counted before it) into `acc`.
void fold(double& acc, size_t n, double v, TopOptions::Aggregate agg) {
  if (n == 0)
    acc = v;
  else if (agg == TopOptions::Aggregate::kMax)
    acc = std::max(acc, v);
  else if (agg == TopOptions::Aggregate::kMin)
    acc = std::min(acc, v);
  else
    acc += v;
}

// True when the ';'-separated `dtypes` holds `want` exactly.
bool has_dtype(const std::string& dtypes, const std::string& want) {
  size_t from = 0;
  while (from <= dtypes.size()) {
    const size_t to = std::min(dtypes.find(';', from), dtypes.size());
    if (dtypes.compare(from, to - from, want) == 0) return true;
    from = to + 1;
  }
  return false;
}

}  // namespace

bool passes_filters(const OpCall& c, const TopOptions& opt) {
  if (!opt.types.empty() && std::none_of(opt.types.begin(), opt.types.end(),
                                         [&](const std::string& t) { return same_ci(c.type, t); }))
    return false;
  if (opt.name_regex &&
      !std::regex_search(c.name, *opt.name_regex, std::regex_constants::match_continuous))
    return false;
  return opt.input_dtype.empty() || has_dtype(c.input_dtypes, opt.input_dtype);
}

io::Table top_table(const std::vector<OpCall>& calls, const TopOptions& opt, TopTotals* totals) {
  std::vector<Row> rows;
  std::map<std::string, size_t> index;
  double total = 0, all = 0;
  for (const auto& c : calls) {
    if (!std::isfinite(c.dur_us)) continue;
    all += c.dur_us;
    if (c.dur_us < opt.min_time_s * 1e6 || c.dur_us > opt.max_time_s * 1e6) continue;
    if (!passes_filters(c, opt)) continue;
    total += c.dur_us;
    if (totals) ++totals->calls;
    size_t r;
    if (opt.aggregate_by == TopOptions::By::kNone) {
      r = rows.size();
      rows.emplace_back();
    } else {
      static const std::string kAll = "all";
      const std::string& key = opt.aggregate_by == TopOptions::By::kType  ? c.type
                               : opt.aggregate_by == TopOptions::By::kAll ? kAll
                                                                          : c.name;
      auto [it, fresh] = index.emplace(key, rows.size());
      if (fresh) rows.emplace_back();
      r = it->second;
    }
    Row& row = rows[r];
    if (row.calls == 0) {
      row.name = opt.aggregate_by == TopOptions::By::kType  ? c.type
                 : opt.aggregate_by == TopOptions::By::kAll ? "all"
                                                            : c.name;
      row.type = opt.aggregate_by == TopOptions::By::kAll ? "all" : c.type;
    }
    fold(row.time, row.calls, c.dur_us, opt.aggregate);
    ++row.calls;
    if (std::isfinite(c.flops)) fold(row.flops, row.flops_n, c.flops, opt.aggregate), ++row.flops_n;
    if (std::isfinite(c.bytes)) fold(row.bytes, row.bytes_n, c.bytes, opt.aggregate), ++row.bytes_n;
    if (c.dur_us > row.max_call) row.max_call = c.dur_us, row.longest = &c;
  }
  for (auto& row : rows) {
    if (opt.aggregate == TopOptions::Aggregate::kMean) {
      row.time /= static_cast<double>(row.calls);
      if (row.flops_n) row.flops /= static_cast<double>(row.flops_n);
      if (row.bytes_n) row.bytes /= static_cast<double>(row.bytes_n);
    }
    if (!row.flops_n) row.flops = kTableNaN;
    if (!row.bytes_n) row.bytes = kTableNaN;
  }
  using Order = TopOptions::Order;
  const auto key = [&](const Row& r) {
    const double rate_base = r.time > 0 ? r.time : kTableNaN;
    switch (opt.order_by) {
      case Order::kMemory:
        return r.bytes;
      case Order::kFlops:
        return r.flops / rate_base;
      case Order::kComputation:
        return r.flops;
      case Order::kBandwidth:
        return r.bytes / rate_base;
      default:
        return r.time;
    }
  };
  // Rows without the value last either way (profile_analyze's N/A sorts above every number, and
  // its keys are negated only for numbers); ties by time, longest first.
  std::stable_sort(rows.begin(), rows.end(), [&](const Row& a, const Row& b) {
    const double x = key(a), y = key(b);
    const bool xn = std::isfinite(x), yn = std::isfinite(y);
    if (xn != yn) return xn;
    if (xn && x != y) return opt.ascending ? x < y : x > y;
    return a.time > b.time;
  });
  if (opt.top_n > 0 && rows.size() > opt.top_n) rows.resize(opt.top_n);
  if (totals) totals->time_us = total;
  if (opt.share_of_all) total = all;
  if (std::isfinite(opt.share_total_us)) total = opt.share_total_us;

  io::Table t("top");
  auto& c_rank = t.add_int("rank");
  auto& c_name = t.add_string("name");
  auto& c_type = t.add_string("type");
  auto& c_calls = t.add_int("calls");
  auto& c_time = t.add_double("device_self_us", "us");
  auto& c_share = t.add_double("share_pct", "%");
  auto& c_cum = t.add_double("cumulative_pct", "%");
  auto& c_flops = t.add_double("flops", "FLOP");
  auto& c_tflops = t.add_double("tflops_per_s", "TFLOP/s");
  auto& c_bytes = t.add_double("bytes", "bytes");
  auto& c_bw = t.add_double("bandwidth_gbps", "GB/s");
  auto& c_in = t.add_string("input_shapes");
  auto& c_dt = t.add_string("input_dtypes");
  auto& c_out = t.add_string("output_shapes");
  double cum = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    c_rank.ints.push_back(static_cast<int64_t>(i + 1));
    c_name.strings.push_back(r.name);
    c_type.strings.push_back(r.type);
    c_calls.ints.push_back(static_cast<int64_t>(r.calls));
    c_time.doubles.push_back(r.time);
    const double share = total > 0 ? 100.0 * r.time / total : kTableNaN;
    cum += r.time;
    c_share.doubles.push_back(share);
    c_cum.doubles.push_back(total > 0 ? 100.0 * cum / total : kTableNaN);
    c_flops.doubles.push_back(r.flops);
    // Rates over the same aggregate: FLOP / µs = 1e6 FLOP/s; TFLOP/s = flops / us / 1e6.
    c_tflops.doubles.push_back(r.time > 0 && std::isfinite(r.flops) ? r.flops / r.time / 1e6
                                                                    : kTableNaN);
    c_bytes.doubles.push_back(r.bytes);
    c_bw.doubles.push_back(r.time > 0 && std::isfinite(r.bytes) ? r.bytes / r.time / 1e3
                                                                : kTableNaN);
    c_in.strings.push_back(r.longest ? r.longest->input_shapes : "");
    c_dt.strings.push_back(r.longest ? r.longest->input_dtypes : "");
    c_out.strings.push_back(r.longest ? r.longest->output_shapes : "");
  }
  return t;
}

namespace {

size_t display_width(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s)
    if ((c & 0xC0) != 0x80) ++n;
  return n;
}

std::string shorten(const std::string& s, size_t max) {
  if (display_width(s) <= max) return s;
  std::string out;
  size_t n = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if ((c & 0xC0) != 0x80 && ++n > max - 1) break;
    out += s[i];
  }
  return out + "\u2026";
}

std::string pad(const std::string& s, size_t w, bool right) {
  const size_t n = display_width(s);
  if (n >= w) return s;
  return right ? std::string(w - n, ' ') + s : s + std::string(w - n, ' ');
}

std::string maybe(double v, const std::string& text) {
  return std::isfinite(v) ? text : "-";
}

}  // namespace

std::string format_top_text(const io::Table& t, size_t total_calls, double total_us,
                            const std::string& side) {
  const report::ColumnRef rank(&t, "rank"), name(&t, "name"), type(&t, "type"), calls(&t, "calls"),
      time(&t, "device_self_us"), cum(&t, "cumulative_pct"), flops(&t, "flops"),
      tflops(&t, "tflops_per_s"), bytes(&t, "bytes"), bw(&t, "bandwidth_gbps"),
      in(&t, "input_shapes"), out(&t, "output_shapes");
  const std::vector<std::string> head = {"#",
                                         side + " self time",
                                         "cum%",
                                         "calls",
                                         "GFLOP",
                                         "TFLOP/s",
                                         "memory",
                                         "GB/s",
                                         "type",
                                         "name",
                                         "input shapes",
                                         "output shapes"};
  const std::vector<bool> right = {true, true, true,  true,  true,  true,
                                   true, true, false, false, false, false};
  std::vector<std::vector<std::string>> cells;
  for (size_t r = 0; r < t.rows(); ++r) {
    cells.push_back({rank.str(r), report::fmt_us(time.num(r)), report::fmt_num(cum.num(r), 1) + "%",
                     report::fmt_num(calls.num(r), 0),
                     maybe(flops.num(r), report::fmt_num(flops.num(r) / 1e9, 2)),
                     maybe(tflops.num(r), report::fmt_num(tflops.num(r), 2)),
                     maybe(bytes.num(r), report::fmt_bytes(bytes.num(r))),
                     maybe(bw.num(r), report::fmt_num(bw.num(r), 1)), shorten(type.str(r), 24),
                     shorten(name.str(r), 48), shorten(in.str(r), 40), shorten(out.str(r), 24)});
  }
  std::vector<size_t> w(head.size());
  for (size_t k = 0; k < head.size(); ++k) {
    w[k] = display_width(head[k]);
    for (const auto& row : cells) w[k] = std::max(w[k], display_width(row[k]));
  }
  std::string s;
  const auto line = [&](const std::vector<std::string>& row) {
    std::string l;
    for (size_t k = 0; k < row.size(); ++k) {
      if (k) l += "  ";
      l += pad(row[k], w[k], right[k]);
    }
    while (!l.empty() && l.back() == ' ') l.pop_back();
    s += l + "\n";
  };
  line(head);
  for (const auto& row : cells) line(row);
  s += std::to_string(t.rows()) + " rows from " + std::to_string(total_calls) + " calls, " +
       report::fmt_us(total_us) + " " + side + " time in total\n";
  return s;
}

}  // namespace cs::top
