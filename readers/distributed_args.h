#pragma once
// profiler_metadata.json's distributed_args integer entries (tensor_model_parallel_size, ...,
// world_size, rank), read like a const std::map<std::string, int64_t>. Every rank of a job has
// the same entries but "rank", so the others are one map shared by every file that has them
// (interned in a process-wide pool of the maps seen, at most kPoolSize; past that a file keeps its
// own) and "rank" is kept apart: 32 bytes a rank instead of a map of seven nodes and their keys
// (issue 38: the root holds every rank's metadata).
//
//   DistributedArgs a = std::map<std::string, int64_t>{{"world_size", 16}, {"rank", 3}};
//   a.get("world_size") == 16;  a.at("rank") == 3;  a.size() == 2;  a.to_map() == {...}

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace cs::readers {

class DistributedArgs {
 public:
  using Map = std::map<std::string, int64_t>;
  // Distinct maps (without "rank") the process shares; further ones are kept per file.
  static constexpr size_t kPoolSize = 256;

  DistributedArgs() = default;
  DistributedArgs(const Map& entries);  // NOLINT: a map converts

  // The entry's value; nullopt when absent.
  std::optional<int64_t> get(std::string_view key) const;
  // The entry's value; throws std::out_of_range when absent.
  int64_t at(std::string_view key) const;
  size_t count(std::string_view key) const { return get(key) ? 1 : 0; }
  size_t size() const;
  bool empty() const { return size() == 0; }
  // Sets or removes one entry (the shared map is copied first).
  void set(std::string_view key, int64_t value);
  void erase(std::string_view key);

  // Every entry, "rank" with the others, in key order.
  Map to_map() const;
  operator Map() const { return to_map(); }  // NOLINT: reads as the map it stands for

  friend bool operator==(const DistributedArgs& a, const DistributedArgs& b) {
    return a.has_rank_ == b.has_rank_ && (!a.has_rank_ || a.rank_ == b.rank_) &&
           (a.common_ == b.common_ || a.common() == b.common());
  }

 private:
  const Map& common() const;
  std::shared_ptr<const Map> common_;  // every entry but "rank"; null when there is none
  bool has_rank_ = false;
  int64_t rank_ = 0;
};

}  // namespace cs::readers
