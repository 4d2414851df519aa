#pragma once
// One msprof-analyze recipe (`cluster -m <name>`): a map step that reads one rank's databases
// into frames (run on whichever MPI process holds the rank), and a reduce step on the root that
// merges every rank's frames, in rank order, and writes msprof-analyze's outputs.

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "frame/frame_codec.h"
#include "io/diagnostics.h"
#include "runtime/spill_file.h"

namespace cs::recipes {

// Where one rank's databases are (empty when the file is absent).
struct RankDbPaths {
  int rank = -1;
  std::string rank_dir;
  std::string profiler_db;  // ascend_pytorch_profiler_{rank}.db / ascend_mindspore_profiler_...
  std::string analysis_db;  // analysis.db / communication_analyzer.db
};

// One column of a frame parked on disk: its name, the kinds of its cells (frame::kind_bit bits)
// and pandas' object mark: what its dtype and SQL type in a concatenation follow from.
struct ColumnKinds {
  const std::string* name = nullptr;  // interned (frame/text_pool.h)
  uint8_t kinds = 0;
  bool force_object = false;
  bool operator==(const ColumnKinds&) const = default;
};

// One frame of a rank's partial result parked on disk (msprof_analyze/recipes/parked_frames.h):
// where its packed bytes are, and what the merges need to know of it without reading it back.
struct ParkedFrame {
  std::string key;  // its name in the FrameSet ("time", "matrix", ...)
  std::shared_ptr<runtime::SpillFile> file;
  runtime::SpillFile::Block block;
  uint64_t rows = 0;
  // Its columns, shared by every parked frame with the same list (FramePark keeps one copy of
  // each: the ranks' frames of a recipe mostly have the same columns and kinds). Never null.
  std::shared_ptr<const std::vector<ColumnKinds>> columns;
  // The few rows the recipe keeps held beside the parked frame (Recipe::kept_beside), so a merge
  // that needs only them does not read the frame back; empty when the recipe keeps nothing.
  // Packed (frame/frame_codec.h): a held Frame costs a block of its own (its columns' std::deque,
  // about 600 bytes) where these rows pack to tens of bytes (11.8 MB at 16,384 DB ranks held).
  std::vector<char> beside;
  bool has_beside() const { return !beside.empty(); }
  // The rows kept beside, unpacked (an empty frame when there are none).
  frame::Frame beside_rows() const {
    if (beside.empty()) return {};
    io::ByteReader r(beside);
    return frame::unpack_frame(r);
  }
};

// One rank's partial result.
struct RankPartial {
  int rank = -1;
  bool used = false;  // false: the rank was skipped (missing database, read error)
  frame::FrameSet frames;
  // Frames parked on disk instead of held in `frames` (the root's gathered results of a recipe
  // that says which frames it can read back: Recipe::parkable_frames).
  std::vector<ParkedFrame> parked;
};

enum class ExportType { kText, kDb };

struct RecipeOutput {
  std::string cluster_output_dir;  // OUT/cluster_analysis_output
  ExportType export_type = ExportType::kDb;
  // When set, the database the tables go to instead of <dir>/cluster_analysis.db (its .tmp
  // copy while the run writes, msprof_analyze/recipes/recipe_run.cpp).
  std::string db_file;
  int threads = 1;        // threads the reduce may use (writing a large table)
  std::string input_dir;  // -d: the job (cluster_time_compare_summary reads its outputs)
  std::string bp;         // --bp: the base job of cluster_time_compare_summary
  int top_num = -1;       // --top_num: the rows a recipe's top-N table keeps (-1: not given)
  int rank_id = 0;        // --rank_id: the rank communication_bottleneck analyses
  // Where this recipe writes: the cluster output directory for db, <it>/<DirName> for text.
  std::string dir(const std::string& recipe_dir_name) const;
  std::string db_path(const std::string& recipe_dir_name) const;
};

class Recipe {
 public:
  virtual ~Recipe() = default;
  // msprof-analyze's name (-m) and the output directory name of its text export.
  virtual std::string name() const = 0;
  virtual std::string dir_name() const = 0;
  // The databases a rank needs (a rank without them is skipped, as msprof-analyze does).
  virtual bool needs_profiler_db() const { return false; }
  virtual bool needs_analysis_db() const { return false; }
  // What to do when no rank has the data the recipe reads.
  virtual std::string missing_data_hint() const {
    return "export the profiling data with export_type db";
  }
  // The recipe's own arguments by msprof-analyze's name without dashes ("parallel_types"), set on
  // every process before any map. Returns what is wrong with one (empty: accepted).
  virtual std::string set_args(const std::map<std::string, std::string>& /*args*/) { return ""; }
  // Reads one rank's data. Returns false (with diagnostics) when the rank cannot be used.
  virtual bool map(const RankDbPaths& paths, frame::FrameSet& out, io::Diagnostics& diag) const = 0;
  // Root: merges the ranks' partial results (sorted by rank) and writes the outputs.
  virtual bool reduce(const std::vector<RankPartial>& parts, const RecipeOutput& out,
                      io::Diagnostics& diag) const = 0;

  // The reduce in two parts, for a root reducing several recipes at once and writing their
  // outputs in order (msprof_analyze/recipes/recipe_run.h run_recipes_jointly): the merge, a
  // computation with no output (its problems go to `diag`), returns the step that writes what it
  // found. nullptr: the recipe does not split its reduce (reduce() then does both). `threads`: what
  // the merge may use. The merge may take the parts' frames (each part keeps its rank and `used`),
  // freeing each rank's rows as it merges them.
  using WriteStep = std::function<bool(const RecipeOutput& out, io::Diagnostics& diag)>;
  // The frames of a rank's result the root may park on disk as it gathers them, for a db export
  // (msprof_analyze/recipes/parked_frames.h): the merge reads them back where it needs them.
  virtual std::vector<std::string> parkable_frames() const { return {}; }
  // What of parkable frame `key` (`f`, as it is parked) stays held beside it: a few rows a merge
  // reads on its own (communication_matrix_sum: a rank's own src == dst rows); none by default.
  virtual std::optional<frame::Frame> kept_beside(const std::string& /*key*/,
                                                  const frame::Frame& /*f*/) const {
    return std::nullopt;
  }
  virtual WriteStep merge(std::vector<RankPartial>& /*parts*/, int /*threads*/,
                          io::Diagnostics& /*diag*/) const {
    return nullptr;
  }
};

}  // namespace cs::recipes
