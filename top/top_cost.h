#pragma once
// Work and traffic of one operator call estimated from its shapes and data types, for
// `clusterscope top` (FLOPS and bandwidth columns, as MegEngine's profile_analyze shows them).
//
// Shapes are written as profilers write them: kernel_details.csv "81920,4096;8192,512" (tensors
// separated by ';', dims by ','), or Kineto "Input Dims" JSON "[[2048, 512], [512, 1024], []]".
//
//   auto in = parse_shapes("4096,512;512,1024");          // {{4096,512},{512,1024}}
//   double f = estimate_flops("MatMulV2", in, parse_shapes("4096,1024"));   // 2*4096*1024*512

#include <cstdint>
#include <string_view>
#include <vector>

namespace cs::top {

using Shape = std::vector<int64_t>;

// Parses either notation; a tensor with no dims ("" or []) is a scalar (empty Shape). Unparseable
// text, or a dim beyond 10^12, gives an empty list.
std::vector<Shape> parse_shapes(std::string_view text);

// Elements of a shape (1 for a scalar); NaN beyond 2^53 (a damaged shape, so FLOPs show '-').
double elements(const Shape& s);

// Bytes per element of a dtype name as Ascend (DT_BF16, FLOAT16, INT8) or PyTorch (float,
// c10::BFloat16, long int) writes it; 0 when unknown. Example: dtype_bytes("DT_BF16") == 2.
int dtype_bytes(std::string_view dtype);

// Floating-point operations of one call, NaN when the operator kind or its shapes are not
// understood, or the figure is beyond 10^20 (damaged shapes). Matrix products (MatMul*,
// BatchMatMul*, Gemm, aten::mm/bmm/matmul/addmm/linear): 2*M*N*K with M*N from the output (or the
// operands), K = elements of A / rows of the output; when B gives a smaller K the smaller is taken
// (profilers sometimes record padded operands). Convolutions (Conv2D*, aten::conv*/convolution with
// output shape): 2 * out elements * weight elements / out channels. Element-wise ops (Add, Sub,
// Mul, Div, RealDiv, Maximum, Minimum, Relu, Gelu, ...): output (else first input) elements.
double estimate_flops(std::string_view op_type, const std::vector<Shape>& inputs,
                      const std::vector<Shape>& outputs);

// Bytes moved by one call: elements of every input and output times their dtype sizes; `dtypes`
// holds the input dtypes ("DT_BF16;DT_BF16"), outputs use `output_dtypes` or else the first input
// dtype. NaN when no size is known.
double estimate_bytes(const std::vector<Shape>& inputs, std::string_view dtypes,
                      const std::vector<Shape>& outputs, std::string_view output_dtypes);

}  // namespace cs::top
