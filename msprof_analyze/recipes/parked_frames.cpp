#include "msprof_analyze/recipes/parked_frames.h"

#include <algorithm>
#include <stdexcept>
#include <unordered_map>

#include "frame/frame_codec.h"
#include "io/byte_buffer.h"

namespace cs::recipes {

namespace {

std::vector<ColumnKinds> kinds_of(const frame::Frame& f) {
  std::vector<ColumnKinds> out;
  out.reserve(f.columns.size());
  for (const auto& c : f.columns)
    out.push_back({frame::intern_text(c.name), frame::cell_kinds(c), c.force_object});
  return out;
}

const ParkedFrame* find_parked(const RankPartial& p, const std::string& key) {
  for (const auto& f : p.parked)
    if (f.key == key) return &f;
  return nullptr;
}

frame::Frame read_back(const ParkedFrame& f) {
  std::vector<char> bytes;
  f.file->read(f.block, bytes);
  io::ByteReader r(bytes);
  return frame::unpack_frame(r);
}

}  // namespace

FramePark::FramePark(std::vector<const Recipe*> recipes, const std::string& dir)
    : recipes_(std::move(recipes)) {
  for (const Recipe* r : recipes_) keys_.push_back(r->parkable_frames());
  try {
    file_ = runtime::SpillFile::create(dir);
  } catch (const std::exception& e) {
    fail(e.what());
  }
}

std::shared_ptr<const std::vector<ColumnKinds>> FramePark::shared_columns(
    std::vector<ColumnKinds> columns) {
  std::lock_guard lock(mu_);
  for (const auto& list : column_lists_)
    if (*list == columns) return list;
  auto list = std::make_shared<const std::vector<ColumnKinds>>(std::move(columns));
  if (column_lists_.size() < kMaxColumnLists) column_lists_.push_back(list);
  return list;
}

void FramePark::park(size_t recipe, RankPartial& part) {
  if (recipe >= keys_.size()) return;
  for (const auto& key : keys_[recipe]) {
    if (!file_) return;
    auto it = part.frames.find(key);
    if (it == part.frames.end()) continue;
    ParkedFrame parked;
    parked.key = key;
    parked.rows = it->second.rows();
    parked.columns = shared_columns(kinds_of(it->second));
    if (std::optional<frame::Frame> beside = recipes_[recipe]->kept_beside(key, it->second)) {
      io::ByteWriter b;
      frame::pack_frame(*beside, b);
      parked.beside = std::move(b.data());
      parked.beside.shrink_to_fit();
    }
    io::ByteWriter w;
    frame::pack_frame(it->second, w);
    try {
      parked.block = file_->append(w.data().data(), w.data().size());
    } catch (const std::exception& e) {
      fail(e.what());  // what went to the file stays there; this frame and the rest stay held
      return;
    }
    parked.file = file_;
    part.parked.push_back(std::move(parked));
    part.frames.erase(it);
  }
}

std::string FramePark::problem() const {
  std::lock_guard<std::mutex> lock(mu_);
  return problem_;
}

void FramePark::fail(const std::string& why) {
  std::lock_guard<std::mutex> lock(mu_);
  file_.reset();  // (the parked frames keep the file open)
  if (problem_.empty()) problem_ = why;
}

bool has_frame(const RankPartial& p, const std::string& key) {
  return p.frames.contains(key) || find_parked(p, key) != nullptr;
}

uint64_t frame_rows(const RankPartial& p, const std::string& key) {
  if (auto it = p.frames.find(key); it != p.frames.end()) return it->second.rows();
  const ParkedFrame* f = find_parked(p, key);
  return f ? f->rows : 0;
}

frame::Frame read_frame(const RankPartial& p, const std::string& key) {
  if (auto it = p.frames.find(key); it != p.frames.end()) return it->second;
  const ParkedFrame* f = find_parked(p, key);
  return f ? read_back(*f) : frame::Frame{};
}

frame::Frame take_frame(RankPartial& p, const std::string& key) {
  if (auto it = p.frames.find(key); it != p.frames.end()) {
    frame::Frame f = std::move(it->second);
    p.frames.erase(it);
    return f;
  }
  auto it = std::find_if(p.parked.begin(), p.parked.end(),
                         [&](const ParkedFrame& f) { return f.key == key; });
  if (it == p.parked.end()) return {};
  frame::Frame f = read_back(*it);
  p.parked.erase(it);
  return f;
}

std::vector<ColumnKinds> concat_columns(const std::vector<RankPartial>& parts,
                                        const std::string& key, bool non_empty) {
  std::vector<ColumnKinds> out;
  std::unordered_map<const std::string*, size_t> at;
  std::vector<uint64_t> rows_with;  // per column: the rows of the frames that have it
  uint64_t all_rows = 0;
  auto add = [&](const std::vector<ColumnKinds>& columns, uint64_t rows) {
    if (non_empty && rows == 0) return;
    all_rows += rows;
    for (const ColumnKinds& c : columns) {
      auto [it, fresh] = at.emplace(c.name, out.size());
      if (fresh) {
        out.push_back({c.name, 0, false});
        rows_with.push_back(0);
      }
      ColumnKinds& o = out[it->second];
      o.kinds |= c.kinds;
      o.force_object = o.force_object || c.force_object;
      rows_with[it->second] += rows;
    }
  };
  for (const auto& p : parts) {
    if (!p.used) continue;
    if (auto it = p.frames.find(key); it != p.frames.end()) {
      add(kinds_of(it->second), it->second.rows());
    } else if (const ParkedFrame* f = find_parked(p, key)) {
      add(*f->columns, f->rows);
    }
  }
  for (size_t c = 0; c < out.size(); ++c)
    if (rows_with[c] < all_rows) out[c].kinds |= frame::kind_bit(frame::Cell::Kind::kNull);
  return out;
}

}  // namespace cs::recipes
