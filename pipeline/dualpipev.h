#pragma once
// The DualPipeV pipeline schedule (MindSpeed, DeepSeek-V3): each pipeline stage holds two model
// chunks (stage i holds chunks i and 2P-1-i, a "V"), so a micro-batch's forward runs twice on
// every rank and the middle of the schedule overlaps one chunk's forward with the other chunk's
// backward. This is the sequence of compute blocks each stage records an mstx range around, named
// as msprof-analyze's pp_chart names them in StepTaskInfo (its quirks kept: the first overlap
// block of the last stage is two blocks; the cooldown's size is counted as P whatever it holds).
// Used by `generate --pp-schedule dualpipev` to lay the ranges out and by pp_chart to name them.

#include <cstdint>
#include <string>
#include <vector>

namespace cs::pipeline {

// One block of a stage's schedule: its name in StepTaskInfo ("3", "4b", "logits", "7F+1B", "2B")
// and its phase (StepTaskInfo's type): 0 warmup, 1 interleaved forward, 2 one backward / one
// weight / one forward, 3 overlap, 4 one backward then overlap, 5 interleaved backward, 6
// cooldown.
struct ScheduleBlock {
  std::string name;
  int phase = 0;
};

// Per pipeline stage, in schedule order.
struct DualPipeVSchedule {
  std::vector<std::vector<ScheduleBlock>> blocks;
  // How many mstx ranges msprof-analyze expects of the stage per step (blocks[i].size() for every
  // schedule it accepts).
  std::vector<int64_t> expected;
};

// The schedule of `pp` stages and `microbatches` micro-batches per step; empty stages (and zero
// expected) when microbatches < 2 * pp, which msprof-analyze refuses.
// Example: pp 2, microbatches 4 -> stage 0 has 18 blocks ("0", "1", "2", "4", "logits", "4b",
// ...), stage 1 has 13.
DualPipeVSchedule dualpipev_schedule(int pp, int64_t microbatches);

// The mstx message a training script would record around `block` (MindSpeed marks "forward" and
// "backward" passes): "forward_backward_step" for an overlapped F+B block, "backward_step" for a
// backward, weight-gradient or cooldown block, "forward_step" otherwise (a forward or the logits).
const char* block_message(const ScheduleBlock& block);

}  // namespace cs::pipeline
