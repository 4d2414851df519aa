#pragma once
// The step trace msprof-analyze computes for a CANN msprof PROF_ text directory from its timeline,
// mindstudio_profiler_output/msprof_{14 digits}.json (a Chrome JSON array), as its
// MsprofStepTraceTimeAdapter does (docs/formats.md §1b): one row, Step empty, each value the sum
// of the "dur" of the events named Computing, Communication, Communication(Not Overlapped), Free,
// Bubble = the events whose name starts with "hcom_receive"; Overlapped = Communication -
// Communication(Not Overlapped), ...(Not Overlapped and Exclude Receive) = not overlapped -
// Bubble, Stage = Free + Computing + not overlapped - Bubble, Preparing 0. Sums run in file
// order, with Python's arithmetic (a "dur" string is converted as float() does).
//
//   StepTraceFile st;
//   if (read_msprof_step_trace({"PROF_1/mindstudio_profiler_output/msprof_20240101120000.json"},
//                              st, diag)) ...

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "io/diagnostics.h"
#include "readers/step_trace.h"

namespace cs::readers {

// Of the entry names of a mindstudio_profiler_output/ directory, the timeline files
// msprof-analyze reads: the msprof_{14 digits}.json with the largest timestamp, else every
// msprof_slice_{1 digit}_{14 digits}.json with the largest timestamp (in name order).
std::vector<std::string> msprof_timeline_files(const std::vector<std::string>& names);

// Reads the files in order (one timeline cut into slices) into `out`: the 9 step trace columns
// and one row. False (with an error naming the file) when a file cannot be read at all.
bool read_msprof_step_trace(const std::vector<std::string>& paths, StepTraceFile& out,
                            io::Diagnostics& diag);
// Same, from texts in memory (tests); `sources` name them in diagnostics.
bool parse_msprof_step_trace(const std::vector<std::string_view>& texts,
                             const std::vector<std::string>& sources, StepTraceFile& out,
                             io::Diagnostics& diag);

}  // namespace cs::readers
