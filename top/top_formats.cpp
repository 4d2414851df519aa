#include "top/top_formats.h"

#include <cctype>
#include <cmath>
#include <limits>
#include <string>

namespace cs::top {

namespace {

constexpr double kFormatNaN = std::numeric_limits<double>::quiet_NaN();

std::vector<std::string> split_formats(std::string_view s) {
  std::vector<std::string> out;
  size_t start = 0;
  for (;;) {
    const size_t at = s.find(';', start);
    std::string f(s.substr(start, at == std::string_view::npos ? s.npos : at - start));
    std::string clean;
    for (char c : f)
      if (!std::isspace(static_cast<unsigned char>(c)))
        clean += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (clean.rfind("FORMAT_", 0) == 0) clean.erase(0, 7);
    out.push_back(clean);
    if (at == std::string_view::npos) break;
    start = at + 1;
  }
  return out;
}

bool is_private(const std::string& f) {
  return f.find("C1") != std::string::npos || f.find("FRACTAL") != std::string::npos ||
         f.find("C0") != std::string::npos;
}

const std::string& format_at(const std::vector<std::string>& f, size_t i) {
  static const std::string kNone;
  return i < f.size() ? f[i] : kNone;
}

// Indexes of the tensors in `format`, in order.
std::vector<size_t> with_format(const std::vector<std::string>& f, const std::string& format) {
  std::vector<size_t> out;
  for (size_t i = 0; i < f.size(); ++i)
    if (f[i] == format) out.push_back(i);
  return out;
}

// 2*N*Cout*Ho*Wo*Cin*Kh*Kw from the Cin-side activation `a` and the Cout-side one `b`
// (NC1HWC0) and the FRACTAL_Z weight `w`.
double conv_flops(const Shape& a, const Shape& b, const Shape& w) {
  if (a.size() != 5 || b.size() != 5 || w.size() != 4) return kFormatNaN;
  const int64_t c1 = a[1];
  if (c1 <= 1) return kFormatNaN;  // one C0 block: the real channel count is unknown
  if (w[0] % c1 != 0) return kFormatNaN;
  const double khkw = static_cast<double>(w[0] / c1);
  const double cin = static_cast<double>(c1 * a[4]);
  const double cout = static_cast<double>(b[1] * b[4]);
  return 2.0 * static_cast<double>(a[0]) * cout * static_cast<double>(b[2]) *
         static_cast<double>(b[3]) * cin * khkw;
}

// The logical (ND / NCHW) shape of a tensor in `format`, or nullopt when it cannot be told.
std::optional<Shape> logical(const Shape& s, const std::string& format) {
  if (!is_private(format)) return s;
  if (format == "NC1HWC0" && s.size() == 5) return Shape{s[0], s[1] * s[4], s[2], s[3]};
  if (format == "FRACTAL_NZ" && s.size() >= 4) {
    Shape out(s.begin(), s.end() - 4);
    const size_t n = s.size();
    out.push_back(s[n - 3] * s[n - 2]);  // M1 * M0
    out.push_back(s[n - 4] * s[n - 1]);  // N1 * N0
    return out;
  }
  return std::nullopt;
}

}  // namespace

bool has_private_format(std::string_view formats) {
  for (const auto& f : split_formats(formats))
    if (is_private(f)) return true;
  return false;
}

double estimate_flops_with_formats(std::string_view op_type, const std::vector<Shape>& in,
                                   std::string_view in_formats, const std::vector<Shape>& out,
                                   std::string_view out_formats) {
  const auto fin = split_formats(in_formats), fout = split_formats(out_formats);
  if (!has_private_format(in_formats) && !has_private_format(out_formats))
    return estimate_flops(op_type, in, out);
  std::string t(op_type);
  for (char& c : t) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (t.find("conv") != std::string::npos) {
    const auto in5 = with_format(fin, "NC1HWC0"), inz = with_format(fin, "FRACTAL_Z");
    const auto out5 = with_format(fout, "NC1HWC0"), outz = with_format(fout, "FRACTAL_Z");
    auto at = [](const std::vector<Shape>& v, size_t i) -> const Shape* {
      return i < v.size() ? &v[i] : nullptr;
    };
    const Shape *a = nullptr, *b = nullptr, *w = nullptr;
    if (t.find("backpropinput") != std::string::npos) {  // (input_size, w, dy) -> dx
      if (!inz.empty() && !in5.empty() && !out5.empty())
        a = at(out, out5[0]), b = at(in, in5.back()), w = at(in, inz[0]);
    } else if (t.find("backpropfilter") != std::string::npos) {  // (x, filter_size, dy) -> dw
      if (in5.size() >= 2 && !outz.empty())
        a = at(in, in5.front()), b = at(in, in5.back()), w = at(out, outz[0]);
    } else if (!in5.empty() && !inz.empty() && !out5.empty()) {  // (x, w, bias) -> y
      a = at(in, in5[0]), b = at(out, out5[0]), w = at(in, inz[0]);
    }
    return a && b && w ? conv_flops(*a, *b, *w) : kFormatNaN;
  }
  std::vector<Shape> lin, lout;
  for (size_t i = 0; i < in.size(); ++i) {
    auto s = logical(in[i], format_at(fin, i));
    if (!s) return kFormatNaN;
    lin.push_back(std::move(*s));
  }
  for (size_t i = 0; i < out.size(); ++i) {
    auto s = logical(out[i], format_at(fout, i));
    if (!s) return kFormatNaN;
    lout.push_back(std::move(*s));
  }
  return estimate_flops(op_type, lin, lout);
}

}  // namespace cs::top
