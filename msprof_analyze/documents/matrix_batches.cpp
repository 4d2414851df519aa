#include "msprof_analyze/documents/matrix_batches.h"

#include <algorithm>
#include <utility>

#include "io/comm_keys.h"
#include "runtime/task_runner.h"

namespace cs::documents {

namespace {

const CommGroup* group_of(const CommGroups& groups, const readers::MatrixOp& op, bool p2p) {
  return groups.find(p2p ? "p2p" : "collective", py_group_of(op.key));
}

// Adds one string of `n` bytes to a column's longest value and byte sum.
void widen(size_t& longest, uint64_t& bytes, size_t n, uint64_t times) {
  longest = std::max(longest, n);
  bytes += n * times;
}

}  // namespace

void MatrixStringWidths::add(const MatrixStringWidths& o) {
  step = std::max(step, o.step);
  group = std::max(group, o.group);
  op = std::max(op, o.op);
  transport = std::max(transport, o.transport);
  op_name = std::max(op_name, o.op_name);
  links += o.links;
  step_bytes += o.step_bytes;
  group_bytes += o.group_bytes;
  op_bytes += o.op_bytes;
  transport_bytes += o.transport_bytes;
  op_name_bytes += o.op_name_bytes;
}

MatrixBatches::MatrixBatches(const std::vector<load::RankData>& ranks, const CommGroups& groups,
                             int threads, size_t batch_links)
    : ranks_(ranks), groups_(groups) {
  if (batch_links == 0) batch_links = kBatchLinks;
  // Per rank, the groups it reports ops of, in first-appearance order, with their link counts.
  std::vector<GroupCounts> seen(ranks.size());
  std::vector<MatrixStringWidths> widths(ranks.size());
  runtime::parallel_for(ranks.size(), threads, [&](size_t r) {
    if (!ranks[r].has_matrix) return;
    readers::MatrixFile scratch;
    auto& mine = seen[r];
    MatrixStringWidths& w = widths[r];
    const readers::MatrixFile& file = ranks[r].matrix.read(scratch);
    walk_lists(file, [&](size_t s, const std::vector<readers::MatrixOp>& ops, bool p2p) {
      const readers::MatrixStep& step = file.steps[s];
      for (const readers::MatrixOp& op : ops) {
        if (io::msprof_is_total(op.key)) continue;
        const uint64_t n = op.links.size();
        std::string_view op_part = op_part_of(op.key);
        if (op_part.empty()) op_part = op.key;
        w.links += n;
        widen(w.step, w.step_bytes, step.step.size(), n);
        widen(w.group, w.group_bytes, py_group_of(op.key).size(), n);
        widen(w.op, w.op_bytes, op_part.size(), n);
        for (const readers::MatrixLink& l : op.links) {
          widen(w.transport, w.transport_bytes, l.transport.view().size(), 1);
          widen(w.op_name, w.op_name_bytes, l.has_op_name ? file.op_name(l).size() : 0, 1);
        }
        // An op without links still costs its key.
        count_group(mine, group_of(groups, op, p2p), op.links.size() + 1);
      }
    });
  });
  // The merged totals' op part ("Total Op Info@<group>").
  if (!ranks.empty()) widths_.op = std::string_view("Total Op Info").size();
  for (const MatrixStringWidths& w : widths) widths_.add(w);
  plan_ = TupleBatches(seen, batch_links);
}

MatrixBatch MatrixBatches::load(size_t i, int threads) const {
  const size_t begin = plan_.begin(i), end = plan_.end(i);
  const std::vector<uint32_t> readers_of = plan_.readers(i);  // in rank order

  MatrixBatch batch;
  batch.kept.resize(readers_of.size());
  auto in_batch = [&](const readers::MatrixOp& op, bool p2p) {
    if (io::msprof_is_total(op.key)) return false;
    const uint32_t t = plan_.tuple_of(group_of(groups_, op, p2p));
    return t >= begin && t < end;
  };
  runtime::parallel_for(readers_of.size(), threads, [&](size_t k) {
    readers::MatrixFile& kept = batch.kept[k];
    const readers::MatrixFile& file = ranks_[readers_of[k]].matrix.read(kept);
    if (&file != &kept) kept = file;  // held unpacked: the batch keeps a copy (sharing its texts)
    walk_lists(kept, [&](size_t, std::vector<readers::MatrixOp>& ops, bool p2p) {
      std::erase_if(ops, [&](const readers::MatrixOp& op) { return !in_batch(op, p2p); });
      ops.shrink_to_fit();
    });
  });

  // The index, as one of every rank's ops would have it, restricted to the batch's tuples: the
  // tuples in document order first, then the ops in rank order, each rank's in walk order.
  MatrixIndex& index = batch.index;
  for (size_t t = begin; t < end; ++t) {
    index.idx.emplace(plan_.key(t), index.groups.size());
    index.groups.emplace_back().tuple = plan_.key(t);
  }
  for (size_t k = 0; k < readers_of.size(); ++k) {
    const int rank = ranks_[readers_of[k]].rank();
    const readers::MatrixFile& file = batch.kept[k];
    walk_lists(file, [&](size_t s, const std::vector<readers::MatrixOp>& ops, bool p2p) {
      const readers::MatrixStep& step = file.steps[s];
      for (const readers::MatrixOp& op : ops) {
        MatrixGroupEntry& ge = index.groups[plan_.tuple_of(group_of(groups_, op, p2p)) - begin];
        bool added = false;
        MatrixStepEntry& se = find_or_add(ge.steps, ge.idx, step.step, added);
        if (added) se.step = step.step;
        MatrixOpEntry& oe = find_or_add(se.ops, se.idx, op.key, added);
        if (added) oe.key = op.key;
        if (oe.ranks.empty() || oe.ranks.back().rank != rank)
          oe.ranks.push_back({rank, &op, &file});
      }
    });
  }
  return batch;
}

}  // namespace cs::documents
