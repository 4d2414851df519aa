#include "analysis/lateness_walk.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "msprof_analyze/documents/communication_groups.h"
#include "runtime/task_runner.h"

namespace cs::analysis {

namespace {

bool walked(const load::RankData& r) {
  return r.has_communication && r.rank() >= 0;
}

double field(const readers::CommOp& op, readers::TimeField f) {
  return op.time.has(f) && std::isfinite(op.time.get(f)) ? op.time.get(f) : 0.0;
}

// A rank's wait in one op on its own: sync when reported, else wait.
double own_wait(const readers::CommOp& op) {
  return op.time.has(readers::kSyncTimeMs) ? field(op, readers::kSyncTimeMs)
                                           : field(op, readers::kWaitTimeMs);
}

// Calls fn(step index, op, collective) for each op the lateness reads, in file order: steps in
// order, collective then p2p; not the Total Op Info entries, not ops without time info.
template <class Fn>
void each_op(const readers::CommunicationFile& file, Fn fn) {
  for (size_t s = 0; s < file.steps.size(); ++s) {
    const readers::CommStep& step = file.steps[s];
    for (const auto* ops : {&step.collective, &step.p2p})
      for (const readers::CommOp& op : *ops)
        if (!op.is_total() && op.has_time_info) fn(s, op, ops == &step.collective);
  }
}

// One rank read once: its totals, its step names in file order and the groups it reports
// collectives of (first-appearance order) with their report counts.
struct FirstPass {
  RankCommTotals totals;
  std::vector<std::string> steps;
  std::vector<std::pair<std::string, size_t>> groups;  // GroupCounter::take()
};

FirstPass first_pass(const load::RankData& rd) {
  FirstPass out;
  // This thread's, reused rank after rank (unpack_section overwrites it in place: no allocation).
  thread_local readers::CommunicationFile scratch;
  const readers::CommunicationFile& file = rd.communication.read(scratch);
  for (const readers::CommStep& s : file.steps) out.steps.push_back(s.step);
  GroupCounter groups;
  size_t last_step = file.steps.size();  // none yet
  each_op(file, [&](size_t s, const readers::CommOp& op, bool collective) {
    out.totals.own_wait_ms += own_wait(op);
    if (s != last_step) ++out.totals.steps, last_step = s;
    if (collective) groups.count(documents::py_group_of(op.name));
  });
  out.groups = groups.take();
  return out;
}

}  // namespace

LatenessWalk::LatenessWalk(const std::vector<load::RankData>& ranks, int threads,
                           size_t batch_entries)
    : ranks_(ranks) {
  // In rank order: step ids and groups numbered in first-appearance order, totals added up. The
  // ranks are read a chunk at a time (in parallel), so that only a chunk's first passes are held.
  const size_t chunk = 256;
  std::vector<FirstPass> passes;
  for (size_t from = 0; from < ranks.size(); from += chunk) {
    const size_t n = std::min(chunk, ranks.size() - from);
    passes.assign(n, FirstPass{});
    runtime::parallel_for(n, threads, [&](size_t k) {
      if (walked(ranks[from + k])) passes[k] = first_pass(ranks[from + k]);
    });
    for (size_t k = 0; k < n; ++k) {
      const size_t p = from + k;
      if (!walked(ranks[p])) continue;
      FirstPass& fp = passes[k];
      for (const std::string& s : fp.steps)
        step_ids_.try_emplace(s, static_cast<int>(step_ids_.size()));
      // Not a structured binding: the lambda below captures the iterator (clang before 16
      // cannot capture a binding).
      const auto emplaced = totals_.try_emplace(ranks[p].rank());
      const auto t = emplaced.first;
      if (emplaced.second) {
        t->second.own_wait_ms = fp.totals.own_wait_ms;
      } else {  // a rank listed twice: its waits add on in order, as one sum
        readers::CommunicationFile scratch;
        each_op(ranks[p].communication.read(scratch), [&](size_t, const readers::CommOp& op, bool) {
          t->second.own_wait_ms += own_wait(op);
        });
      }
      t->second.steps += fp.totals.steps;
      batches_.add(static_cast<uint32_t>(p), std::move(fp.groups));
    }
  }
  std::vector<FirstPass>().swap(passes);
  batches_.cut(batch_entries);
}

std::vector<std::vector<LatenessEntry>> LatenessWalk::load(size_t i, int threads) const {
  const std::vector<uint32_t>& readers_of = batches_.readers(i);
  struct Report {
    std::string key;  // "step\nop key"
    LatenessEntry entry;
  };
  std::vector<std::vector<Report>> reports(readers_of.size());
  runtime::parallel_for(readers_of.size(), threads, [&](size_t k) {
    const load::RankData& rd = ranks_[readers_of[k]];
    thread_local readers::CommunicationFile scratch;  // reused rank after rank, read only here
    const readers::CommunicationFile& file = rd.communication.read(scratch);
    struct Timed {
      double start;
      size_t order;
      size_t step;
      const readers::CommOp* op;
      bool collective;
    };
    std::vector<Timed> timed;
    each_op(file, [&](size_t s, const readers::CommOp& op, bool collective) {
      timed.push_back({field(op, readers::kStartTimestampUs), timed.size(), s, &op, collective});
    });
    // Time order (file order where start times tie or are missing): each op's previous wait.
    std::sort(timed.begin(), timed.end(), [](const Timed& a, const Timed& b) {
      return a.start != b.start ? a.start < b.start : a.order < b.order;
    });
    double prev_wait = 0;
    for (const Timed& t : timed) {
      const readers::CommOp& op = *t.op;
      if (t.collective) {
        if (batches_.batch_of(documents::py_group_of(op.name)) == i) {
          const std::string& step = file.steps[t.step].step;
          reports[k].push_back(
              {step + '\n' + op.name,
               {rd.rank(), step_ids_.at(step), prev_wait, 0, field(op, readers::kSyncTimeMs),
                field(op, readers::kWaitTimeMs), field(op, readers::kTransitTimeMs)}});
        }
      }
      prev_wait = own_wait(op);
    }
  });
  std::vector<std::vector<LatenessEntry>> instances;
  std::unordered_map<std::string, size_t> index;
  for (std::vector<Report>& mine : reports) {
    for (Report& r : mine) {
      const auto [it, added] = index.try_emplace(std::move(r.key), instances.size());
      if (added) instances.emplace_back();
      instances[it->second].push_back(r.entry);
    }
    std::vector<Report>().swap(mine);
  }
  return instances;
}

}  // namespace cs::analysis
