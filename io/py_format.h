#pragma once
// Number formatting exactly as Python prints it, so files msprof-analyze writes with
// json.dump / csv / pandas can be reproduced byte for byte.

#include <cstdint>
#include <string>
#include <string_view>

namespace cs::io {

// A JSON number as the producer wrote it: Python keeps `0` an int and `0.0` a float, and
// prints them differently, so pass-through values remember which they were.
struct Num {
  double v = 0.0;
  bool is_int = false;

  static Num integer(int64_t i) { return {static_cast<double>(i), true}; }
  static Num real(double d) { return {d, false}; }
  // Python semantics of a + b: int only when both are ints.
  friend Num operator+(Num a, Num b) { return {a.v + b.v, a.is_int && b.is_int}; }
  Num& operator+=(Num b) { return *this = *this + b; }
};

// repr(float) in Python 3: shortest round-trip digits; fixed notation for 1e-4 <= |x| < 1e16
// ("0.0001", "1234.5", "1.0"), else scientific with a two-digit minimum exponent ("1e-05",
// "1.5e+16"). NaN and infinities are written as Python's json module writes them: "NaN",
// "Infinity", "-Infinity". Example: py_repr(0.1 + 0.2) == "0.30000000000000004".
std::string py_repr(double x);
void append_py_repr(std::string& out, double x);

// A Num as Python prints it: ints without a decimal point, floats with py_repr.
void append_py_num(std::string& out, Num n);

// round(x, ndigits) in Python: correctly rounded half-to-even on the exact binary value.
// Example: py_round(2.675, 2) == 2.67 (the binary value is below 2.675).
double py_round(double x, int ndigits);

// Shortest round-trip text for x, plain C locale ("%.17g" quality without trailing noise):
// used by clusterscope's own CSV files. Integers print without ".0" ("3"), others as "0.25".
std::string shortest(double x);
void append_shortest(std::string& out, double x);

}  // namespace cs::io
