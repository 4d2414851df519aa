#pragma once
// One rule for tests that need a tool the machine may lack (python3 with h5py, h5dump, chromium,
// chromedriver, mpirun, the clusterscope binary): on a developer's machine the test is skipped and
// says what to install; under CI (the environment variable CI=true) it FAILS instead, so a CI run
// never passes without running it. Skips that are about the platform (a sanitizer build, an OS
// feature) are not missing tools: they call GTEST_SKIP() themselves and say why.
//
//   if (!fs::exists("/usr/bin/chromium")) CS_MISSING_TOOL("chromium");

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>

namespace cs::test {

// True when the environment variable CI is "true" (scripts/test.sh and CI set it).
inline bool in_ci() {
  const char* ci = std::getenv("CI");
  return ci != nullptr && std::strcmp(ci, "true") == 0;
}

}  // namespace cs::test

// Ends the current test (a void function) for the missing `tool` (anything streamable): a failure
// under CI=true, else a skip. Both name the tool and scripts/install-deps.sh.
#define CS_MISSING_TOOL(tool)                                                             \
  do {                                                                                    \
    if (::cs::test::in_ci())                                                              \
      FAIL() << "missing tool under CI=true: " << tool                                    \
             << " \u2014 run scripts/install-deps.sh (a CI run must not skip this test)"; \
    GTEST_SKIP() << "missing tool: " << tool << " (scripts/install-deps.sh installs it)"; \
  } while (0)
