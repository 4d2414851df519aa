// libFuzzer's entry point for one harness, chosen at compile time: CS_FUZZ_HARNESS is the name of
// a function in fuzz/harnesses.h (fuzz/CMakeLists.txt builds one binary per harness).
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "fuzz/harnesses.h"

#ifndef CS_FUZZ_HARNESS
#error "CS_FUZZ_HARNESS must name a harness of fuzz/harnesses.h"
#endif

#define CS_FUZZ_STR2(x) #x
#define CS_FUZZ_STR(x) CS_FUZZ_STR2(x)

// Called by libFuzzer before it parses its flags: adds the harness's -max_len (fuzz/harnesses.cpp,
// the one place it is set) unless the command line gives one.
extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  for (int i = 1; i < *argc; ++i)
    if (std::strncmp((*argv)[i], "-max_len=", 9) == 0) return 0;
  const cs::fuzz::Harness* h = cs::fuzz::find_harness(CS_FUZZ_STR(CS_FUZZ_HARNESS));
  if (!h) return 0;
  static std::string flag = "-max_len=" + std::to_string(h->max_len);
  static std::vector<char*> args;
  args.assign(*argv, *argv + *argc);
  args.insert(args.begin() + 1, flag.data());
  args.push_back(nullptr);
  *argc += 1;
  *argv = args.data();
  return 0;
}

// One input through the harness.
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return cs::fuzz::CS_FUZZ_HARNESS(data, size);
}
