#include "db/file_uri.h"

namespace cs::db {

std::string immutable_file_uri(const std::string& path) {
  std::string uri = "file:";
  size_t start = 0;
  while (start + 1 < path.size() && path[start] == '/' && path[start + 1] == '/') ++start;
  for (size_t i = start; i < path.size(); ++i) {
    const char c = path[i];
    if (c == '%') {
      uri += "%25";
    } else if (c == '?') {
      uri += "%3f";
    } else if (c == '#') {
      uri += "%23";
    } else {
      uri += c;
    }
  }
  uri += "?mode=ro&immutable=1";
  return uri;
}

}  // namespace cs::db
