#include "analysis/comm_tables.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <iterator>
#include <limits>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>

#include "msprof_analyze/documents/cluster_communication.h"
#include "runtime/ordered_parallel.h"

namespace cs::analysis {

namespace {
// Below this many rows a second thread costs more than it saves.
constexpr size_t kParallelRows = 4096;

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

// Sort key shared by every table: step, group, op, rank, then a tie-breaker (see sort_rows). The
// views point into data that outlives the table being built (the index, the links, the ranks).
struct Key {
  std::string_view step, group, op;
  int64_t rank, extra_rank;
  std::string_view extra;
};

// Dense ordinals of the distinct values of one key field over rows 0..n-1, in the order `less`
// gives them.
template <class Field, class Less>
std::unordered_map<std::string_view, uint32_t> ordinals(size_t n, Field field, Less less) {
  std::unordered_map<std::string_view, uint32_t> ord;
  std::vector<std::string_view> distinct;
  std::string_view last;
  for (size_t i = 0; i < n; ++i) {
    std::string_view v = field(i);
    if (!distinct.empty() && v == last) continue;  // rows come grouped: skip the hash mostly
    last = v;
    if (ord.emplace(v, 0).second) distinct.push_back(v);
  }
  std::sort(distinct.begin(), distinct.end(), less);
  for (uint32_t i = 0; i < distinct.size(); ++i) ord[distinct[i]] = i;
  return ord;
}

// ordinals() in natural order (natural_less), each distinct value's natural_key made once.
template <class Field>
std::unordered_map<std::string_view, uint32_t> natural_ordinals(size_t n, Field field) {
  std::unordered_map<std::string_view, uint32_t> ord;
  std::vector<std::pair<std::string, std::string_view>> distinct;  // (key, value)
  std::string_view last;
  for (size_t i = 0; i < n; ++i) {
    std::string_view v = field(i);
    if (!distinct.empty() && v == last) continue;  // rows come grouped: skip the hash mostly
    last = v;
    if (ord.emplace(v, 0).second) distinct.emplace_back(natural_key(v), v);
  }
  std::sort(distinct.begin(), distinct.end());
  for (uint32_t i = 0; i < distinct.size(); ++i) ord[distinct[i].second] = i;
  return ord;
}

// The row numbers 0..n-1 in table order: a stable sort by step (natural order), group, op
// (natural order), rank, extra_rank, extra, where key_of(i) gives row i's Key. The string fields
// repeat across thousands of rows, so each distinct value is ranked once and rows are compared by
// integers. tie_of(i) gives the Key of row i with only rank, extra_rank and extra needed (what
// rows equal in step, group and op are compared by; cheaper than key_of for some tables).
// `parallel`: on two threads, with the same result. Memory: 16 bytes a row while sorting (24 while
// two sorted halves merge), 4 in the result.
template <class KeyOf, class TieOf>
std::vector<uint32_t> sorted_order(size_t n, KeyOf key_of, TieOf tie_of, bool parallel = false) {
  parallel = parallel && n >= kParallelRows;
  using Ordinals = std::unordered_map<std::string_view, uint32_t>;
  Ordinals step_ord, group_ord, op_ord;
  runtime::run_both(
      parallel,
      [&] {
        step_ord = natural_ordinals(n, [&](size_t i) { return key_of(i).step; });
        group_ord = ordinals(
            n, [&](size_t i) { return key_of(i).group; },
            [](std::string_view a, std::string_view b) { return a < b; });
      },
      [&] { op_ord = natural_ordinals(n, [&](size_t i) { return key_of(i).op; }); });
  struct Ord {
    uint32_t step, group, op, row;
  };
  std::vector<Ord> order(n);
  auto fill = [&](size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) {
      const Key k = key_of(i);
      order[i] = {step_ord.at(k.step), group_ord.at(k.group), op_ord.at(k.op),
                  static_cast<uint32_t>(i)};
    }
  };
  runtime::run_both(
      parallel, [&] { fill(0, n / 2); }, [&] { fill(n / 2, n); });
  // The row number as the last tie-breaker makes the order total: std::sort is then stable (and
  // needs no merge buffer), and two sorted halves merge into the same order as one sort.
  auto less = [&](const Ord& a, const Ord& b) {
    if (a.step != b.step) return a.step < b.step;
    if (a.group != b.group) return a.group < b.group;
    if (a.op != b.op) return a.op < b.op;
    const Key ka = tie_of(a.row);
    const Key kb = tie_of(b.row);
    if (ka.rank != kb.rank) return ka.rank < kb.rank;
    if (ka.extra_rank != kb.extra_rank) return ka.extra_rank < kb.extra_rank;
    if (ka.extra != kb.extra) return ka.extra < kb.extra;
    return a.row < b.row;
  };
  const auto mid = order.begin() + static_cast<std::ptrdiff_t>(n / 2);
  if (parallel) {
    runtime::run_both(
        true, [&] { std::sort(order.begin(), mid, less); },
        [&] { std::sort(mid, order.end(), less); });
    std::inplace_merge(order.begin(), mid, order.end(), less);
  } else {
    std::sort(order.begin(), order.end(), less);
  }
  std::vector<uint32_t> rows(n);
  for (size_t i = 0; i < n; ++i) rows[i] = order[i].row;
  return rows;
}

// Sorts rows (each with a `key`) into table order, in place.
template <class Row>
void sort_rows(std::vector<Row>& rows) {
  auto key_of = [&rows](size_t i) -> const Key& { return rows[i].key; };
  const std::vector<uint32_t> order = sorted_order(rows.size(), key_of, key_of);
  // Permute in place: position i takes row order[i], following each cycle once.
  std::vector<bool> placed(rows.size(), false);
  for (size_t i = 0; i < rows.size(); ++i) {
    if (placed[i]) continue;
    Row held = std::move(rows[i]);
    size_t at = i;
    while (true) {
      placed[at] = true;
      const size_t from = order[at];
      if (from == i) break;
      rows[at] = std::move(rows[from]);
      at = from;
    }
    rows[at] = std::move(held);
  }
}

}  // namespace

bool natural_less(std::string_view a, std::string_view b) {
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (is_digit(a[i]) && is_digit(b[j])) {
      size_t i2 = i, j2 = j;
      while (i2 < a.size() && a[i2] == '0') ++i2;  // leading zeros do not count
      while (j2 < b.size() && b[j2] == '0') ++j2;
      size_t ie = i2, je = j2;
      while (ie < a.size() && is_digit(a[ie])) ++ie;
      while (je < b.size() && is_digit(b[je])) ++je;
      if (ie - i2 != je - j2) return ie - i2 < je - j2;
      int c = a.substr(i2, ie - i2).compare(b.substr(j2, je - j2));
      if (c != 0) return c < 0;
      if (ie - i != je - j) return ie - i < je - j;  // "01" after "1"
      i = ie;
      j = je;
      continue;
    }
    if (a[i] != b[j]) return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[j]);
    ++i;
    ++j;
  }
  return a.size() - i < b.size() - j;
}

std::string natural_key(std::string_view s) {
  std::string key;
  key.reserve(s.size() + 16);
  auto put32 = [&](size_t v) {
    for (int shift = 24; shift >= 0; shift -= 8) key += static_cast<char>((v >> shift) & 0xff);
  };
  for (size_t i = 0; i < s.size();) {
    if (!is_digit(s[i])) {
      key += s[i++];
      continue;
    }
    // A digit run: against another byte it compares as any digit does (every digit lies
    // between the same two other bytes), so its first byte is '0'.
    size_t start = i, sig = i;
    while (sig < s.size() && s[sig] == '0') ++sig;
    size_t end = sig;
    while (end < s.size() && is_digit(s[end])) ++end;
    key += '0';
    put32(end - sig);
    key.append(s.substr(sig, end - sig));
    put32(end - start);
    i = end;
  }
  return key;
}

io::Table communication_matrix_table(const documents::GlobalLinks& links, int threads) {
  // 700k links at 1,024 ranks: sorted as 4-byte row numbers, each key made when compared.
  std::vector<const documents::GlobalLink*> at;
  at.reserve(links.size());
  for (const documents::GlobalLink& l : links) at.push_back(&l);
  auto key_of = [&at](size_t i) {
    const documents::GlobalLink& l = *at[i];
    std::string_view op = documents::op_part_of(l.op_key());
    if (op.empty()) op = l.op_key();
    return Key{l.step(), l.group(), op, l.src_rank, l.dst_rank, {}};
  };
  auto tie_of = [&at](size_t i) {
    const documents::GlobalLink& l = *at[i];
    return Key{{}, {}, {}, l.src_rank, l.dst_rank, {}};
  };
  const std::vector<uint32_t> order = sorted_order(links.size(), key_of, tie_of, threads > 1);

  io::Table t("communication_matrix");
  // 700k rows at 1,024 ranks, with a few thousand distinct names: the string columns are
  // dictionary-encoded (4 bytes a cell instead of a std::string).
  io::DictionaryEncoder step(t.add_encoded_string("step"));
  io::DictionaryEncoder group(t.add_encoded_string("group"));
  io::DictionaryEncoder op(t.add_encoded_string("op"));
  auto& src = t.add_int("src_rank");
  auto& dst = t.add_int("dst_rank");
  io::DictionaryEncoder transport(t.add_encoded_string("transport"));
  auto& size = t.add_double("size_mb", "MB");
  auto& time = t.add_double("time_ms", "ms");
  auto& bw = t.add_double("bandwidth_gbps", "GB/s");
  io::DictionaryEncoder op_name(t.add_encoded_string("op_name"));
  for (io::Column& c : t.columns)
    if (c.encoded) c.codes.reserve(order.size());
  src.ints.reserve(order.size());
  dst.ints.reserve(order.size());
  size.doubles.reserve(order.size());
  time.doubles.reserve(order.size());
  bw.doubles.reserve(order.size());
  // Two sets of columns, filled at once when there are threads to spare.
  runtime::run_both(
      threads > 1 && order.size() >= kParallelRows,
      [&] {
        for (uint32_t i : order) {
          const Key k = key_of(i);
          step.push(k.step);
          group.push(k.group);
          op.push(k.op);
          src.ints.push_back(at[i]->src_rank);
          dst.ints.push_back(at[i]->dst_rank);
        }
      },
      [&] {
        for (uint32_t i : order) {
          const documents::GlobalLink& l = *at[i];
          transport.push(l.transport);
          size.doubles.push_back(l.size_mb);
          time.doubles.push_back(l.time_ms);
          bw.doubles.push_back(l.bandwidth_gbps());
          op_name.push(l.op_name());
        }
      });
  return t;
}

io::Table step_trace_table(const std::vector<load::RankData>& ranks) {
  static const std::pair<const char*, const char*> kColumns[] = {
      {"computing_us", "Computing"},
      {"comm_not_overlapped_us", "Communication(Not Overlapped)"},
      {"overlapped_us", "Overlapped"},
      {"communication_us", "Communication"},
      {"free_us", "Free"},
      {"stage_us", "Stage"},
      {"bubble_us", "Bubble"},
      {"preparing_us", "Preparing"},
  };
  constexpr size_t kValues = std::size(kColumns);
  struct Row {
    Key key;
    std::array<double, kValues> values;  // copied: a parked step trace is read into scratch
  };
  std::vector<Row> rows;
  readers::StepTraceFile scratch;
  // The step names, one copy of each (the rows' keys view them): the scratch they are read into
  // is overwritten rank after rank.
  std::set<std::string, std::less<>> step_names;
  for (const load::RankData& rd : ranks) {
    if (!rd.has_step_trace) continue;
    const readers::StepTraceFile& st = rd.step_trace.read(scratch);
    for (const readers::StepTraceRow& row : st.rows) {
      auto name = step_names.find(row.step);
      if (name == step_names.end()) name = step_names.emplace(row.step).first;
      Row& r = rows.emplace_back(Row{Key{*name, {}, {}, rd.rank(), 0, {}}, {}});
      for (size_t c = 0; c < kValues; ++c) r.values[c] = st.get(row, kColumns[c].second);
    }
  }
  sort_rows(rows);

  io::Table t("step_trace");
  auto& step = t.add_string("step");
  auto& rank = t.add_int("rank");
  std::vector<io::Column*> cols;
  for (const auto& [name, source] : kColumns) cols.push_back(&t.add_double(name, "us"));
  for (const Row& r : rows) {
    step.strings.emplace_back(r.key.step);
    rank.ints.push_back(r.key.rank);
    for (size_t c = 0; c < cols.size(); ++c) cols[c]->doubles.push_back(r.values[c]);
  }
  return t;
}

}  // namespace cs::analysis
