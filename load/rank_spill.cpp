#include "load/rank_spill.h"

#include <exception>

namespace cs::load {

void RankSpill::open() {
  try {
    file_ = runtime::SpillFile::create();
    on_ = true;
  } catch (const std::exception& e) {
    fail(e.what());
  }
}

void RankSpill::park(RankData& d) {
  if (on_) {
    try {
      d.communication.spill(file_);
      d.matrix.spill(file_);
      d.operators.spill(file_);
      d.host.spill(file_);
      d.step_trace.spill(file_);
      return;
    } catch (const std::exception& e) {
      fail(e.what());  // what went to the file stays there; the rest is packed below
    }
  }
  d.communication.pack();
  d.matrix.pack();
  d.operators.pack();
  d.host.pack();
  d.step_trace.pack();
}

std::string RankSpill::problem() const {
  std::lock_guard<std::mutex> lock(mu_);
  return problem_;
}

void RankSpill::fail(const std::string& why) {
  std::lock_guard<std::mutex> lock(mu_);
  on_ = false;
  if (problem_.empty()) problem_ = why;
}

}  // namespace cs::load
