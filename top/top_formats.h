#pragma once
// FLOPs of kernel_details.csv rows whose tensors are in Ascend private layouts (the Input Formats
// / Output Formats columns): the logical shapes are derived from the layouts before estimating.
//
//   NC1HWC0    [N, C1, H, W, C0]           -> N, C = C1*C0, H, W   (channels padded to C0)
//   FRACTAL_Z  [C1*Kh*Kw, Cout1, N0, C0]    -> conv weight: Cout = Cout1*N0, Kh*Kw = dim0 / C1
//   FRACTAL_NZ [.., N1, M1, M0, N0]         -> [.., M1*M0, N1*N0]
//
// Convolutions (Conv2D, Conv2DBackpropInput, Conv2DBackpropFilter) cost 2*N*Cout*Ho*Wo*Cin*Kh*Kw
// from the activations on each side and the weight's Kh*Kw. A tensor holding one C0 block of
// channels (C1 = 1) may hold anything from 1 to C0 real channels (an RGB input is padded from 3
// to 8 or 16): that figure cannot be derived and is NaN ("-").
//
//   double f = estimate_flops_with_formats("Conv2D", in, "NC1HWC0;FRACTAL_Z;NCHW", out,
//                                          "NC1HWC0");

#include <optional>
#include <string_view>
#include <vector>

#include "top/top_cost.h"

namespace cs::top {

// True when `formats` ("NC1HWC0;FRACTAL_Z;NCHW") names an Ascend private layout.
bool has_private_format(std::string_view formats);

// FLOPs of one call with the layouts applied; NaN when the layouts leave the figure unknown.
// Without any private layout it is estimate_flops(op_type, in, out).
// Example: Conv2D, in {32,8,27,27,8},{200,12,16,8},{192}, out {32,24,27,27,8} (NC1HWC0,
// FRACTAL_Z, NCHW -> NC1HWC0): Cin 64, 5x5, Cout 192, 27x27 -> 2*32*192*27*27*64*25.
double estimate_flops_with_formats(std::string_view op_type, const std::vector<Shape>& in,
                                   std::string_view in_formats, const std::vector<Shape>& out,
                                   std::string_view out_formats);

}  // namespace cs::top
