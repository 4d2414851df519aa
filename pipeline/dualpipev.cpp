#include "pipeline/dualpipev.h"

namespace cs::pipeline {

namespace {

// The ids a stage has reached so far (-1: none yet): forward and backward of chunk 0 (micro-batch
// ids 0..M-1) and chunk 1 (ids M..2M-1).
struct Cursor {
  int64_t f0 = -1, f1 = -1, b0 = -1, b1 = -1;
};

std::string num(int64_t v) {
  return std::to_string(v);
}

// The blocks and expected count of stage i of p stages, m micro-batches.
void stage_blocks(int64_t i, int64_t p, int64_t m, std::vector<ScheduleBlock>& out,
                  int64_t& count) {
  const int64_t p2 = 2 * p;
  Cursor c;
  auto add = [&](std::string name, int phase) { out.push_back({std::move(name), phase}); };
  auto logits = [&](int phase) {
    if (i == 0) add("logits", phase), ++count;
  };
  // warmup: stage i runs 2P-2-2i forwards of chunk 0 alone.
  const int64_t warmup = p2 - 2 - 2 * i;
  for (int64_t x = 0; x < warmup; ++x) add(num(x), 0);
  c.f0 = warmup - 1;
  count += warmup;
  // interleaved forward: i+1 pairs, one forward of each chunk.
  Cursor last = c;
  const int64_t interleaved = i + 1;
  for (int64_t j = 0; j < interleaved; ++j) {
    add(num(last.f0 + j + 1), 1);
    add(num(m + j), 1);
    ++c.f0;
  }
  c.f1 = m + interleaved - 1;
  count += 2 * interleaved;
  // one backward, one weight gradient and one forward of chunk 1, P-i-1 times.
  last = c;
  const int64_t bwf = p - i - 1;
  for (int64_t j = 0; j < bwf; ++j) {
    logits(2);
    add(num(m + j) + "b", 2);
    add(num(m + j) + "w", 2);
    add(num(last.f1 + j + 1), 2);
    ++c.f1;
  }
  c.b1 = m + bwf - 1;
  count += 3 * bwf;
  // overlap: forward of one chunk with backward of the other.
  last = c;
  const int64_t overlap = 2 * m - 2 * p2 + 2 * i + 2;
  for (int64_t j = 0; j < overlap / 2; ++j) {
    logits(3);
    if (i == p - 1 && j == 0) {
      add(num(last.f0 + j + 1) + "F", 3);
      add(num(last.b1 + j + 1) + "B", 3);
      ++count;
    } else {
      add(num(last.f0 + j + 1) + "F+" + num(last.b1 + j + 1) + "B", 3);
    }
    add(num(last.f1 + j + 1) + "F+" + num(last.b0 + j + 1) + "B", 3);
    ++c.f0, ++c.f1, ++c.b0, ++c.b1;
  }
  count += overlap;
  // one backward of chunk 1, then an overlap.
  last = c;
  const int64_t b1overlap = 2 * (p - i - 1);
  for (int64_t j = 0; j < b1overlap / 2; ++j) {
    logits(4);
    add(num(last.b1 + j + 1) + "B", 4);
    add(num(last.f1 + j + 1) + "F+" + num(last.b0 + j + 1) + "B", 4);
    ++c.f1, ++c.b0, ++c.b1;
  }
  count += b1overlap;
  // interleaved backward: chunk 1 and chunk 0 in turn, i+1 blocks.
  last = c;
  bool chunk1_last = false;
  for (int64_t j = 0; j < i + 1; ++j) {
    if (j % 2 == 0) {
      logits(5);
      add(num(last.b1 + j / 2 + 1) + "B", 5);
      ++c.b1;
      chunk1_last = true;
    } else {
      add(num(last.b0 + j / 2 + 1) + "B", 5);
      ++c.b0;
      chunk1_last = false;
    }
  }
  count += i + 1;
  // cooldown: the remaining backwards, both chunks in turn (counted as P blocks).
  count += p;
  int64_t b0 = c.b0, b1 = c.b1;
  auto step0 = [&] {
    if (b0 < m - 1) add(num(++b0) + "B", 6);
  };
  auto step1 = [&] {
    if (b1 < 2 * m - 1) add(num(++b1) + "B", 6);
  };
  while (b0 < m - 1 || b1 < 2 * m - 1) {
    if (chunk1_last) {
      step0();
      step1();
    } else {
      step1();
      step0();
    }
  }
}

}  // namespace

DualPipeVSchedule dualpipev_schedule(int pp, int64_t microbatches) {
  DualPipeVSchedule s;
  if (pp < 1) return s;
  s.blocks.resize(static_cast<size_t>(pp));
  s.expected.assign(static_cast<size_t>(pp), 0);
  if (microbatches < 2 * static_cast<int64_t>(pp)) return s;
  for (int i = 0; i < pp; ++i)
    stage_blocks(i, pp, microbatches, s.blocks[static_cast<size_t>(i)],
                 s.expected[static_cast<size_t>(i)]);
  return s;
}

const char* block_message(const ScheduleBlock& block) {
  if (block.name.find("F+") != std::string::npos) return "forward_backward_step";
  const char last = block.name.empty() ? '\0' : block.name.back();
  if (last == 'B' || last == 'b' || last == 'w') return "backward_step";
  return "forward_step";
}

}  // namespace cs::pipeline
