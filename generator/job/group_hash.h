#pragma once
// The group name used in op keys: io::group_double_hash_str (formats.md §1), behind one call so
// the generator has a single place that depends on it.

#include <string>
#include <string_view>

namespace cs::generator {

// Decimal double hash of an HCCL group id, e.g. the "13681369207305868844" of
// "hcom_allReduce__844_2_1@13681369207305868844".
std::string group_hash_str(std::string_view group_id);

}  // namespace cs::generator
