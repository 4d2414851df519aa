#pragma once
// Where `clusterscope generate` writes: never into a directory that holds something else, so two
// clusters (or a cluster and someone's files) never mix.
//
//   io::Diagnostics diag;
//   switch (generator::prepare_output_dir("/tmp/c16", /*force=*/false, diag)) { ... }

#include <string>

#include "io/diagnostics.h"

namespace cs::generator {

enum class OutputDirState {
  kReady,    // missing, empty, or (with force) an earlier generate's output removed
  kRefused,  // not empty (without force), or rank directories generate did not write (with force)
  kFailed,   // cannot be read, or a removal failed
};

// Checks OUT before generate writes there. Without `force`, OUT must be missing or empty. With
// `force`, what an earlier generate wrote there is removed: its truth.json (written by
// "clusterscope generate") and, when that is present, its rank directories
// (devnode-NNNN_PID_TS_ascend_pt / _ascend_ms) and its GPU traces (rank-N.json); other files are
// left alone, but any other rank directory (*_ascend_pt, *_ascend_ms, PROF_*) refuses. One error
// diagnostic naming OUT, what is in it and what to do when not kReady; `removed` (optional) counts
// the entries removed.
OutputDirState prepare_output_dir(const std::string& out_dir, bool force, io::Diagnostics& diag,
                                  size_t* removed = nullptr);

}  // namespace cs::generator
