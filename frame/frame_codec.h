#pragma once
// Packs Frames into bytes and back, so a rank's partial result (the frames a recipe's map step
// read from that rank's databases) can travel from any MPI process to the root.

#include <map>
#include <string>

#include "frame/frame.h"
#include "io/byte_buffer.h"

namespace cs::frame {

// A rank's partial result: named frames (e.g. "time", "bandwidth").
using FrameSet = std::map<std::string, Frame>;

void pack_frame(const Frame& f, io::ByteWriter& w);
Frame unpack_frame(io::ByteReader& r);
void pack_frame_set(const FrameSet& s, io::ByteWriter& w);
FrameSet unpack_frame_set(io::ByteReader& r);

}  // namespace cs::frame
