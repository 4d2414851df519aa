#include "msprof_analyze/documents/comm_batches.h"

#include <algorithm>
#include <utility>

#include "io/comm_keys.h"
#include "runtime/task_runner.h"

namespace cs::documents {

namespace {

// Calls fn(step index, op, p2p) for each op of `file` in walk_lists order; the Total Op Info
// entries are not ops.
template <class File, class Fn>
void walk_ops(File& file, Fn fn) {
  walk_lists(file, [&](size_t s, auto& ops, bool p2p) {
    for (auto& op : ops)
      if (!io::msprof_is_total(op.name)) fn(s, op, p2p);
  });
}

const CommGroup* group_of(const CommGroups& groups, const readers::CommOp& op, bool p2p) {
  return groups.find(p2p ? "p2p" : "collective", py_group_of(op.name));
}

}  // namespace

CommBatches::CommBatches(const std::vector<load::RankData>& ranks, const CommGroups& groups,
                         int threads, size_t batch_ops)
    : ranks_(ranks), groups_(groups) {
  // Per rank, the groups it reports ops of, in first-appearance order, with their op counts.
  std::vector<GroupCounts> seen(ranks.size());
  std::vector<CommStringWidths> longest(ranks.size());
  runtime::parallel_for(ranks.size(), threads, [&](size_t r) {
    if (!ranks[r].has_communication) return;
    thread_local readers::CommunicationFile scratch;  // reused rank after rank, read only here
    auto& mine = seen[r];
    CommStringWidths& w = longest[r];
    const readers::CommunicationFile& file = ranks[r].communication.read(scratch);
    walk_ops(file, [&](size_t s, const readers::CommOp& op, bool p2p) {
      const size_t step = file.steps[s].step.size(), group = py_group_of(op.name).size(),
                   part = op_part_of(op.name).size();
      w.step = std::max(w.step, step);
      w.group = std::max(w.group, group);
      w.op = std::max(w.op, part);
      ++w.reports;
      w.step_bytes += step;
      w.group_bytes += group;
      w.op_bytes += part;
      (p2p ? w.p2p : w.collective) = true;
      if (op.has_bandwidth_info)
        for (const readers::TransportInfo& t : op.transports) {
          w.transport = std::max(w.transport, t.name.view().size());
          ++w.transports;
          w.transport_bytes += t.name.view().size();
        }
      count_group(mine, group_of(groups, op, p2p), 1);
    });
  });
  for (const CommStringWidths& w : longest) {
    widths_.step = std::max(widths_.step, w.step);
    widths_.group = std::max(widths_.group, w.group);
    widths_.op = std::max(widths_.op, w.op);
    widths_.transport = std::max(widths_.transport, w.transport);
    widths_.reports += w.reports;
    widths_.step_bytes += w.step_bytes;
    widths_.group_bytes += w.group_bytes;
    widths_.op_bytes += w.op_bytes;
    widths_.transports += w.transports;
    widths_.transport_bytes += w.transport_bytes;
    widths_.collective = widths_.collective || w.collective;
    widths_.p2p = widths_.p2p || w.p2p;
  }
  plan_ = TupleBatches(seen, batch_ops);
}

CommBatch CommBatches::load(size_t i, int threads) const {
  const size_t begin = plan_.begin(i), end = plan_.end(i);
  const std::vector<uint32_t> readers_of = plan_.readers(i);  // in rank order

  struct Kept {
    uint32_t tuple;  // position in the batch
    uint32_t step;   // in RankOps::steps
    bool p2p;
  };
  CommBatch batch;
  batch.kept.resize(readers_of.size());
  std::vector<std::vector<Kept>> where(readers_of.size());
  runtime::parallel_for(readers_of.size(), threads, [&](size_t k) {
    const load::RankData& rd = ranks_[readers_of[k]];
    readers::CommunicationFile scratch;
    const readers::CommunicationFile& file = rd.communication.read(scratch);
    if (&file != &scratch) scratch = file;  // held unpacked: the batch keeps copies
    CommBatch::RankOps& kept = batch.kept[k];
    for (const readers::CommStep& s : scratch.steps) kept.steps.push_back(s.step);
    walk_ops(scratch, [&](size_t s, readers::CommOp& op, bool p2p) {
      const uint32_t t = plan_.tuple_of(group_of(groups_, op, p2p));
      if (t < begin || t >= end) return;
      where[k].push_back({static_cast<uint32_t>(t - begin), static_cast<uint32_t>(s), p2p});
      kept.ops.push_back(std::move(op));
    });
  });

  CommIndex& index = batch.index;
  for (size_t t = begin; t < end; ++t) {
    index.group_index.emplace(plan_.key(t), index.groups.size());
    index.groups.emplace_back().tuple_key = plan_.key(t);
  }
  for (size_t k = 0; k < readers_of.size(); ++k) {
    const int rank = ranks_[readers_of[k]].rank();
    CommBatch::RankOps& kept = batch.kept[k];
    for (size_t j = 0; j < kept.ops.size(); ++j) {
      const Kept& at = where[k][j];
      const readers::CommOp& op = kept.ops[j];
      CommGroupEntry& ge = index.groups[at.tuple];
      bool added = false;
      CommStepEntry& se = find_or_add(ge.steps, ge.step_index, kept.steps[at.step], added);
      if (added) se.step = kept.steps[at.step];
      CommOpEntry& oe = find_or_add(se.ops, se.op_index, op.name, added);
      if (added) {
        oe.key = op.name;
        oe.p2p = at.p2p;
      }
      // setdefault: the first report of a rank wins (index_communication).
      if (oe.ranks.empty() || oe.ranks.back().rank != rank) oe.ranks.push_back({rank, &op});
    }
    std::vector<Kept>().swap(where[k]);
  }
  return batch;
}

}  // namespace cs::documents
