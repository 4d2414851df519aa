#include "frame/frame_codec.h"

namespace cs::frame {

void pack_frame(const Frame& f, io::ByteWriter& w) {
  w.put<uint32_t>(static_cast<uint32_t>(f.columns.size()));
  w.put<uint32_t>(static_cast<uint32_t>(f.index_columns));
  w.put<uint64_t>(f.rows());
  for (const auto& c : f.columns) {
    w.str(c.name);
    w.put<uint8_t>(c.force_object);
    for (const auto& cell : c.cells) {
      w.put<uint8_t>(static_cast<uint8_t>(cell.kind));
      switch (cell.kind) {
        case Cell::Kind::kNull:
          break;
        case Cell::Kind::kInt:
          w.put<int64_t>(cell.i());
          break;
        case Cell::Kind::kReal:
          w.put<double>(cell.num());
          break;
        case Cell::Kind::kText:
          w.str(cell.str());
          break;
      }
    }
  }
}

Frame unpack_frame(io::ByteReader& r) {
  Frame f;
  const auto ncols = r.get<uint32_t>();
  f.index_columns = r.get<uint32_t>();
  const auto nrows = r.get<uint64_t>();
  for (uint32_t c = 0; c < ncols; ++c) {
    FrameColumn& col = f.add(r.str());
    col.force_object = r.get<uint8_t>() != 0;
    col.cells.reserve(nrows);
    for (uint64_t i = 0; i < nrows; ++i) {
      const auto kind = static_cast<Cell::Kind>(r.get<uint8_t>());
      switch (kind) {
        case Cell::Kind::kNull:
          col.cells.push_back(Cell::null());
          break;
        case Cell::Kind::kInt:
          col.cells.push_back(Cell::integer(r.get<int64_t>()));
          break;
        case Cell::Kind::kReal:
          col.cells.push_back(Cell::real(r.get<double>()));
          break;
        case Cell::Kind::kText:
          col.cells.push_back(Cell::text(r.view()));
          break;
        default:
          throw std::runtime_error("unpack_frame: bad cell kind");
      }
    }
  }
  return f;
}

void pack_frame_set(const FrameSet& s, io::ByteWriter& w) {
  w.put<uint32_t>(static_cast<uint32_t>(s.size()));
  for (const auto& [name, f] : s) {
    w.str(name);
    pack_frame(f, w);
  }
}

FrameSet unpack_frame_set(io::ByteReader& r) {
  FrameSet s;
  const auto n = r.get<uint32_t>();
  for (uint32_t i = 0; i < n; ++i) {
    std::string name = r.str();
    s.emplace(std::move(name), unpack_frame(r));
  }
  return s;
}

}  // namespace cs::frame
