#include "msprof_analyze/documents/cluster_matrix.h"

#include <charconv>
#include <cmath>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <unordered_map>

#include "io/comm_keys.h"
#include "io/output_file.h"
#include "io/text_hash.h"
#include "msprof_analyze/documents/cluster_communication.h"
#include "msprof_analyze/documents/matrix_batches.h"
#include "runtime/ordered_parallel.h"

namespace cs::documents {

namespace {

// A link of the output, keys in msprof-analyze's order. Names are views into the parsed
// communication_matrix.json files (alive for the whole analysis).
struct OutLink {
  std::string_view local_key;  // "0-1" as the rank wrote it (before mapping)
  int src = -1, dst = -1;      // global ranks (after mapping): the output key is "src-dst"
  readers::TransportName transport;
  io::Num time_ms = io::Num::integer(0);
  io::Num size_mb = io::Num::integer(0);
  std::string_view op_name;
  io::Num bandwidth_gbps = io::Num::integer(0);
};
struct OutOp {
  std::string key;
  std::vector<OutLink> links;
};

// An insertion-ordered dict of links where assigning an existing key keeps its position: keyed
// by the local key as written (merge_same_links) or by the global rank pair.
template <class Key>
struct LinkDict {
  std::vector<OutLink> links;
  std::unordered_map<Key, size_t> idx;
  OutLink& at(Key key, bool& added) {
    auto [it, inserted] = idx.try_emplace(key, links.size());
    added = inserted;
    if (inserted) links.emplace_back();
    return links[it->second];
  }
};
uint64_t pair_key(int src, int dst) {
  return (static_cast<uint64_t>(static_cast<uint32_t>(src)) << 32) | static_cast<uint32_t>(dst);
}

// Python's k.split('-')[0] and [1]; false when k has no '-'.
bool split_link(std::string_view k, std::string_view& src, std::string_view& dst) {
  size_t p = k.find('-');
  if (p == std::string_view::npos) return false;
  src = k.substr(0, p);
  std::string_view rest = k.substr(p + 1);
  dst = rest.substr(0, rest.find('-'));
  return true;
}

void combine(OutLink& into, readers::TransportName transport, std::string_view op_name,
             io::Num time_ms, io::Num size_mb) {
  into.transport = transport;
  into.op_name = op_name;
  into.time_ms += time_ms;
  into.size_mb += size_mb;
}

// Looked up by string_view (io::TextHash): no std::string per lookup.
using LocalRanks = std::unordered_map<std::string, int, io::TextHash, std::equal_to<>>;
using RankMap = std::unordered_map<std::string, LocalRanks, io::TextHash, std::equal_to<>>;

// merge_same_links + combine_link_info of one (group tuple, step).
// `metadata_ranks`: map through profiler_metadata.json's global_ranks first (clusterscope's own
// tables), else as msprof-analyze does (its document). `unmapped`: set when a link was left out.
std::vector<OutOp> compute_step(const MatrixStepEntry& se, const CommGroups& groups,
                                bool metadata_ranks, io::Diagnostics& diag, bool& unmapped_any) {
  RankMap rank_map;
  if (metadata_ranks) {
    for (const MatrixOpEntry& oe : se.ops) {
      const std::string_view group = py_group_of(oe.key);
      if (rank_map.find(group) != rank_map.end()) continue;
      const CommGroup* g = groups.find("collective", group);
      if (!g || g->global_ranks.empty()) g = groups.find("p2p", group);
      if (!g || g->global_ranks.empty()) continue;
      auto& m = rank_map[std::string(group)];
      for (size_t i = 0; i < g->global_ranks.size(); ++i) m[std::to_string(i)] = g->global_ranks[i];
    }
  }
  // Local -> global from the "i-i" self links of this step.
  for (const MatrixOpEntry& oe : se.ops) {
    const std::string_view group = py_group_of(oe.key);
    LocalRanks* m = nullptr;
    for (const MatrixRef& ref : oe.ranks) {
      for (const readers::MatrixLink& l : ref.op->links) {
        std::string_view src, dst;
        if (!split_link(ref.link_key(l), src, dst)) {
          diag.warn("", 0, oe.key + " has a link key without '-' (expected \"src-dst\")",
                    "the remaining links of rank " + std::to_string(ref.rank) +
                        " for this op were skipped, as msprof-analyze does");
          break;
        }
        if (src != dst) continue;
        if (!m) {
          auto it = rank_map.find(group);
          m = it != rank_map.end() ? &it->second : &rank_map[std::string(group)];
        }
        auto [it, inserted] = m->try_emplace(std::string(src), ref.rank);
        if (!inserted && it->second != ref.rank)
          diag.warn("", 0,
                    "in communication group " + std::string(group) + ", global ranks " +
                        std::to_string(ref.rank) + " and " + std::to_string(it->second) +
                        " both claim local rank " + std::string(src),
                    "the first rank was kept; check the profiling data of both ranks");
      }
    }
  }

  // Links whose local ranks no rank of the group mapped: said once per group below.
  struct Unmapped {
    std::set<std::string> local_ranks;
  };
  std::map<std::string_view, Unmapped> unmapped;
  std::vector<OutOp> out;
  out.reserve(se.ops.size());
  for (const MatrixOpEntry& oe : se.ops) {
    const std::string_view group = py_group_of(oe.key);
    LinkDict<std::string_view> local;
    for (const MatrixRef& ref : oe.ranks) {
      for (const readers::MatrixLink& l : ref.op->links) {
        std::string_view src, dst;
        const std::string_view key = ref.link_key(l);
        if (!split_link(key, src, dst)) break;  // warned above
        bool added = false;
        OutLink& into = local.at(key, added);
        if (added) into.local_key = key;
        combine(into, l.transport, l.has_op_name ? ref.file->op_name(l) : std::string_view(),
                l.num(readers::kLinkTimeMs), l.num(readers::kLinkSizeMb));
      }
    }
    auto mit = rank_map.find(group);
    LinkDict<uint64_t> global;
    for (OutLink& l : local.links) {
      std::string_view src, dst;
      split_link(l.local_key, src, dst);
      auto lookup = [&](std::string_view local, int& global) {
        if (mit == rank_map.end()) return false;
        auto it = mit->second.find(local);
        if (it == mit->second.end()) return false;
        global = it->second;
        return true;
      };
      int src_global = -1, dst_global = -1;
      const bool src_ok = lookup(src, src_global);
      if (!src_ok || !lookup(dst, dst_global)) {
        unmapped_any = true;
        Unmapped& u = unmapped[group];
        u.local_ranks.insert(std::string(src_ok ? dst : src));
        continue;
      }
      l.bandwidth_gbps = msprof_ratio(l.size_mb, l.time_ms);
      l.src = src_global;
      l.dst = dst_global;
      bool added = false;
      global.at(pair_key(src_global, dst_global), added) = l;
    }
    out.push_back({oe.key, std::move(global.links)});
  }

  for (const auto& [group, u] : unmapped) {
    std::string ranks;
    for (const std::string& r : u.local_ranks) ranks += (ranks.empty() ? "" : ", ") + r;
    diag.warn("", 0,
              "communication group " + std::string(group) + ": local rank(s) " + ranks +
                  " cannot be mapped to global ranks the way msprof-analyze maps them (no rank "
                  "of the group reported their self links \"i-i\" in this step: a group of "
                  "send/receive ops only never does, nor does a rank missing from the input)",
              metadata_ranks ? "their links were left out; add the missing ranks' directories"
                             : "their links were left out of cluster_communication_matrix.json, "
                               "as msprof-analyze does; clusterscope's own tables map them "
                               "through profiler_metadata.json when it lists the group");
  }

  // Total Op Info@<group>: ops without middle/top/bottom in their key.
  std::vector<std::string_view> total_groups;
  std::unordered_map<std::string_view, LinkDict<uint64_t>> totals;
  const size_t n_ops = out.size();
  for (size_t i = 0; i < n_ops; ++i) {
    const OutOp& op = out[i];
    if (io::msprof_is_matrix_statistic_key(op.key)) continue;
    const std::string_view group = py_group_of(op.key);
    for (const OutLink& l : op.links) {
      auto [it, inserted] = totals.try_emplace(group);
      if (inserted) total_groups.push_back(group);
      bool added = false;
      OutLink& into = it->second.at(pair_key(l.src, l.dst), added);
      if (added) {
        into.src = l.src;
        into.dst = l.dst;
      }
      combine(into, l.transport, l.op_name, l.time_ms, l.size_mb);
    }
  }
  for (const std::string_view group : total_groups) {
    LinkDict<uint64_t>& d = totals[group];
    for (OutLink& l : d.links) l.bandwidth_gbps = msprof_ratio(l.size_mb, l.time_ms);
    out.push_back({"Total Op Info@" + std::string(group), std::move(d.links)});
  }
  return out;
}

// One link; its key (digits and '-') and field names need no escaping.
void write_link(io::JsonWriter& w, const OutLink& l) {
  char key[32];  // "src-dst": two ints of at most 11 characters
  const size_t n = static_cast<size_t>(std::to_chars(key, key + 12, l.src).ptr - key);
  key[n] = '-';
  char* p = std::to_chars(key + n + 1, key + sizeof key, l.dst).ptr;
  w.key_plain(std::string_view(key, static_cast<size_t>(p - key)));
  w.begin_object();
  w.key_plain("Transport Type");
  w.value(l.transport.view());
  w.key_plain("Transit Time(ms)");
  w.value(l.time_ms);
  w.key_plain("Transit Size(MB)");
  w.value(l.size_mb);
  w.key_plain("Op Name");
  w.value(l.op_name);
  w.key_plain("Bandwidth(GB/s)");
  w.value(l.bandwidth_gbps);
  w.end_object();
}

}  // namespace

namespace {

// Appends the global links of one (group tuple, step) to `out`.
void append_global_links(const std::string& step, const std::vector<OutOp>& ops,
                         GlobalLinks::Chunk& out) {
  io::StringPool& names = out.names;
  const std::string_view step_name = names.str(names.intern(step));
  for (const OutOp& op : ops) {
    out.ops.push_back({step_name, names.str(names.intern(op.key)),
                       names.str(names.intern(py_group_of(op.key))), &names});
    const GlobalLinkOp* gop = &out.ops.back();
    for (const OutLink& l : op.links) {
      GlobalLink g;
      g.op = gop;
      g.src_rank = l.src;
      g.dst_rank = l.dst;
      g.transport = l.transport;
      g.size_mb = l.size_mb.v;
      g.time_ms = l.time_ms.v;
      g.op_name_id = names.intern(l.op_name);
      out.links.push_back(g);
    }
  }
}

// The one pass behind every public function: merges each (group tuple, step) once, a batch of
// group tuples at a time, writes it to `w` when given and hands each batch's global links to
// `each` when given. Group tuples are merged on up to `threads` threads; output, links and
// warnings come out in the same order for any count and any batch size. False when there is no
// group.
bool merge_pass(const MatrixBatches& batches, const CommGroups& groups, io::Diagnostics& diag,
                const MatrixOptions& opts, io::JsonWriter* w, const LinkBatchFn* each,
                int threads) {
  if (batches.tuples() == 0) return false;
  // A link's text in the document is 160-200 bytes (a tuple's "Total Op Info" adds some).
  constexpr size_t kTextPerLink = 208;
  struct GroupResult {
    std::string text;      // the group's JSON object (when writing)
    size_t nonfinite = 0;  // numbers written as null in `text`
    GlobalLinks::Chunk links;
    io::Diagnostics diag;
  };
  // In parallel mode a group's JSON is rendered apart and inserted as is, which gives the same
  // bytes only in compact styles.
  const bool render_apart = w && w->style().indent < 0 && threads > 1;
  const int n_threads = (!w || render_apart) ? threads : 1;
  auto merge_group = [&](const MatrixGroupEntry& ge, GroupResult& r, io::JsonWriter* out) {
    if (out) out->begin_object();
    for (const MatrixStepEntry& se : ge.steps) {
      // The document maps local ranks as msprof-analyze does; the links returned may know more
      // (opts.use_metadata_ranks), computed again only for a step where that matters.
      bool unmapped = false;
      const std::vector<OutOp> ops =
          compute_step(se, groups, out == nullptr && opts.use_metadata_ranks, r.diag, unmapped);
      if (out) {
        out->key(se.step);
        out->begin_object();
        for (const OutOp& op : ops) {
          out->key(op.key);
          out->begin_object();
          for (const OutLink& l : op.links) write_link(*out, l);
          out->end_object();
        }
        out->end_object();
      }
      if (each && out && opts.use_metadata_ranks && unmapped) {
        io::Diagnostics repeated;  // the same warnings, said once above
        bool again = false;
        append_global_links(se.step, compute_step(se, groups, true, repeated, again), r.links);
      } else if (each) {
        append_global_links(se.step, ops, r.links);
      }
    }
    if (out) out->end_object();
    r.links.links.shrink_to_fit();  // may be held to the end of the analysis: no growth slack
  };
  // A group's text, once written, leaves its buffer to a later group of the batch (rendered into
  // memory already allocated instead of a string grown from empty); at most one spare buffer per
  // thread is kept.
  std::mutex spare_mu;
  std::vector<std::string> spare;
  // Link reports of a group tuple (its text's size): a large one is merged in place.
  auto links_in = [](const MatrixGroupEntry& ge) {
    size_t n = 0;
    for (const MatrixStepEntry& se : ge.steps)
      for (const MatrixOpEntry& oe : se.ops)
        for (const MatrixRef& ref : oe.ranks) n += ref.op->links.size();
    return n;
  };
  if (w) w->begin_object();
  for (size_t b = 0; b < batches.size(); ++b) {
    const MatrixBatch batch = batches.load(b, threads);
    const std::vector<MatrixGroupEntry>& tuples = batch.index.groups;
    std::vector<GroupResult> res(tuples.size());
    // Which tuples are rendered apart ahead of the writer (the others: in place by emit).
    std::vector<size_t> apart(tuples.size(), 0);  // link reports (at least 1); 0: in place
    if (render_apart)
      for (size_t i = 0; i < tuples.size(); ++i) {
        const size_t n = links_in(tuples[i]);
        apart[i] = n <= opts.apart_max_links ? std::max<size_t>(n, 1) : 0;
      }
    GlobalLinks links;  // the batch's
    runtime::ordered_parallel_for(
        tuples.size(), n_threads,
        [&](size_t i) {
          if (w && !apart[i]) return;  // written in place by emit
          if (w) {
            {
              std::lock_guard lock(spare_mu);
              if (!spare.empty()) {
                res[i].text.swap(spare.back());
                spare.pop_back();
              }
            }
            // Sized once for the tuple's links: not grown (and copied) from empty.
            res[i].text.reserve(apart[i] * kTextPerLink);
            io::JsonWriter fw(&res[i].text, w->style());
            merge_group(tuples[i], res[i], &fw);
            res[i].nonfinite = fw.nonfinite_count();
          } else {
            merge_group(tuples[i], res[i], nullptr);
          }
        },
        [&](size_t i) {
          GroupResult& r = res[i];
          if (w) {
            w->key(tuples[i].tuple);
            if (apart[i]) {
              w->raw_value(r.text, r.nonfinite);
            } else {
              merge_group(tuples[i], r, w);
            }
          }
          diag.append(r.diag);
          if (each) links.append(std::move(r.links));
          if (apart[i]) {
            r.text.clear();
            std::lock_guard lock(spare_mu);
            if (spare.size() < static_cast<size_t>(n_threads)) spare.push_back(std::move(r.text));
          }
          // Moved out and destroyed: assigning GroupResult{} would keep the text's buffer (a
          // std::string assigned a short string keeps its capacity), i.e. the whole document.
          [[maybe_unused]] const GroupResult done = std::move(r);
        },
        [&](size_t i) { return apart[i]; }, opts.ahead_links);
    std::vector<std::string>().swap(spare);  // not held through the batch's analyses
    if (each) (*each)(std::move(links));
  }
  if (w) w->end_object();
  return true;
}

}  // namespace

double GlobalLink::bandwidth_gbps() const {
  return msprof_ratio(io::Num::real(size_mb), io::Num::real(time_ms)).v;
}

void GlobalLinks::append(GlobalLinks&& other) {
  for (Chunk& c : other.chunks_) append(std::move(c));
  other.clear();
}

GlobalLinks merge_matrix_links(const std::vector<load::RankData>& ranks, const CommGroups& groups,
                               io::Diagnostics& diag, const MatrixOptions& opts, int threads) {
  GlobalLinks out;
  merge_cluster_matrix(
      "", ranks, groups, diag, [&](GlobalLinks&& b) { out.append(std::move(b)); },
      io::JsonStyle::python(), opts, threads);
  return out;
}

bool write_cluster_matrix(io::JsonWriter& w, const std::vector<load::RankData>& ranks,
                          const CommGroups& groups, io::Diagnostics& diag,
                          const MatrixOptions& opts) {
  const MatrixBatches batches(ranks, groups, 1, opts.batch_links);
  return merge_pass(batches, groups, diag, opts, &w, nullptr, 1);
}

bool write_cluster_communication_matrix_json(const std::string& path,
                                             const std::vector<load::RankData>& ranks,
                                             const CommGroups& groups, io::Diagnostics& diag,
                                             const io::JsonStyle& style,
                                             const MatrixOptions& opts) {
  const MatrixBatches batches(ranks, groups, 1, opts.batch_links);
  if (batches.tuples() == 0) return true;
  return io::write_output_file(path, diag, [&](std::FILE* f) {
    io::JsonWriter w(f, style);
    merge_pass(batches, groups, diag, opts, &w, nullptr, 1);
    w.flush();
    warn_nonfinite_written(diag, path, w.nonfinite_count());
    return w.ok();
  });
}

GlobalLinks merge_and_write_cluster_matrix(const std::string& path,
                                           const std::vector<load::RankData>& ranks,
                                           const CommGroups& groups, io::Diagnostics& diag,
                                           const io::JsonStyle& style, const MatrixOptions& opts,
                                           int threads) {
  GlobalLinks links;
  merge_cluster_matrix(
      path, ranks, groups, diag, [&](GlobalLinks&& b) { links.append(std::move(b)); }, style, opts,
      threads);
  return links;
}

void merge_cluster_matrix(const std::string& path, const std::vector<load::RankData>& ranks,
                          const CommGroups& groups, io::Diagnostics& diag, const LinkBatchFn& each,
                          const io::JsonStyle& style, const MatrixOptions& opts, int threads) {
  const MatrixBatches batches(ranks, groups, threads, opts.batch_links);
  merge_cluster_matrix(path, batches, groups, diag, each, style, opts, threads);
}

void merge_cluster_matrix(const std::string& path, const MatrixBatches& batches,
                          const CommGroups& groups, io::Diagnostics& diag, const LinkBatchFn& each,
                          const io::JsonStyle& style, const MatrixOptions& opts, int threads) {
  const LinkBatchFn* to = each ? &each : nullptr;
  // msprof-analyze writes no file when every op is a "Total Op Info" one (or there is none).
  if (path.empty() || batches.tuples() == 0) {
    merge_pass(batches, groups, diag, opts, nullptr, to, threads);
    return;
  }
  bool merged = false;
  io::write_output_file(path, diag, [&](std::FILE* f) {
    io::JsonWriter w(f, style);
    merge_pass(batches, groups, diag, opts, &w, to, threads);
    merged = true;
    w.flush();
    warn_nonfinite_written(diag, path, w.nonfinite_count());
    return w.ok();
  });
  if (!merged &&
      to) {  // the file could not be created (reported); the analyses still get the links
    io::Diagnostics again;
    merge_pass(batches, groups, again, opts, nullptr, to, threads);
  }
}

}  // namespace cs::documents
