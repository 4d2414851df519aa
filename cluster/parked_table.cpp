#include "cluster/parked_table.h"

#include <stdexcept>
#include <utility>
#include <vector>

#include "io/table_codec.h"

namespace cs::cluster {

ParkedTable::ParkedTable(io::Table t, const std::shared_ptr<runtime::SpillFile>& spill)
    : ParkedTable(std::make_shared<const io::Table>(std::move(t)), spill) {}

ParkedTable::ParkedTable(std::shared_ptr<const io::Table> t,
                         const std::shared_ptr<runtime::SpillFile>& spill) {
  if (spill && t) {
    try {
      io::ByteWriter head;
      io::pack_table_head(*t, head);
      blocks_.push_back(spill->append(head.data().data(), head.size()));
      for (const io::Column& c : t->columns) {
        io::ByteWriter w;
        io::pack_column(c, w);
        blocks_.push_back(spill->append(w.data().data(), w.size()));
      }
      spill_ = spill;
      return;
    } catch (const std::exception&) {
      blocks_.clear();  // a full disk, say: the table stays in memory
    }
  }
  held_ = std::move(t);
}

const io::Table& ParkedTable::get() const {
  if (held_) return *held_;
  if (!spill_) {
    held_ = std::make_shared<const io::Table>();
    return *held_;
  }
  std::vector<char> bytes;
  auto read = [&](const runtime::SpillFile::Block& b) {
    spill_->read(b, bytes);
    return io::ByteReader(bytes);
  };
  io::ByteReader head = read(blocks_.at(0));
  uint32_t columns = 0;
  auto t = std::make_shared<io::Table>(io::unpack_table_head(head, columns));
  if (columns + 1 != blocks_.size()) throw std::runtime_error("parked table: bad column count");
  for (size_t i = 1; i < blocks_.size(); ++i) {
    io::ByteReader r = read(blocks_[i]);
    io::unpack_column(r, *t);
    if (!r.done()) throw std::runtime_error("parked table " + t->name + ": bytes left over");
  }
  held_ = std::move(t);
  spill_.reset();
  blocks_.clear();
  return *held_;
}

}  // namespace cs::cluster
