#include "msprof_analyze/documents/cluster_communication.h"

#include <charconv>
#include <cmath>
#include <mutex>
#include <span>

#include "io/comm_keys.h"
#include "io/output_file.h"
#include "msprof_analyze/documents/comm_batches.h"
#include "runtime/ordered_parallel.h"
#include "runtime/task_runner.h"

namespace cs::documents {

namespace {
constexpr double kEps = 1e-15;  // msprof-analyze Constant.EPS

template <class T>
T& find_or_add(std::vector<T>& items, std::unordered_map<std::string, size_t>& index,
               const std::string& key, bool* added = nullptr) {
  auto [it, inserted] = index.try_emplace(key, items.size());
  if (added) *added = inserted;
  if (inserted) items.emplace_back();
  return items[it->second];
}

// `entry_of`: the group-tuple entry of each group seen so far. A tuple key is as long as its
// group (a 64-rank DP group's is ~400 characters): built and hashed once per group, not per op.
void index_ops(CommIndex& out, std::unordered_map<const CommGroup*, size_t>& entry_of,
               const CommGroups& groups, const std::string& step,
               const std::vector<readers::CommOp>& ops, bool p2p, int rank) {
  const char* type = p2p ? "p2p" : "collective";
  for (const readers::CommOp& op : ops) {
    if (io::msprof_is_total(op.name)) continue;
    const CommGroup* g = groups.find(type, py_group_of(op.name));
    // An op whose group is unknown (groups built from another mode's files) gets the empty
    // tuple "()", as dict.get(group, []) gives in msprof-analyze.
    auto [entry, fresh] = entry_of.try_emplace(g, 0);
    bool added = false;
    if (fresh) {
      const std::string tuple = g ? g->tuple_key() : "()";
      CommGroupEntry& ge = find_or_add(out.groups, out.group_index, tuple, &added);
      if (added) ge.tuple_key = tuple;
      entry->second = out.group_index.at(tuple);
    }
    CommGroupEntry& ge = out.groups[entry->second];
    CommStepEntry& se = find_or_add(ge.steps, ge.step_index, step, &added);
    if (added) se.step = step;
    CommOpEntry& oe = find_or_add(se.ops, se.op_index, op.name, &added);
    if (added) {
      oe.key = op.name;
      oe.p2p = p2p;
    }
    // setdefault: the first report of a rank wins. Ranks arrive in order, so a repeat of this
    // rank can only be the last entry.
    if (oe.ranks.empty() || oe.ranks.back().rank != rank) oe.ranks.push_back({rank, &op});
  }
}

// A fixed field name (needs no escaping) and its number.
void write_num(io::JsonWriter& w, const char* key, io::Num n) {
  w.key_plain(key);
  w.value(n);
}

// A rank's number as its key.
void write_rank_key(io::JsonWriter& w, int64_t rank) {
  char buf[24];
  const auto res = std::to_chars(buf, buf + sizeof buf, rank);
  w.key_plain(std::string_view(buf, static_cast<size_t>(res.ptr - buf)));
}

void write_distribution(io::JsonWriter& w, std::span<const readers::SizeBucket> buckets) {
  w.key_plain("Size Distribution");
  w.begin_object();
  for (const readers::SizeBucket& b : buckets) {
    w.key(b.size_key);
    w.begin_array();
    w.value(b.count);
    w.value(b.duration_ms);
    w.end_array();
  }
  w.end_object();
}

void write_totals(io::JsonWriter& w, const std::vector<TotalGroup>& totals) {
  for (const TotalGroup& tg : totals) {
    w.key("Total Op Info@" + tg.group);
    w.begin_object();
    for (const TotalRank& tr : tg.ranks) {
      write_rank_key(w, tr.rank);
      w.begin_object();
      w.key_plain("Communication Time Info");
      w.begin_object();
      for (const auto& [field, v] : tr.time) {
        w.key_plain(readers::kTimeFieldNames[field]);
        w.value(io::Num::real(v));
      }
      write_num(w, "Wait Time Ratio", tr.wait_ratio);
      write_num(w, "Synchronization Time Ratio", tr.sync_ratio);
      w.end_object();
      w.key_plain("Communication Bandwidth Info");
      w.begin_object();
      for (const TotalTransport& t : tr.transports) {
        w.key(t.name);
        w.begin_object();
        write_num(w, "Transit Time(ms)", t.time_ms);
        write_num(w, "Transit Size(MB)", t.size_mb);
        write_distribution(w, t.size_distribution);
        write_num(w, "Bandwidth(GB/s)", t.bandwidth_gbps);
        w.end_object();
      }
      w.end_object();
      w.end_object();
    }
    w.end_object();
  }
}

}  // namespace

CommIndex index_communication(const std::vector<load::RankData>& ranks, const CommGroups& groups) {
  CommIndex out;
  std::unordered_map<const CommGroup*, size_t> entry_of;
  readers::CommunicationFile scratch;  // a rank still held packed is read through it
  for (const load::RankData& rd : ranks) {
    if (!rd.has_communication) continue;
    for (const readers::CommStep& step : rd.communication.read(scratch).steps) {
      if (step.p2p_first) index_ops(out, entry_of, groups, step.step, step.p2p, true, rd.rank());
      index_ops(out, entry_of, groups, step.step, step.collective, false, rd.rank());
      if (!step.p2p_first) index_ops(out, entry_of, groups, step.step, step.p2p, true, rd.rank());
    }
  }
  return out;
}

io::Num msprof_ratio(io::Num dividend, io::Num divisor) {
  if (std::fabs(divisor.v) < kEps) return io::Num::integer(0);
  return io::Num::real(io::py_round(dividend.v / divisor.v, 4));
}

double TotalRank::get(readers::TimeField f) const {
  for (const auto& [field, v] : time)
    if (field == f) return v;
  return 0.0;
}

std::vector<TotalGroup> compute_total_op_info(const CommStepEntry& step) {
  std::vector<TotalGroup> groups;
  std::unordered_map<std::string, size_t> group_index;
  std::vector<std::unordered_map<int, size_t>> rank_index;
  for (const CommOpEntry& oe : step.ops) {
    const std::string group(py_group_of(oe.key));
    for (const CommOpRef& ref : oe.ranks) {
      const readers::CommOp& op = *ref.op;
      if (!op.has_time_info && !op.has_bandwidth_info) continue;
      bool added = false;
      TotalGroup& tg = find_or_add(groups, group_index, group, &added);
      if (added) {
        tg.group = group;
        rank_index.emplace_back();
      }
      auto& ri = rank_index[group_index[group]];
      auto [rit, rnew] = ri.try_emplace(ref.rank, tg.ranks.size());
      if (rnew) {
        tg.ranks.emplace_back();
        tg.ranks.back().rank = ref.rank;
      }
      TotalRank& tr = tg.ranks[rit->second];
      if (op.has_time_info) {
        for (int f = 0; f < readers::kTimeFieldCount; ++f) {
          auto field = static_cast<readers::TimeField>(f);
          if (!op.time.has(field) || field == readers::kStartTimestampUs ||
              field == readers::kWaitTimeRatio || field == readers::kSyncTimeRatio)
            continue;
          bool found = false;
          for (auto& [tf, v] : tr.time)
            if (tf == field) {
              v += op.time.get(field);
              found = true;
            }
          if (!found) tr.time.emplace_back(field, 0.0 + op.time.get(field));
        }
      }
      if (op.has_bandwidth_info) {
        for (const readers::TransportInfo& ti : op.transports) {
          TotalTransport* t = nullptr;
          for (auto& x : tr.transports)
            if (x.name == ti.name) t = &x;
          if (!t) {
            tr.transports.emplace_back();
            t = &tr.transports.back();
            t->name = ti.name;
          }
          if (ti.has(readers::kTrTimeMs)) t->time_ms += ti.num(readers::kTrTimeMs);
          if (ti.has(readers::kTrSizeMb)) t->size_mb += ti.num(readers::kTrSizeMb);
          if (ti.has_size_distribution) {
            for (const readers::SizeBucket& b : op.size_distribution(ti)) {
              readers::SizeBucket* tb = nullptr;
              for (auto& x : t->size_distribution)
                if (x.size_key == b.size_key) tb = &x;
              if (!tb) {
                t->size_distribution.push_back(
                    {b.size_key, io::Num::integer(0), io::Num::integer(0)});
                tb = &t->size_distribution.back();
              }
              tb->count += b.count;
              tb->duration_ms += b.duration_ms;
            }
          }
        }
      }
    }
  }
  for (TotalGroup& tg : groups) {
    for (TotalRank& tr : tg.ranks) {
      // .get(key, 0): an absent field is the int 0.
      auto num = [&](readers::TimeField f) {
        for (const auto& [tf, v] : tr.time)
          if (tf == f) return io::Num::real(v);
        return io::Num::integer(0);
      };
      tr.wait_ratio = msprof_ratio(num(readers::kWaitTimeMs),
                                   num(readers::kWaitTimeMs) + num(readers::kTransitTimeMs));
      tr.sync_ratio = msprof_ratio(num(readers::kSyncTimeMs),
                                   num(readers::kSyncTimeMs) + num(readers::kTransitTimeMs));
      for (TotalTransport& t : tr.transports) t.bandwidth_gbps = msprof_ratio(t.size_mb, t.time_ms);
    }
  }
  return groups;
}

void write_comm_op_blocks(io::JsonWriter& w, const readers::CommOp& op) {
  w.begin_object();
  if (op.has_time_info) {
    w.key_plain("Communication Time Info");
    w.begin_object();
    for (int f = 0; f < readers::kTimeFieldCount; ++f) {
      auto field = static_cast<readers::TimeField>(f);
      if (!op.time.has(field)) continue;
      w.key_plain(readers::kTimeFieldNames[field]);
      w.value(op.time.num(field));
    }
    w.end_object();
  }
  if (op.has_bandwidth_info) {
    w.key_plain("Communication Bandwidth Info");
    w.begin_object();
    for (const readers::TransportInfo& t : op.transports) {
      w.key(t.name);
      w.begin_object();
      if (t.has(readers::kTrSizeMb)) write_num(w, "Transit Size(MB)", t.num(readers::kTrSizeMb));
      if (t.has(readers::kTrTimeMs)) write_num(w, "Transit Time(ms)", t.num(readers::kTrTimeMs));
      if (t.has(readers::kTrBandwidthGbps))
        write_num(w, "Bandwidth(GB/s)", t.num(readers::kTrBandwidthGbps));
      if (t.has(readers::kTrLargePacketRatio))
        write_num(w, "Large Packet Ratio", t.num(readers::kTrLargePacketRatio));
      if (t.has_size_distribution) write_distribution(w, op.size_distribution(t));
      w.end_object();
    }
    w.end_object();
  }
  w.end_object();
}

namespace {

// One group tuple's object: step -> op -> rank -> blocks, plus the step's Total Op Info.
void write_group(io::JsonWriter& w, const CommGroupEntry& ge) {
  w.begin_object();
  for (const CommStepEntry& se : ge.steps) {
    w.key(se.step);
    w.begin_object();
    for (const CommOpEntry& oe : se.ops) {
      w.key(oe.key);
      w.begin_object();
      for (const CommOpRef& ref : oe.ranks) {
        write_rank_key(w, ref.rank);
        write_comm_op_blocks(w, *ref.op);
      }
      w.end_object();
    }
    write_totals(w, compute_total_op_info(se));
    w.end_object();
  }
  w.end_object();
}

}  // namespace

bool renders_groups_in_parallel(const io::JsonStyle& style, int threads) {
  return threads > 1 && style.indent < 0;
}

size_t comm_group_reports(const CommGroupEntry& group) {
  size_t n = 0;
  for (const CommStepEntry& se : group.steps)
    for (const CommOpEntry& oe : se.ops) n += oe.ranks.size();
  return n;
}

void write_comm_groups(io::JsonWriter& w, const CommIndex& index, int threads,
                       size_t apart_max_reports) {
  const bool parallel = renders_groups_in_parallel(w.style(), threads);
  // Which tuples are rendered apart (on any thread, ahead of the writer); the others are written
  // in place when their turn comes, so a large tuple's text is never held whole.
  std::vector<size_t> apart(parallel ? index.groups.size() : 0);  // reports; 0: in place
  for (size_t i = 0; i < apart.size(); ++i) {
    const size_t reports = comm_group_reports(index.groups[i]);
    apart[i] = reports <= apart_max_reports ? std::max<size_t>(reports, 1) : 0;
  }
  std::vector<std::string> text(apart.size());
  std::vector<size_t> nonfinite(text.size(), 0);
  // A group's text, once written, leaves its buffer to a later group: the groups are rendered
  // into memory already allocated (a few hundred KB each) instead of strings grown from empty.
  // At most one spare buffer per thread is kept (the others are freed as before).
  std::mutex spare_mu;
  std::vector<std::string> spare;
  runtime::ordered_parallel_for(
      index.groups.size(), parallel ? threads : 1,
      [&](size_t i) {
        if (!parallel || !apart[i]) return;
        {
          std::lock_guard lock(spare_mu);
          if (!spare.empty()) {
            text[i].swap(spare.back());
            spare.pop_back();
          }
        }
        io::JsonWriter fw(&text[i], w.style());
        write_group(fw, index.groups[i]);
        nonfinite[i] = fw.nonfinite_count();
      },
      [&](size_t i) {
        w.key(index.groups[i].tuple_key);
        if (parallel && apart[i]) {
          w.raw_value(text[i], nonfinite[i]);
          text[i].clear();
          std::lock_guard lock(spare_mu);
          if (spare.size() < static_cast<size_t>(threads)) spare.push_back(std::move(text[i]));
          std::string().swap(text[i]);
        } else {
          write_group(w, index.groups[i]);
        }
      },
      [&](size_t i) { return parallel ? apart[i] : 0; }, kCommAheadReports);
}

bool write_cluster_communication(io::JsonWriter& w, const CommBatches& batches, int threads,
                                 const std::function<void(const CommIndex&)>& also,
                                 bool also_beside) {
  if (batches.tuples() == 0) return false;
  w.begin_object();
  for (size_t b = 0; b < batches.size(); ++b) {
    const CommBatch batch = batches.load(b, threads);
    runtime::TaskGroup beside;  // both only read the batch's index
    if (also && also_beside) beside.run([&] { also(batch.index); });
    write_comm_groups(w, batch.index, threads);
    if (also && !also_beside) also(batch.index);
    beside.wait();
  }
  w.end_object();
  return true;
}

bool write_cluster_communication(io::JsonWriter& w, const std::vector<load::RankData>& ranks,
                                 const CommGroups& groups, int threads) {
  return write_cluster_communication(w, CommBatches(ranks, groups, threads), threads);
}

bool write_cluster_communication_json(const std::string& path, const CommBatches& batches,
                                      io::Diagnostics& diag, const io::JsonStyle& style,
                                      int threads,
                                      const std::function<void(const CommIndex&)>& also,
                                      bool also_beside) {
  if (batches.tuples() == 0) return true;  // msprof-analyze writes no file when there is no op
  return io::write_output_file(path, diag, [&](std::FILE* f) {
    io::JsonWriter w(f, style);
    write_cluster_communication(w, batches, threads, also, also_beside);
    w.flush();
    warn_nonfinite_written(diag, path, w.nonfinite_count());
    return w.ok();
  });
}

bool write_cluster_communication_json(const std::string& path,
                                      const std::vector<load::RankData>& ranks,
                                      const CommGroups& groups, io::Diagnostics& diag,
                                      const io::JsonStyle& style, int threads) {
  return write_cluster_communication_json(path, CommBatches(ranks, groups, threads), diag, style,
                                          threads);
}

void warn_nonfinite_written(io::Diagnostics& diag, const std::string& path, size_t count) {
  if (count == 0) return;
  diag.warn(path, 0,
            std::to_string(count) +
                " number(s) overflowed (a sum of finite inputs beyond 1.8e308, e.g. two Transit "
                "Size(MB) values of 1.7e308) and were written as null, not NaN/Infinity",
            "those sums are unknown; check the ranks' communication files for values near 1e308");
}

}  // namespace cs::documents
