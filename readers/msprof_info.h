#pragma once
// CANN msprof's per-device info.json.{N} (PROF_*/device_{N}/info.json.{N}): the fields that say
// which rank a PROF_ directory holds, as msprof-analyze reads them — "rank_id" (-1 when the job
// set none) and "hostUid"; the device id is the file name's N.
//
//   MsprofInfo info;
//   if (read_msprof_info("PROF_1/device_3/info.json.3", info, diag) && info.rank) ...

#include <optional>
#include <string>
#include <string_view>

#include "io/diagnostics.h"

namespace cs::readers {

struct MsprofInfo {
  std::optional<int> rank;  // rank_id when it is a rank (not -1, not missing)
  std::string host_uid;     // hostUid (a number or a string in the file), "" when missing
  int device = -1;          // from the file name
};

// The device id of an info.json.{N} file name (1 or 2 digits, as msprof-analyze matches them),
// or nullopt for any other name.
std::optional<int> device_from_msprof_info_name(std::string_view filename);

// Reads the file; false (with an error naming it) when it cannot be read or is not a JSON object.
bool read_msprof_info(const std::string& path, MsprofInfo& out, io::Diagnostics& diag);
bool parse_msprof_info(std::string_view json, const std::string& source, MsprofInfo& out,
                       io::Diagnostics& diag);

}  // namespace cs::readers
