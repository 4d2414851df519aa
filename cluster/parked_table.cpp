#include "cluster/parked_table.h"

#include <stdexcept>
#include <utility>

#include "io/table_codec.h"
#include "io/table_concat.h"

namespace cs::cluster {

ParkedTable::ParkedTable(io::Table t, const std::shared_ptr<runtime::SpillFile>& spill)
    : ParkedTable(std::make_shared<const io::Table>(std::move(t)), spill) {}

ParkedTable::ParkedTable(std::shared_ptr<const io::Table> t,
                         const std::shared_ptr<runtime::SpillFile>& spill)
    : spill_(spill) {
  if (!t) return;
  if (!spill_ || !park(*t)) held_ = std::move(t);  // a full disk, say: kept in memory
}

bool ParkedTable::park(const io::Table& t) {
  try {
    Blocks blocks;
    io::ByteWriter head;
    io::pack_table_head(t, head);
    blocks.push_back(spill_->append(head.data().data(), head.size()));
    for (const io::Column& c : t.columns) {
      io::ByteWriter w;
      io::pack_column(c, w);
      blocks.push_back(spill_->append(w.data().data(), w.size()));
    }
    chunks_.push_back(std::move(blocks));
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

void ParkedTable::append(io::Table rows) {
  if (!held_ && spill_ && park(rows)) return;
  // In memory: no spill file, or it failed (what went to it is read back first, once).
  if (!own_) {
    own_ = has_table() ? std::make_shared<io::Table>(get()) : nullptr;
    if (!own_) {
      own_ = std::make_shared<io::Table>(std::move(rows));
      held_ = own_;
      return;
    }
    held_ = own_;
  }
  io::append_rows(*own_, std::move(rows));
}

const io::Table& ParkedTable::get() const {
  if (held_) return *held_;
  if (chunks_.empty()) {
    held_ = std::make_shared<const io::Table>();
    return *held_;
  }
  std::vector<char> bytes;
  auto read_chunk = [&](const Blocks& blocks) {
    io::ByteReader head = (spill_->read(blocks.at(0), bytes), io::ByteReader(bytes));
    uint32_t columns = 0;
    io::Table t = io::unpack_table_head(head, columns);
    if (columns + 1 != blocks.size()) throw std::runtime_error("parked table: bad column count");
    for (size_t i = 1; i < blocks.size(); ++i) {
      spill_->read(blocks[i], bytes);
      io::ByteReader r(bytes);
      io::unpack_column(r, t);
      if (!r.done()) throw std::runtime_error("parked table " + t.name + ": bytes left over");
    }
    return t;
  };
  auto t = std::make_shared<io::Table>(read_chunk(chunks_[0]));
  for (size_t i = 1; i < chunks_.size(); ++i) io::append_rows(*t, read_chunk(chunks_[i]));
  held_ = std::move(t);
  chunks_.clear();
  return *held_;
}

}  // namespace cs::cluster
