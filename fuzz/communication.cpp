// Harness: communication.json, through the reader rank_parser calls.
#include "readers/communication.h"
#include "fuzz/harnesses.h"
#include "fuzz/temp_input.h"

namespace cs::fuzz {

int communication(const uint8_t* data, size_t size) {
  const std::string& path = write_temp_input("communication.json", data, size);
  readers::CommunicationFile file;
  io::Diagnostics diag;
  readers::read_communication_json(path, file, diag);
  return 0;
}

}  // namespace cs::fuzz
