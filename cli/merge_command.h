#pragma once
// `clusterscope merge DIR -o merged.json[.gz]`: every rank's timeline in one Chrome/Perfetto
// trace (timeline/merge_run.h does the work).

namespace cs::cli {

// argv[0] is "merge". Returns the exit status (cli/commands.h): 0, 3 (some timelines skipped),
// 2 (bad command line), 1 (nothing usable). Example: run_merge of
// {"merge", "run/", "-o", "all.json.gz", "--align", "hcom_allReduce"}.
int run_merge(int argc, char** argv);

}  // namespace cs::cli
