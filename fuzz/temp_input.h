#pragma once
// The fuzz input written to a file, for the readers the product calls with a path. One file per
// process and name, in $TMPDIR (default /tmp), rewritten for every input, removed at exit.
#include <cstddef>
#include <cstdint>
#include <string>

namespace cs::fuzz {

// Writes `size` bytes to this process's temporary file called `name` (e.g. "communication.json";
// the readers and the classifier look at the name) and returns its path. Aborts when the file
// cannot be written: a harness that silently tested nothing would be worse than none.
const std::string& write_temp_input(const std::string& name, const uint8_t* data, size_t size);

}  // namespace cs::fuzz
