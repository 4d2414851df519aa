#pragma once
// The root's gathered map results parked on disk (issue 38, DB exports: docs/root_memory.md, "The
// DB export's memory"). As the root takes each rank's results (msprof_analyze/recipes/
// recipe_gather.h), the frames a recipe names (Recipe::parkable_frames) are packed into a
// runtime::SpillFile and only what the merges need whole stays: the frame's rows and, per column,
// the kinds of its cells (its dtype in the concatenation). A merge reads a rank's frame back when
// it comes to it. When the file cannot be created or written, the frames not yet in it stay held
// in memory and one warning says why: parking saves memory, it never changes an output.

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "frame/frame.h"
#include "msprof_analyze/recipes/recipe.h"

namespace cs::recipes {

// Root: parks the gathered parts' frames.
class FramePark {
 public:
  // `recipes[k]`: recipe k, whose parkable_frames() are parked and whose kept_beside() rows stay
  // held beside them (the recipes outlive the park). `dir`: where the spill file goes ($TMPDIR,
  // else /tmp, when empty).
  explicit FramePark(std::vector<const Recipe*> recipes, const std::string& dir = {});
  // Moves `part`'s frames named by recipe `recipe`'s keys to the spill file (they stay held once
  // the file has failed).
  void park(size_t recipe, RankPartial& part);
  // Why the file failed (empty: it did not).
  std::string problem() const;

 private:
  void fail(const std::string& why);
  // `columns` as a shared list: the copy kept of an equal list parked before, else this one
  // (kept for the next ones while there are at most kMaxColumnLists distinct lists).
  std::shared_ptr<const std::vector<ColumnKinds>> shared_columns(std::vector<ColumnKinds> columns);
  static constexpr size_t kMaxColumnLists = 64;
  std::vector<std::shared_ptr<const std::vector<ColumnKinds>>> column_lists_;
  std::vector<const Recipe*> recipes_;
  std::vector<std::vector<std::string>> keys_;
  std::shared_ptr<runtime::SpillFile> file_;
  mutable std::mutex mu_;
  std::string problem_;
};

// True when `p` has frame `key`, held or parked.
bool has_frame(const RankPartial& p, const std::string& key);
// The rows of frame `key` of `p` (0 when it has none).
uint64_t frame_rows(const RankPartial& p, const std::string& key);
// Frame `key` of `p` (an empty frame when it has none): a copy when held, read back when parked.
// Throws std::runtime_error when the spill file cannot be read.
frame::Frame read_frame(const RankPartial& p, const std::string& key);
// Frame `key` taken out of `p` (held: moved; parked: read back and the entry dropped).
frame::Frame take_frame(RankPartial& p, const std::string& key);

// Calls fn(frame) for frame `key` of each used part that has it, in the parts' order: held, as
// it is (no copy); parked, read back (one rank's frame in memory at a time). Throws as read_frame.
template <class Fn>
void for_each_rank_frame(const std::vector<RankPartial>& parts, const std::string& key, Fn fn) {
  for (const RankPartial& p : parts) {
    if (!p.used) continue;
    if (auto it = p.frames.find(key); it != p.frames.end()) {
      fn(it->second);
    } else if (has_frame(p, key)) {
      fn(read_frame(p, key));
    }
  }
}

// The columns of the concatenation of frame `key` over `parts` (the used ones, in order; with
// `non_empty` only those with rows), as pd.concat makes them: names in first-seen order, each with
// the kinds of its cells (NULL where a frame with rows lacks the column) and its object mark.
std::vector<ColumnKinds> concat_columns(const std::vector<RankPartial>& parts,
                                        const std::string& key, bool non_empty = false);

}  // namespace cs::recipes
