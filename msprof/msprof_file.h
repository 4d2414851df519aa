#pragma once
// Opening, writing and closing one output file of the msprof-analyze-compatible writers, with
// every failure turned into a diagnostic (file, what, what to do) instead of an exception.

#include <cstdio>
#include <functional>
#include <string>

#include "io/diagnostics.h"

namespace cs::cluster {

// Creates (truncates) path, calls body(file), closes it. Returns false with an error diagnostic
// naming path when the file cannot be opened, body returns false, or a write/close fails.
// Example: write_output_file("out/x.json", diag, [](std::FILE* f) { return fputs("{}", f) >= 0; });
bool write_output_file(const std::string& path, io::Diagnostics& diag,
                       const std::function<bool(std::FILE*)>& body);

}  // namespace cs::cluster
