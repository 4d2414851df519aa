#pragma once
// The verdicts of msprof-analyze's diagnostic recipes (slow_rank, slow_link, freq_analysis) on a
// job with DB exports, for `cluster -m all` to set beside its own findings
// (analysis/recipe_agreement.h). The recipes run exactly as `-m slow_rank` etc. run them (each
// rank read once for the three), into a scratch directory under OUT that is removed afterwards;
// they print nothing (the main run says the job's problems once).

#include "analysis/recipe_agreement.h"
#include "mpi/mpi_comm.h"
#include "msprof_analyze/db_all/cluster_db_all.h"

namespace cs::db_all {

// Collective. The root's result holds the verdicts (`ran` false when the recipes could not run:
// no rank with the data, an unwritable OUT); the other processes' is empty.
// opts.discovered (the root's listing of the job, when set) is read and then released once every
// rank is read: the caller's listing is null afterwards.
analysis::RecipeVerdicts run_verdict_recipes(const mpi::MpiSession& mpi, ClusterDbOptions& opts);

}  // namespace cs::db_all
