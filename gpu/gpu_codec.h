#pragma once
// GpuRankSummary to bytes and back, for the gather to the root under MPI (little-endian host
// layout: every process of a job runs the same binary). decode throws std::runtime_error on a
// truncated or inconsistent buffer.

#include <vector>

#include "gpu/gpu_rank.h"

namespace cs::gpu {

// Appends `s` to `out`.
void encode_summary(const GpuRankSummary& s, std::vector<char>& out);

// Decodes every summary in `buf` (as encode_summary appended them) onto `out`.
void decode_summaries(const std::vector<char>& buf, std::vector<GpuRankSummary>& out);

}  // namespace cs::gpu
