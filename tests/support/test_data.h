#pragma once
// Where the tests' input files are: tests/data (CS_TEST_DATA, defined for every test source by
// tests/CMakeLists.txt), and the sample jobs there that many tests run on. One definition, so
// that test files compiled together in a unity build share it instead of each defining its own.
//
//   load_op_calls(cs::test::kData + "/ascend/kernel_details.csv", ...)
//   fs::copy(cs::test::kDataDir / "wal/db_level1", job, ...)

#include <filesystem>
#include <string>

namespace cs::test {

// tests/data, without a trailing '/'.
inline const std::string kData = CS_TEST_DATA;

// tests/data as a path.
inline const std::filesystem::path kDataDir = CS_TEST_DATA;

// The real two-rank torch_npu text job, its main files only (tests/data/text_level1).
inline const std::string kTextJob = kData + "/text_level1";

// The real two-rank DB export job (tests/data/ascend-real/db_level1).
inline const std::string kDbJob = kData + "/ascend-real/db_level1";

}  // namespace cs::test
