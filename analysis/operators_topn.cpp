#include "analysis/operators_topn.h"

#include "msprof_analyze/documents/cluster_step_trace.h"

namespace cs::analysis {

stats::OperatorTable merge_operators(const std::vector<load::RankData>& ranks) {
  stats::OperatorTable merged;
  stats::OperatorTable scratch;  // the rank being merged, while its table is packed or spilled
  for (const auto& r : ranks) {
    merged.merge(r.operators.read(scratch));
    scratch = stats::OperatorTable{};  // read back once, freed before the next rank
  }
  return merged;
}

ParkedOperators merge_operators_parked(const std::vector<load::RankData>& ranks,
                                       std::shared_ptr<runtime::SpillFile> file,
                                       size_t park_samples) {
  ParkedOperators out;
  out.samples = std::make_unique<OperatorSamplePark>(std::move(file), park_samples);
  OperatorSamplePark& park = *out.samples;
  stats::OperatorTable::Keeper keep;
  keep.samples = [&park](const std::string& key, const std::vector<double>& samples) {
    park.add(key, samples);
  };
  keep.totals = [&park](const std::string& key, const stats::RankTotals& totals) {
    park.add_totals(key, totals);
  };
  stats::OperatorTable scratch;  // the rank being merged, while its table is packed or spilled
  for (const auto& r : ranks) {
    out.table.merge_counting(r.operators.read(scratch), keep);
    scratch = stats::OperatorTable{};  // read back once, freed before the next rank
  }
  return out;
}

std::vector<stats::TopNRow> operator_rows(const ParkedOperators& merged,
                                          const stats::RankStages& stages) {
  std::vector<stats::TopNRow> rows;
  rows.reserve(merged.table.keys().size());
  for (const auto& [key, s] : merged.table.keys()) {
    // The key as the held merge has it: its counts and sketch, its samples and rank totals read
    // back from the park (in the order they came: the rank totals added as merge() adds them).
    stats::OperatorKeyStats whole;
    whole.durations = s.durations;
    whole.quantiles = s.quantiles;
    if (s.quantiles.samples_elsewhere() > 0)
      merged.samples->read(
          key, [&whole](const double* p, size_t n) { whole.quantiles.give_back(p, n); });
    whole.quantiles.sort_samples();  // the three quantiles then copy nothing
    merged.samples->read_totals(
        key, [&whole](int rank, double total) { whole.rank_totals.add(rank, total); });
    rows.push_back(stats::make_topn_row(key, whole, stages));
  }
  return rows;
}

stats::RankStages rank_stages(const std::vector<load::RankData>& ranks,
                              const documents::CommGroups* groups) {
  stats::RankStages out;
  int64_t tp = 0, dp = 0;
  bool consistent = true, any = false;
  for (const auto& r : ranks) {
    if (!r.has_metadata || r.rank() < 0) continue;
    const auto t = r.metadata.arg("tensor_model_parallel_size");
    const auto d = r.metadata.arg("data_parallel_size");
    if (!t || !d || *t <= 0 || *d <= 0) continue;
    if (any && (*t != tp || *d != dp)) consistent = false;
    tp = *t, dp = *d, any = true;
  }
  if (any && consistent) {
    for (const auto& r : ranks)
      if (r.rank() >= 0) out[r.rank()] = static_cast<int>(r.rank() / (tp * dp));
    return out;
  }
  if (groups) {
    const auto stages = documents::infer_stages(*groups);
    for (size_t i = 0; i < stages.size(); ++i)
      for (int rank : stages[i].sorted()) out[rank] = static_cast<int>(i);
  }
  return out;
}

io::Table operators_topn_table(const stats::OperatorTable& merged, size_t top_n,
                               stats::OrderBy order, const stats::RankStages& stages) {
  std::vector<stats::TopNRow> rows;
  rows.reserve(merged.keys().size());
  for (const auto& [key, s] : merged.keys()) rows.push_back(stats::make_topn_row(key, s, stages));
  return operators_topn_table(std::move(rows), top_n, order);
}

io::Table operators_topn_table(std::vector<stats::TopNRow> rows, size_t top_n,
                               stats::OrderBy order) {
  io::Table t("operators_topn");
  auto& key = t.add_string("key");
  auto& count = t.add_int("count");
  auto& total = t.add_double("total_us", "us");
  auto& mean = t.add_double("mean_us", "us");
  auto& sd = t.add_double("std_us", "us");
  auto& mn = t.add_double("min_us", "us");
  auto& mx = t.add_double("max_us", "us");
  auto& p50 = t.add_double("p50_us", "us");
  auto& p90 = t.add_double("p90_us", "us");
  auto& p99 = t.add_double("p99_us", "us");
  auto& ranks = t.add_int("ranks");
  auto& min_rank = t.add_int("min_rank");
  auto& max_rank = t.add_int("max_rank");
  auto& cv = t.add_double("cross_rank_cv", "ratio");
  for (const auto& r : stats::select_rows(std::move(rows), top_n, order)) {
    key.strings.push_back(r.key);
    count.ints.push_back(r.count);
    total.doubles.push_back(r.total_us);
    mean.doubles.push_back(r.mean_us);
    sd.doubles.push_back(r.std_us);
    mn.doubles.push_back(r.min_us);
    mx.doubles.push_back(r.max_us);
    p50.doubles.push_back(r.p50_us);
    p90.doubles.push_back(r.p90_us);
    p99.doubles.push_back(r.p99_us);
    ranks.ints.push_back(r.ranks);
    min_rank.ints.push_back(r.min_rank);
    max_rank.ints.push_back(r.max_rank);
    cv.doubles.push_back(r.cross_rank_cv);
  }
  return t;
}

io::Table operators_topn_table(const std::vector<load::RankData>& ranks, size_t top_n,
                               stats::OrderBy order) {
  return operators_topn_table(merge_operators(ranks), top_n, order, rank_stages(ranks));
}

}  // namespace cs::analysis
