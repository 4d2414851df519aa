#include "readers/distributed_args.h"

#include <mutex>
#include <stdexcept>
#include <vector>

namespace cs::readers {

namespace {

constexpr std::string_view kRank = "rank";

// The shared map equal to `m` (added to the pool when new and there is room; else its own).
std::shared_ptr<const DistributedArgs::Map> interned(DistributedArgs::Map m) {
  if (m.empty()) return nullptr;
  static std::mutex mu;
  static std::vector<std::shared_ptr<const DistributedArgs::Map>> pool;
  std::lock_guard<std::mutex> lock(mu);
  for (const auto& p : pool)
    if (*p == m) return p;
  auto p = std::make_shared<const DistributedArgs::Map>(std::move(m));
  if (pool.size() < DistributedArgs::kPoolSize) pool.push_back(p);
  return p;
}

}  // namespace

DistributedArgs::DistributedArgs(const Map& entries) {
  Map common;
  for (const auto& [k, v] : entries) {
    if (k == kRank) {
      has_rank_ = true;
      rank_ = v;
    } else {
      common.emplace_hint(common.end(), k, v);
    }
  }
  common_ = interned(std::move(common));
}

const DistributedArgs::Map& DistributedArgs::common() const {
  static const Map kNone;
  return common_ ? *common_ : kNone;
}

std::optional<int64_t> DistributedArgs::get(std::string_view key) const {
  if (key == kRank) return has_rank_ ? std::optional<int64_t>(rank_) : std::nullopt;
  if (!common_) return std::nullopt;
  const auto it = common_->find(std::string(key));
  if (it == common_->end()) return std::nullopt;
  return it->second;
}

int64_t DistributedArgs::at(std::string_view key) const {
  const auto v = get(key);
  if (!v) throw std::out_of_range("distributed_args has no " + std::string(key));
  return *v;
}

size_t DistributedArgs::size() const {
  return common().size() + (has_rank_ ? 1 : 0);
}

void DistributedArgs::set(std::string_view key, int64_t value) {
  if (key == kRank) {
    has_rank_ = true;
    rank_ = value;
    return;
  }
  Map m = common();
  m[std::string(key)] = value;
  common_ = interned(std::move(m));
}

void DistributedArgs::erase(std::string_view key) {
  if (key == kRank) {
    has_rank_ = false;
    rank_ = 0;
    return;
  }
  if (!get(key)) return;
  Map m = common();
  m.erase(std::string(key));
  common_ = interned(std::move(m));
}

DistributedArgs::Map DistributedArgs::to_map() const {
  Map m = common();
  if (has_rank_) m.emplace(std::string(kRank), rank_);
  return m;
}

}  // namespace cs::readers
