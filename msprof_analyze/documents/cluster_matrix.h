#pragma once
// cluster_communication_matrix.json, as msprof-analyze writes it (CommMatrixAnalysis), and the
// merged global-rank links it contains (also the input of the slow-link analysis).
//
// Per (group rank tuple, step): the same link reported by several ranks under the same op key is
// merged (size and time summed, transport and op name of the last report kept); local ranks
// become global through the "i-i" self links of that step (rank r reporting "i-i" means local i
// is r; msprof-analyze's metadata path is dead code, see docs/msprof-compat.md); bandwidth =
// round(size / time, 4). "Total Op Info@<group>" sums, per global link, every op key that contains
// none of "middle", "top", "bottom".

#include <cstddef>
#include <deque>
#include <functional>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

#include "io/diagnostics.h"
#include "io/json/json_writer.h"
#include "io/py_format.h"
#include "io/string_pool.h"
#include "load/rank_data.h"
#include "msprof_analyze/documents/communication_groups.h"
#include "msprof_analyze/documents/matrix_batches.h"
#include "readers/transport_name.h"

namespace cs::documents {

struct MatrixOptions {
  // false (default) = msprof-analyze: local ranks map only through "i-i" self links. true = the
  // links returned (clusterscope's own tables) also map through profiler_metadata.json
  // global_ranks first (what msprof-analyze meant to do). The document written is always
  // msprof-analyze's: a link it leaves out (a group of send/receive ops has no self link) is
  // left out of cluster_communication_matrix.json either way.
  bool use_metadata_ranks = false;
  // Link reports merged per batch of group tuples (matrix_batches.h; 0 = the default): only the
  // batch's ranks' matrix ops are held at once. The outputs do not depend on it.
  size_t batch_links = 0;
  // A group tuple of more link reports than this is merged and written in place by the thread
  // that writes the document, not rendered apart ahead of it (its text is about 160 bytes a link:
  // this is about 1 MB). A tuple grows with its group (a data-parallel tuple of a 16,384-rank job
  // is several MB), and up to 16 tuples per thread are rendered ahead. The outputs do not depend
  // on it.
  size_t apart_max_links = 6000;
  // The link reports of the tuples rendered ahead of the writer, together (beyond one per
  // thread): about 5 MB of text.
  size_t ahead_links = 32768;
};

// The step and op key of merged links: one per op, shared by its links.
struct GlobalLinkOp {
  std::string_view step;
  std::string_view op_key;                // "allreduce-top1@<group>" or "Total Op Info@<group>"
  std::string_view group;                 // after the last '@'
  const io::StringPool* names = nullptr;  // the op names of its links (GlobalLink::op_name)
};

// One merged link with global ranks. Its names live in the GlobalLinks that holds it.
// 40 bytes: a 1,024-rank job has ~700k of them.
struct GlobalLink {
  const GlobalLinkOp* op = nullptr;
  double size_mb = 0;
  double time_ms = 0;
  int src_rank = -1;
  int dst_rank = -1;
  uint32_t op_name_id = 0;  // in op->names
  readers::TransportName transport;

  std::string_view step() const { return op->step; }
  std::string_view op_key() const { return op->op_key; }
  std::string_view group() const { return op->group; }
  std::string_view op_name() const { return op->names->str(op_name_id); }
  // As written: round(size / time, 4), 0 when time < 1e-15.
  double bandwidth_gbps() const;
};

// Merged links and the interned names they point into (a 1,024-rank job has ~700k links but only
// a few thousand distinct names). Held as one chunk per group tuple, each appended whole (no copy,
// no regrowth of one big array). Movable, not copyable; iterate it like a const container.
class GlobalLinks {
 public:
  // A group tuple's links, the ops they point to and the names both view.
  struct Chunk {
    std::vector<GlobalLink> links;
    std::deque<GlobalLinkOp> ops;  // a deque: links keep pointers to its elements
    io::StringPool names;
  };

  class const_iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = GlobalLink;
    using difference_type = std::ptrdiff_t;
    using pointer = const GlobalLink*;
    using reference = const GlobalLink&;

    const_iterator() = default;
    const_iterator(const std::deque<Chunk>* chunks, size_t chunk, size_t i)
        : chunks_(chunks), chunk_(chunk), i_(i) {}
    reference operator*() const { return (*chunks_)[chunk_].links[i_]; }
    pointer operator->() const { return &**this; }
    const_iterator& operator++() {
      if (++i_ == (*chunks_)[chunk_].links.size()) {
        ++chunk_;
        i_ = 0;
      }
      return *this;
    }
    const_iterator operator++(int) {
      const_iterator t = *this;
      ++*this;
      return t;
    }
    bool operator==(const const_iterator& o) const { return chunk_ == o.chunk_ && i_ == o.i_; }

   private:
    const std::deque<Chunk>* chunks_ = nullptr;
    size_t chunk_ = 0, i_ = 0;
  };

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const_iterator begin() const { return {&chunks_, 0, 0}; }
  const_iterator end() const { return {&chunks_, chunks_.size(), 0}; }
  // The chunks in order: one per group tuple as merge_cluster_matrix hands them.
  const std::deque<Chunk>& chunks() const { return chunks_; }
  // Frees the links and their names.
  void clear() {
    chunks_.clear();
    size_ = 0;
  }
  // Takes every chunk of `other`, in order (leaving it empty).
  void append(GlobalLinks&& other);
  // Takes a chunk (its links point into its own ops and names); an empty one is dropped.
  void append(Chunk&& c) {
    if (c.links.empty()) return;
    size_ += c.links.size();
    Chunk& kept = chunks_.emplace_back(std::move(c));
    for (GlobalLinkOp& op : kept.ops) op.names = &kept.names;  // the pool moved with the chunk
  }

 private:
  std::deque<Chunk> chunks_;  // never empty chunks, so iteration needs no skipping
  size_t size_ = 0;
};

// All links of the output file, in file order (group tuples, steps, op keys, links). Unmappable
// links are dropped with a warning in diag. Group tuples are merged on up to `threads` threads;
// the links and warnings are the same, in the same order, for any count.
GlobalLinks merge_matrix_links(const std::vector<load::RankData>& ranks, const CommGroups& groups,
                               io::Diagnostics& diag, const MatrixOptions& opts = {},
                               int threads = 1);

// Writes the whole document; false when there is no op at all (then msprof-analyze writes no file).
bool write_cluster_matrix(io::JsonWriter& w, const std::vector<load::RankData>& ranks,
                          const CommGroups& groups, io::Diagnostics& diag,
                          const MatrixOptions& opts = {});
// Same, to a file (nothing written, true returned, when there is no op).
bool write_cluster_communication_matrix_json(const std::string& path,
                                             const std::vector<load::RankData>& ranks,
                                             const CommGroups& groups, io::Diagnostics& diag,
                                             const io::JsonStyle& style = io::JsonStyle::python(),
                                             const MatrixOptions& opts = {});
// Called with the merged links of each batch of group tuples, in file order (together they are
// merge_matrix_links()'s links); it may keep them or let them go.
using LinkBatchFn = std::function<void(GlobalLinks&& batch)>;

// The matrix merged a batch of group tuples at a time (MatrixOptions::batch_links), so that no
// more than a batch's matrix data and links is held: writes the file at `path` (none when `path`
// is empty, or when there is no op: msprof-analyze then writes none) and hands each batch's links
// to `each` (may be empty). Merge warnings and write errors go to `diag`. Group tuples are merged
// on up to `threads` threads; the bytes, links and warnings do not depend on the count. Throws
// std::runtime_error when a rank's packed or spilled matrix cannot be read.
void merge_cluster_matrix(const std::string& path, const std::vector<load::RankData>& ranks,
                          const CommGroups& groups, io::Diagnostics& diag, const LinkBatchFn& each,
                          const io::JsonStyle& style = io::JsonStyle::python(),
                          const MatrixOptions& opts = {}, int threads = 1);
// Same, over batches already made (their widths() known before the first batch is merged:
// how the communication_matrix table is streamed); opts.batch_links is the batches'.
void merge_cluster_matrix(const std::string& path, const MatrixBatches& batches,
                          const CommGroups& groups, io::Diagnostics& diag, const LinkBatchFn& each,
                          const io::JsonStyle& style = io::JsonStyle::python(),
                          const MatrixOptions& opts = {}, int threads = 1);

// Both at once, merging each link only once: writes the file (as above) and returns
// merge_matrix_links()'s links. Merge warnings and write errors go to `diag`. Group tuples are
// merged on up to `threads` threads; the bytes, links and warnings do not depend on the count.
GlobalLinks merge_and_write_cluster_matrix(const std::string& path,
                                           const std::vector<load::RankData>& ranks,
                                           const CommGroups& groups, io::Diagnostics& diag,
                                           const io::JsonStyle& style = io::JsonStyle::python(),
                                           const MatrixOptions& opts = {}, int threads = 1);

}  // namespace cs::documents
