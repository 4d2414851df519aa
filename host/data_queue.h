#pragma once
// MindSpore's data pipeline: the device queue between the dataset pipeline and the device, from
// device_queue_profiling_{rank}.txt (data sink mode) or dataset_iterator_profiling_{rank}.txt
// (no sink). Each line is one record `type extra_info batch_num value time_stamp` (five integers,
// blank-separated), as MindSpore's minddata tracing writes them: type 0 is a time in ms (value)
// for batch batch_num, type 1 the queue's size when that batch was taken (value; extra_info is
// the capacity). A batch whose queue size is 0 found the queue empty. MindInsight's rule: the
// queue empty in more than 30% of the batches (steps) -> the data pipeline is the bottleneck.
// Layout checked against MindSpore's source and MindInsight's documentation only (no real file in
// ../shared/samples).

#include <cstdint>
#include <string>

#include "io/diagnostics.h"

namespace cs::host {

// Batches with a queue-size record and how many of them found the queue empty.
struct DataQueueStats {
  int64_t batches = 0;
  int64_t empty = 0;
  double empty_share() const {
    return batches > 0 ? static_cast<double>(empty) / static_cast<double>(batches) : 0;
  }
};

// MindInsight's threshold: empty in more than this share of the steps.
inline constexpr double kEmptyQueueShare = 0.3;

// Reads `path`; lines that are not five integers are reported (file, line) and skipped. False
// when the file cannot be read or holds no queue-size record.
bool read_data_queue(const std::string& path, DataQueueStats& out, io::Diagnostics& diag);

}  // namespace cs::host
