#pragma once
// The one printer of the commands' messages (cluster, compare, top, merge, the recipes):
//   clusterscope: <file>[:line]: <what> — <what to do>
// on stderr. Readers and analyses never print (io/diagnostics.h); the commands' runs call these.

#include <string>
#include <vector>

#include "io/diagnostics.h"

namespace cs::io {

// Prints "clusterscope: <line>" on stderr, one line: control characters and invalid UTF-8 of
// `line` escaped (io/text_escape.h).
void print_message(const std::string& line);

// From now on in this process, print_message leaves out a line it has already printed: a command
// that runs several passes over the same files (cluster -m all: the main run, then the recipes
// behind cluster_analysis.db) says each problem once.
void print_each_message_once();

// Prints each diagnostic as one message (warnings left out when `quiet`), then, unless quiet, how
// many more the per-file limit kept back.
void print_diagnostics(const Diagnostics& diag, bool quiet = false);

// Like print_diagnostics, but one message per problem: diagnostics with the same severity, what
// and hint (the same problem in many ranks' files) are printed once, in first-seen order, as
//   <first file>: <what> (and N more files: <second file>, ...) — <hint>
// with at most 3 further file names listed.
void print_diagnostics_grouped(const Diagnostics& diag, bool quiet = false);

// The lines of notes (the analyses' warnings), one per problem, in first-seen order:
//  - the same note several times (from several steps or batches) is one line, "(N times)";
//  - notes about different subjects of one kind with the same rest, "<kind> <id>: <rest>" (e.g.
//    "communication group 1234: local rank(s) 0, 1 cannot be mapped ..."), are one line naming
//    the first three subjects and how many there are:
//      "communication groups 1234, 5678, 9012 and 47 more (50 in all): local rank(s) ..."
std::vector<std::string> note_lines(const Diagnostics& notes);

}  // namespace cs::io
