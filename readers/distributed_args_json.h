#pragma once
// profiler_metadata.json's distributed_args as msprof-analyze stores it in cluster_analysis.db's
// ClusterBaseInfo table: Python's json.dumps of the object (", " and ": " separators, non-ASCII
// escaped, floats as repr) without its "rank" entry. See docs/formats.md §9.

#include <optional>
#include <string>
#include <string_view>

#include "io/diagnostics.h"

namespace cs::readers {

// json.dumps(v) of a JSON text, as Python's json module writes it after json.loads: keys in file
// order, a key written twice keeps its first place and its last value, integers exact (any
// size), floats as repr(float). nullopt when the text is not JSON. `skip_key` leaves out one
// top-level key (for ClusterBaseInfo: "rank").
// Example: python_json_dumps(R"({"a":1,"b":[true,0.5,"é"]})") == R"({"a": 1, "b": [true, 0.5,
// "\u00e9"]})"
std::optional<std::string> python_json_dumps(std::string_view json, std::string_view skip_key = {});

// The ClusterBaseInfo value of the profiler_metadata.json at `path`: python_json_dumps of its
// distributed_args without "rank"; nullopt when the file or the object is absent or empty (then
// msprof-analyze writes no row), with a diagnostic when the file is present but unreadable.
std::optional<std::string> distributed_args_python_json(const std::string& path,
                                                        io::Diagnostics& diag);

}  // namespace cs::readers
