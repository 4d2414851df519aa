#include "readers/parallel_group.h"

#include <mutex>
#include <unordered_map>
#include <utility>

namespace cs::readers {

namespace {

using Shape = ParallelGroup::Shape;

// The shapes the process has seen, by group id; weak: a shape lives as long as a rank holds it.
struct Pool {
  std::mutex mu;
  std::unordered_map<std::string, std::vector<std::weak_ptr<const Shape>>> by_id;
  size_t added_since_sweep = 0;

  // Drops the entries no group holds any more (under mu).
  void sweep() {
    for (auto it = by_id.begin(); it != by_id.end();) {
      std::erase_if(it->second, [](const std::weak_ptr<const Shape>& w) { return w.expired(); });
      it = it->second.empty() ? by_id.erase(it) : std::next(it);
    }
    added_since_sweep = 0;
  }
};

Pool& pool() {
  static Pool p;
  return p;
}

// The shared shape equal to `s` (made and remembered when new).
std::shared_ptr<const Shape> interned(Shape s) {
  Pool& p = pool();
  std::lock_guard<std::mutex> lock(p.mu);
  std::vector<std::weak_ptr<const Shape>>& same_id = p.by_id[s.group_id];
  for (const std::weak_ptr<const Shape>& w : same_id)
    if (std::shared_ptr<const Shape> held = w.lock(); held && *held == s) return held;
  auto made = std::make_shared<const Shape>(std::move(s));
  same_id.push_back(made);
  // Entries of freed shapes are swept once as many shapes were added as the pool has ids, so the
  // pool stays within a constant factor of the shapes alive.
  if (++p.added_since_sweep > p.by_id.size()) p.sweep();
  return made;
}

}  // namespace

ParallelGroup::ParallelGroup(Shape shape, int group_rank)
    : shape_(interned(std::move(shape))), group_rank_(group_rank) {}

ParallelGroup::ParallelGroup(std::string group_id, std::string group_name, int group_rank,
                             std::vector<int> global_ranks)
    : ParallelGroup(Shape{std::move(group_id), std::move(group_name), std::move(global_ranks)},
                    group_rank) {}

const ParallelGroup::Shape& ParallelGroup::shape() const {
  static const Shape kEmpty;
  return shape_ ? *shape_ : kEmpty;
}

void forget_unused_parallel_groups() {
  Pool& p = pool();
  std::lock_guard<std::mutex> lock(p.mu);
  p.sweep();
}

size_t remembered_parallel_groups() {
  Pool& p = pool();
  std::lock_guard<std::mutex> lock(p.mu);
  size_t n = 0;
  for (const auto& [id, shapes] : p.by_id) n += shapes.size();
  return n;
}

}  // namespace cs::readers
