#include "io/collective.h"

namespace cs::io {

namespace {

class Solo : public Collective {
 public:
  int process() const override { return 0; }
  int processes() const override { return 1; }
  std::vector<std::vector<uint64_t>> all_gather(const std::vector<uint64_t>& mine) const override {
    return {mine};
  }
  std::vector<uint64_t> all_max(const std::vector<uint64_t>& values) const override {
    return values;
  }
};

}  // namespace

const Collective& solo_collective() {
  static const Solo solo;
  return solo;
}

}  // namespace cs::io
