#include "io/hdf5/hdf5_meta.h"

#include "version.h"

namespace cs::io {

std::string utc_iso8601(std::time_t t) {
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

bool write_hdf5_meta(Hdf5File& file, const std::vector<std::pair<std::string, Hdf5Value>>& attrs,
                     Diagnostics& diag) {
  for (const auto& [name, value] : attrs)
    if (!file.set_attribute("/meta", name, value, diag)) return false;
  return true;
}

bool write_hdf5_meta(Hdf5File& file, const Hdf5Meta& meta, Diagnostics& diag) {
  std::vector<std::pair<std::string, Hdf5Value>> attrs = {
      {"tool", std::string("clusterscope")},
      {"tool_version",
       meta.tool_version.empty() ? std::string(CLUSTERSCOPE_VERSION) : meta.tool_version},
      {"input_path", meta.input_path},
      {"ranks", meta.ranks},
      {"processes", meta.processes},
      {"created", meta.created.empty() ? utc_iso8601(std::time(nullptr)) : meta.created},
  };
  attrs.insert(attrs.end(), meta.extra.begin(), meta.extra.end());
  return write_hdf5_meta(file, attrs, diag);
}

}  // namespace cs::io
