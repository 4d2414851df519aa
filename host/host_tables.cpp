// host_ops_table / free_breakdown_table (see host_tables.h).

#include "host/host_tables.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <utility>

#include <string>

namespace cs::host {

bool host_bound(const OpStats& o) {
  return o.launches > 0 && o.host_self_us > o.device_self_us;
}

SummaryWalk walk_of(const std::vector<RankSummary>& ranks) {
  return [&ranks](const SummaryVisit& visit) {
    for (const auto& [rank, s] : ranks) visit(rank, *s);
  };
}

io::Table host_ops_table(const std::vector<RankSummary>& ranks) {
  return host_ops_table(walk_of(ranks));
}
io::Table free_breakdown_table(const std::vector<RankSummary>& ranks) {
  return free_breakdown_table(walk_of(ranks));
}
io::Table host_rank_ops_table(const std::vector<RankSummary>& ranks, size_t top) {
  return host_rank_ops_table(walk_of(ranks), top);
}

io::Table host_ops_table(const SummaryWalk& ranks) {
  std::vector<OpStats> all;
  ranks([&](int, const HostSummary& s) { merge_ops(all, s.ops); });
  std::stable_sort(all.begin(), all.end(), [](const OpStats& a, const OpStats& b) {
    if (a.host_self_us != b.host_self_us) return a.host_self_us > b.host_self_us;
    return a.name < b.name;
  });
  io::Table t("host_ops");
  auto& name = t.add_string("operator");
  auto& nranks = t.add_int("ranks");
  auto& calls = t.add_int("calls");
  auto& self = t.add_double("host_self_us", "us");
  auto& total = t.add_double("host_total_us", "us");
  auto& dev = t.add_double("device_self_us", "us");
  auto& launches = t.add_int("launches");
  auto& mean = t.add_double("launch_delay_mean_us", "us");
  auto& mx = t.add_double("launch_delay_max_us", "us");
  std::vector<io::Column*> hist;
  for (size_t b = 0; b < kDelayBuckets; ++b) {
    const std::string label =
        b < kDelayBucketsUs.size()
            ? "launch_delay_lt" + std::to_string(static_cast<int>(kDelayBucketsUs[b])) + "us"
            : "launch_delay_ge" + std::to_string(static_cast<int>(kDelayBucketsUs.back())) + "us";
    hist.push_back(&t.add_int(label));
  }
  auto& bound = t.add_int("host_bound");
  for (const OpStats& o : all) {
    name.strings.push_back(o.name);
    nranks.ints.push_back(o.ranks);
    calls.ints.push_back(o.calls);
    self.doubles.push_back(o.host_self_us);
    total.doubles.push_back(o.host_total_us);
    dev.doubles.push_back(o.device_self_us);
    launches.ints.push_back(o.launches);
    mean.doubles.push_back(o.launches > 0 ? o.delay_sum_us / static_cast<double>(o.launches) : 0);
    mx.doubles.push_back(o.delay_max_us);
    for (size_t b = 0; b < kDelayBuckets; ++b) hist[b]->ints.push_back(o.delay_hist[b]);
    bound.ints.push_back(host_bound(o) ? 1 : 0);
  }
  return t;
}

namespace {

io::Table rank_ops_schema() {
  io::Table t("host_rank_ops");
  t.add_int("rank");
  // Each name once: the same operators top many ranks (16,384 DB ranks: 164k rows, 25 MB with a
  // string a row).
  t.add_encoded_string("operator");
  t.add_int("calls");
  t.add_double("host_self_us", "us");
  t.add_double("device_self_us", "us");
  t.add_int("launches");
  t.add_double("launch_delay_mean_us", "us");
  t.add_int("host_bound");
  return t;
}

}  // namespace

void host_rank_ops_chunks(const SummaryWalk& ranks, size_t top, size_t chunk_rows,
                          const std::function<void(io::Table)>& emit) {
  io::Table t = rank_ops_schema();
  auto names = std::make_unique<io::DictionaryEncoder>(t.columns[1]);
  bool emitted = false;
  std::vector<const OpStats*> ops;  // reused rank after rank
  ranks([&](int r, const HostSummary& s) {
    ops.clear();
    for (const OpStats& o : s.ops) ops.push_back(&o);
    std::stable_sort(ops.begin(), ops.end(), [](const OpStats* a, const OpStats* b) {
      if (a->host_self_us != b->host_self_us) return a->host_self_us > b->host_self_us;
      return a->name < b->name;
    });
    if (ops.size() > top) ops.resize(top);
    auto& c = t.columns;
    for (const OpStats* o : ops) {
      c[0].ints.push_back(r);
      names->push(o->name);
      c[2].ints.push_back(o->calls);
      c[3].doubles.push_back(o->host_self_us);
      c[4].doubles.push_back(o->device_self_us);
      c[5].ints.push_back(o->launches);
      c[6].doubles.push_back(o->launches > 0 ? o->delay_sum_us / static_cast<double>(o->launches)
                                             : 0);
      c[7].ints.push_back(host_bound(*o) ? 1 : 0);
    }
    if (t.rows() >= chunk_rows) {  // whole ranks per chunk
      names.reset();
      emit(std::exchange(t, rank_ops_schema()));
      names = std::make_unique<io::DictionaryEncoder>(t.columns[1]);
      emitted = true;
    }
  });
  names.reset();
  if (t.rows() > 0 || !emitted) emit(std::move(t));
}

io::Table host_rank_ops_table(const SummaryWalk& ranks, size_t top) {
  io::Table whole;
  bool first = true;
  host_rank_ops_chunks(ranks, top, SIZE_MAX, [&](io::Table t) {
    if (first) whole = std::move(t);
    first = false;
  });
  return whole;
}

io::Table free_breakdown_table(const SummaryWalk& ranks) {
  io::Table t("free_breakdown");
  auto& rank = t.add_int("rank");
  auto& step = t.add_int("step");
  auto& free = t.add_double("free_us", "us");
  std::vector<io::Column*> causes;
  for (size_t c = 0; c < static_cast<size_t>(Cause::kCount); ++c)
    causes.push_back(&t.add_double(std::string(cause_name(static_cast<Cause>(c))) + "_us", "us"));
  auto& rest = t.add_double("unattributed_us", "us");
  ranks([&](int r, const HostSummary& s) {
    for (const StepFree& f : s.steps) {
      rank.ints.push_back(r);
      step.ints.push_back(f.step);
      free.doubles.push_back(f.free_us);
      for (size_t c = 0; c < causes.size(); ++c) causes[c]->doubles.push_back(f.cause_us[c]);
      rest.doubles.push_back(f.unattributed_us);
    }
  });
  return t;
}

}  // namespace cs::host
