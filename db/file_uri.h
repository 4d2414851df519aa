#pragma once
// The `file:` URI a database is opened through (db/database).

#include <string>

namespace cs::db {

// `file:PATH?mode=ro&immutable=1` for a path: '%', '?' and '#' are escaped, and a run of leading
// slashes becomes one (a URI "file://x" would name host x).
std::string immutable_file_uri(const std::string& path);

}  // namespace cs::db
