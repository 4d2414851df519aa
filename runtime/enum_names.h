#pragma once
// One string <-> enum table per command-line choice (-m, --format, --group-by, --order-by,
// --data-type, --export-type, top's --aggregate-by/--aggregate/--order-by): parsing, printing
// and the "valid: ..." list of an error all read the same table, so they cannot drift apart.
//
//   constexpr std::array<EnumName<Color>, 2> kColorNames{{{"red", Color::kRed},
//                                                         {"blue", Color::kBlue}}};
//   enum_from_name(kColorNames, "red")  -> Color::kRed
//   enum_to_name(kColorNames, Color::kBlue) -> "blue"
//   unknown_value("color", "green", enum_names(kColorNames))
//     -> "unknown color 'green' — valid: red, blue"

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace cs::runtime {

template <class E>
struct EnumName {
  std::string_view name;
  E value;
};

// The value `text` names, nullopt when the table has no such name (names are case-sensitive).
template <class E, size_t N>
std::optional<E> enum_from_name(const std::array<EnumName<E>, N>& table, std::string_view text) {
  for (const EnumName<E>& e : table)
    if (e.name == text) return e.value;
  return std::nullopt;
}

// The name of `value` (the first one when it has several); "" when the table lacks it.
template <class E, size_t N>
std::string_view enum_to_name(const std::array<EnumName<E>, N>& table, E value) {
  for (const EnumName<E>& e : table)
    if (e.value == value) return e.name;
  return {};
}

// Every name of the table in its order, ", "-separated: "all, json, csv, hdf5, html".
template <class E, size_t N>
std::string enum_names(const std::array<EnumName<E>, N>& table) {
  std::string out;
  for (const EnumName<E>& e : table) {
    if (!out.empty()) out += ", ";
    out += e.name;
  }
  return out;
}

// The one wording of a wrong choice: "unknown format 'cvs' — valid: all, json, csv, hdf5, html".
inline std::string unknown_value(std::string_view what, std::string_view text,
                                 std::string_view valid) {
  std::string out = "unknown ";
  out += what;
  out += " '";
  out += text;
  out += "' \u2014 valid: ";
  out += valid;
  return out;
}

}  // namespace cs::runtime
