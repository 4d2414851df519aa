#include "generator/job/group_hash.h"

#include "readers/profiler_info.h"

namespace cs::generator {

std::string group_hash_str(std::string_view group_id) {
  return readers::group_double_hash_str(group_id);
}

}  // namespace cs::generator
