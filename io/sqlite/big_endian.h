#pragma once
// Big-endian 16- and 32-bit integers, as SQLite's file format stores them.

#include <cstdint>

namespace cs::io::sqlite {

inline uint32_t get16(const unsigned char* p) {
  return static_cast<uint32_t>(p[0]) << 8 | p[1];
}
inline uint32_t get32(const unsigned char* p) {
  return static_cast<uint32_t>(p[0]) << 24 | static_cast<uint32_t>(p[1]) << 16 |
         static_cast<uint32_t>(p[2]) << 8 | p[3];
}
inline void put16(unsigned char* p, uint32_t v) {
  p[0] = static_cast<unsigned char>(v >> 8);
  p[1] = static_cast<unsigned char>(v);
}
inline void put32(unsigned char* p, uint32_t v) {
  p[0] = static_cast<unsigned char>(v >> 24);
  p[1] = static_cast<unsigned char>(v >> 16);
  p[2] = static_cast<unsigned char>(v >> 8);
  p[3] = static_cast<unsigned char>(v);
}

}  // namespace cs::io::sqlite
