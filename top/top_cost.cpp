#include "top/top_cost.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <string>

namespace cs::top {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::string lower(std::string_view s) {
  std::string o(s);
  for (auto& c : o) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return o;
}

bool starts_with(std::string_view s, std::string_view p) {
  return s.substr(0, p.size()) == p;
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  size_t b = 0;
  for (size_t i = 0; i <= s.size(); ++i)
    if (i == s.size() || s[i] == sep) {
      out.push_back(s.substr(b, i - b));
      b = i + 1;
    }
  return out;
}

}  // namespace

// The largest dim accepted (10^12): more digits would overflow int64 and mean a damaged shape.
constexpr int64_t kMaxDim = 1'000'000'000'000;

std::vector<Shape> parse_shapes(std::string_view text) {
  std::vector<Shape> out;
  while (!text.empty() && (text.front() == ' ' || text.front() == '"' || text.front() == '\t'))
    text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '"' || text.back() == '\t'))
    text.remove_suffix(1);
  // NPU timelines end each tensor with ";\r\n": the last terminator opens no tensor.
  if (text.find('\n') != std::string_view::npos) {
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
      text.remove_suffix(1);
    if (!text.empty() && text.back() == ';') text.remove_suffix(1);
  }
  if (text.empty() || text == "N/A") return out;
  if (text.front() == '[') {
    // JSON: [[a, b], [c], []]; nested lists deeper than two levels (tensor lists) are flattened.
    int depth = 0;
    Shape cur;
    int64_t num = -1;
    for (char c : text) {
      if (c == '[') {
        ++depth;
        if (depth == 2) cur.clear();
      } else if (c == ']') {
        if (num >= 0) cur.push_back(num), num = -1;
        if (depth == 2) out.push_back(cur);
        --depth;
      } else if (std::isdigit(static_cast<unsigned char>(c))) {
        num = (num < 0 ? 0 : num * 10) + (c - '0');
        if (num > kMaxDim) return {};  // no tensor has such a dim: a damaged shape
      } else if (c == ',') {
        if (num >= 0) cur.push_back(num), num = -1;
      } else if (c != ' ' && c != '\n' && c != '\r' && c != '\t') {  // pretty-printed JSON
        return {};
      }
    }
    return out;
  }
  for (auto tensor : split(text, ';')) {
    // NPU timelines write "32,3,224,224;\r\n64,3,11,11": blanks around a tensor are no dims.
    while (!tensor.empty() && std::isspace(static_cast<unsigned char>(tensor.front())))
      tensor.remove_prefix(1);
    while (!tensor.empty() && std::isspace(static_cast<unsigned char>(tensor.back())))
      tensor.remove_suffix(1);
    Shape s;
    if (!tensor.empty())
      for (auto dim : split(tensor, ',')) {
        int64_t v = 0;
        if (dim.empty()) return {};
        for (char c : dim) {
          if (!std::isdigit(static_cast<unsigned char>(c))) return {};
          v = v * 10 + (c - '0');
          if (v > kMaxDim) return {};
        }
        s.push_back(v);
      }
    out.push_back(std::move(s));
  }
  return out;
}

double elements(const Shape& s) {
  double n = 1;
  for (int64_t d : s) n *= static_cast<double>(d);
  // Beyond 2^53 elements (petabytes) the shape is damaged, not a tensor: unknown.
  return n <= 9007199254740992.0 ? n : std::numeric_limits<double>::quiet_NaN();
}

int dtype_bytes(std::string_view dtype) {
  std::string d = lower(dtype);
  if (starts_with(d, "dt_")) d = d.substr(3);
  if (starts_with(d, "c10::")) d = d.substr(5);
  if (d == "float" || d == "float32" || d == "int32" || d == "int" || d == "uint32" ||
      d == "complex32")
    return 4;
  if (d == "float16" || d == "half" || d == "bf16" || d == "bfloat16" || d == "int16" ||
      d == "uint16" || d == "short" || d == "fp16")
    return 2;
  if (d == "int8" || d == "uint8" || d == "bool" || d == "unsigned char" || d == "signed char" ||
      d == "float8_e4m3fn" || d == "float8_e5m2" || d == "hifloat8")
    return 1;
  if (d == "float64" || d == "double" || d == "int64" || d == "long int" || d == "long" ||
      d == "uint64" || d == "complex64")
    return 8;
  return 0;
}

namespace {

double flops_unchecked(std::string_view op_type, const std::vector<Shape>& in,
                       const std::vector<Shape>& out) {
  const std::string t = lower(op_type);
  const bool matmul = t.find("matmul") != std::string::npos ||
                      t.find("gemm") != std::string::npos || t == "aten::mm" || t == "aten::bmm" ||
                      t == "aten::addmm" || t == "aten::baddbmm" || t == "aten::linear" ||
                      t == "mm" || t == "bmm";
  const bool conv = t.find("conv") != std::string::npos;
  // Tensors with at least 2 dims (matrix operands; drops bias vectors and scalars).
  std::vector<const Shape*> mats;
  for (const auto& s : in)
    if (s.size() >= 2) mats.push_back(&s);
  if (matmul && !conv) {
    if (t == "aten::linear" && in.size() >= 2 && !in[0].empty() && in[1].size() == 2) {
      const double k = static_cast<double>(in[1][1]), n = static_cast<double>(in[1][0]);
      if (k <= 0) return kNaN;
      return 2.0 * elements(in[0]) / k * n * k;
    }
    if (mats.size() < 2) return kNaN;
    const Shape& a = *mats[mats.size() - 2];
    const Shape& b = *mats[mats.size() - 1];
    double mn = 0, n = 0;
    if (!out.empty() && out[0].size() >= 2) {
      mn = elements(out[0]);
      n = static_cast<double>(out[0].back());
    } else {
      // No output shape: A [.., M, K] x B [.., K, N] without transposes.
      n = static_cast<double>(b.back());
      mn = elements(a) / static_cast<double>(a.back()) * n;
    }
    if (mn <= 0 || n <= 0) return kNaN;
    const double rows = mn / n;  // batch * M
    double k = elements(a) / rows;
    const double batch_b =
        elements(b) / static_cast<double>(b[b.size() - 1]) / static_cast<double>(b[b.size() - 2]);
    const double kb = elements(b) / batch_b / n;
    if (kb >= 1 && std::floor(kb) == kb && kb < k) k = kb;
    if (!(k >= 1)) return kNaN;
    return 2.0 * mn * k;
  }
  if (conv) {
    if (out.empty() || out[0].size() < 3 || in.size() < 2 || in[1].size() < 3) return kNaN;
    const double cout = static_cast<double>(in[1][0]);
    if (cout <= 0) return kNaN;
    return 2.0 * elements(out[0]) * elements(in[1]) / cout;
  }
  static const char* kElementwise[] = {
      "add",     "addv2", "sub",  "mul",       "div",       "realdiv",   "maximum",
      "minimum", "relu",  "gelu", "silu",      "sigmoid",   "tanh",      "exp",
      "sqrt",    "rsqrt", "neg",  "aten::add", "aten::mul", "aten::sub", "aten::div"};
  for (const char* e : kElementwise)
    if (t == e) {
      if (!out.empty()) return elements(out[0]);
      if (!in.empty()) return elements(in[0]);
      return kNaN;
    }
  return kNaN;
}

}  // namespace

double estimate_flops(std::string_view op_type, const std::vector<Shape>& in,
                      const std::vector<Shape>& out) {
  // Beyond 10^20 per call (a day of a 10^15 FLOP/s chip) the shapes are damaged: unknown ('-').
  const double f = flops_unchecked(op_type, in, out);
  return f <= 1e20 ? f : kNaN;
}

double estimate_bytes(const std::vector<Shape>& in, std::string_view dtypes,
                      const std::vector<Shape>& out, std::string_view output_dtypes) {
  const auto in_types = split(dtypes, ';');
  const auto out_types = split(output_dtypes, ';');
  double bytes = 0;
  bool any = false;
  for (size_t i = 0; i < in.size(); ++i) {
    const int b = i < in_types.size() ? dtype_bytes(in_types[i]) : 0;
    if (!b) continue;
    bytes += elements(in[i]) * b;
    any = true;
  }
  for (size_t i = 0; i < out.size(); ++i) {
    int b = i < out_types.size() ? dtype_bytes(out_types[i]) : 0;
    if (!b && !in_types.empty()) b = dtype_bytes(in_types[0]);
    if (!b) continue;
    bytes += elements(out[i]) * b;
    any = true;
  }
  return any ? bytes : kNaN;
}

}  // namespace cs::top
