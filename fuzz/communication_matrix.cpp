// Harness: communication_matrix.json, through the reader rank_parser calls.
#include "fuzz/harnesses.h"
#include "fuzz/temp_input.h"
#include "readers/matrix.h"

namespace cs::fuzz {

int communication_matrix(const uint8_t* data, size_t size) {
  const std::string& path = write_temp_input("communication_matrix.json", data, size);
  readers::MatrixFile file;
  io::Diagnostics diag;
  if (readers::read_communication_matrix_json(path, file, diag)) {
    // The op type every merged link is filed under, as msprof_analyze/documents/ derives it.
    for (const auto& step : file.steps)
      for (const auto* ops : {&step.collective, &step.p2p})
        for (const auto& op : *ops) {
          (void)readers::matrix_op_type(op.op_part());
          (void)op.group();
          for (const auto& link : op.links) {
            (void)file.link_key(link);
            (void)file.op_name(link);
          }
        }
  }
  return 0;
}

}  // namespace cs::fuzz
