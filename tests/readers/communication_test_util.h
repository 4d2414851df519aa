#pragma once
// Helpers shared by the communication.json reader tests (test_communication*.cpp).

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "io/diagnostics.h"

namespace cs::io::test {

inline std::string data(const std::string& name) {
  return std::string(CS_TEST_DATA) + "/comm/" + name;
}

inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline std::string run(const std::string& cmd) {
  std::string out;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  pclose(p);
  return out;
}

inline std::string all_diags(const Diagnostics& d) {
  std::string s;
  for (const auto& x : d.items()) s += x.to_string() + "\n";
  return s;
}

}  // namespace cs::io::test
