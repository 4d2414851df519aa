#pragma once
// The chip's peak FLOPS as msprof-analyze's operator_mfu takes it: from the first
// device_{id}/info.json.{id} under the rank directory (up to 10 levels down), DeviceInfo[0]'s
// ai_core_num and aic_frequency (MHz): cores x frequency x operations per cycle (16x16x16x2 for
// 16-bit floats, 16x32x16x2 for int8). The input data type of a FLOPs record's first kernel picks
// the peak (FLOAT, FLOAT16, BF16, DT_BF16: 16-bit; INT8).

#include <string>

namespace cs::recipes::operator_mfu {

// The peak type an input data type list ("DT_BF16;DT_BF16") gives: its first non-empty entry,
// trimmed and upper-cased; an empty list is FLOAT16.
enum class PeakType { kFloat16, kInt8, kUnsupported };
PeakType peak_type(const std::string& input_types);

struct ChipPeak {
  std::string file;  // the info.json read (the rank directory when none was found)
  double ai_core_num = 0, aic_frequency_mhz = 0;
  // FLOPS at the type's peak (0 for kUnsupported).
  double peak_flops(PeakType t) const;
};

// Finds and reads the rank's info.json into `out`. False with `problem` (what is missing or
// wrong in out.file) when there is no usable chip information.
bool read_chip_peak(const std::string& rank_dir, ChipPeak& out, std::string& problem);

}  // namespace cs::recipes::operator_mfu
