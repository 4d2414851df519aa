#pragma once
// Helpers shared by the communication.json, matrix and profiler_info reader tests.

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "io/diagnostics.h"
#include "io/py_format.h"
#include "support/test_files.h"

namespace cs::io::test {

using cs::test::all_diags;
using cs::test::slurp;

// Standard output of a shell command (tests/support/test_files.h).
inline std::string run(const std::string& cmd) {
  return cs::test::run_stdout(cmd);
}

// `n` as Python's repr() prints it (io/py_format.h).
inline std::string py_num(Num n) {
  std::string s;
  append_py_num(s, n);
  return s;
}

inline std::string data(const std::string& name) {
  return std::string(CS_TEST_DATA) + "/comm/" + name;
}

}  // namespace cs::io::test
