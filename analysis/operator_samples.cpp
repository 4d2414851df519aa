#include "analysis/operator_samples.h"

#include <cstring>
#include <stdexcept>

namespace cs::analysis {

OperatorSamplePark::OperatorSamplePark(std::shared_ptr<runtime::SpillFile> file,
                                       size_t park_samples)
    : file_(std::move(file)), blocks_file_(file_), park_samples_(park_samples) {
  if (park_samples_ == 0) park_samples_ = 1;
}

void OperatorSamplePark::add(std::string_view key, const std::vector<double>& samples) {
  append(buckets_, key, samples.data(), samples.size());
}

void OperatorSamplePark::add_totals(std::string_view key, const stats::RankTotals& totals) {
  std::vector<double> flat;
  flat.reserve(2 * totals.size());
  for (const auto& [rank, total] : totals) {
    flat.push_back(static_cast<double>(rank));  // exact: an int
    flat.push_back(total);
  }
  append(totals_, key, flat.data(), flat.size());
}

void OperatorSamplePark::append(Buckets& to, std::string_view key, const double* p, size_t n) {
  if (n == 0) return;
  auto it = to.find(key);
  if (it == to.end()) it = to.try_emplace(std::string(key)).first;
  it->second.pending.insert(it->second.pending.end(), p, p + n);
  pending_ += n;
  if (file_ && pending_ >= park_samples_) park();
}

void OperatorSamplePark::park() {
  // Every key's pending samples one after the other, in one append; each key's part of the
  // block is a block of its own (an offset and a size into the file).
  std::vector<char> bytes(pending_ * sizeof(double));
  size_t at = 0;
  for (Buckets* buckets : {&buckets_, &totals_}) {
    for (auto& [key, b] : *buckets) {
      if (b.pending.empty()) continue;
      std::memcpy(bytes.data() + at, b.pending.data(), b.pending.size() * sizeof(double));
      at += b.pending.size() * sizeof(double);
    }
  }
  runtime::SpillFile::Block whole;
  try {
    whole = file_->append(bytes.data(), bytes.size());
  } catch (const std::exception& e) {
    // A full disk: what is in the file stays readable there; the rest stays in memory.
    problem_ = e.what();
    file_.reset();
    return;
  }
  uint64_t offset = whole.offset;
  for (Buckets* buckets : {&buckets_, &totals_}) {
    for (auto& [key, b] : *buckets) {
      if (b.pending.empty()) continue;
      const uint64_t size = b.pending.size() * sizeof(double);
      b.parked.push_back({offset, size});
      offset += size;
      std::vector<double>().swap(b.pending);
    }
  }
  parked_bytes_ += bytes.size();
  pending_ = 0;
}

void OperatorSamplePark::read(std::string_view key,
                              const std::function<void(const double*, size_t)>& fn) const {
  read(buckets_, key, fn);
}

void OperatorSamplePark::read_totals(std::string_view key,
                                     const std::function<void(int, double)>& fn) const {
  read(totals_, key, [&fn](const double* p, size_t n) {
    for (size_t i = 0; i + 1 < n; i += 2) fn(static_cast<int>(p[i]), p[i + 1]);
  });
}

void OperatorSamplePark::read(const Buckets& from, std::string_view key,
                              const std::function<void(const double*, size_t)>& fn) const {
  const auto it = from.find(key);
  if (it == from.end()) return;
  std::vector<char> bytes;
  std::vector<double> block;
  for (const runtime::SpillFile::Block& b : it->second.parked) {
    blocks_file_->read(b, bytes);
    block.resize(bytes.size() / sizeof(double));
    std::memcpy(block.data(), bytes.data(), block.size() * sizeof(double));
    fn(block.data(), block.size());
  }
  if (!it->second.pending.empty()) fn(it->second.pending.data(), it->second.pending.size());
}

}  // namespace cs::analysis
