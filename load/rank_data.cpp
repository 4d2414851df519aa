#include "load/rank_data.h"

namespace cs::load {

const char* framework_name(Framework f) {
  switch (f) {
    case Framework::kPyTorch:
      return "pytorch";
    case Framework::kMindSpore:
      return "mindspore";
    case Framework::kMsprof:
      return "msprof";
    case Framework::kUnknown:
      break;
  }
  return "unknown";
}

const char* status_name(RankStatus s) {
  switch (s) {
    case RankStatus::kOk:
      return "ok";
    case RankStatus::kPartial:
      return "partial";
    case RankStatus::kSkipped:
      return "skipped";
  }
  return "unknown";
}

const char* export_name(ExportType e) {
  return e == ExportType::kDb ? "db" : "text";
}

void release_entry_lists(std::vector<RankData>& ranks) {
  for (RankData& d : ranks) {
    std::vector<std::string>().swap(d.entry.files);
    std::vector<std::string>().swap(d.entry.problems);
    std::string().swap(d.entry.output_dir);  // the parse read the files below it
    std::string().swap(d.entry.timestamp);   // discovery broke duplicate-rank ties with it
  }
}

}  // namespace cs::load
