#include "report/html_out.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "io/markup_escape.h"
#include "io/output_file.h"

namespace cs::report {

std::string html_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 8);
  io::append_markup_escaped(
      out, s, io::MarkupEscape{.quote = true, .apostrophe = true, .drop_controls = true});
  return out;
}

std::string attr(std::string_view name, std::string_view value) {
  std::string out = " ";
  out += name;
  out += "=\"";
  out += html_escape(value);
  out += '"';
  return out;
}

std::string attr(std::string_view name, double value) {
  if (!std::isfinite(value)) value = 0;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f", value);
  std::string v = buf;
  if (v.find('.') != std::string::npos) {
    while (!v.empty() && v.back() == '0') v.pop_back();
    if (!v.empty() && v.back() == '.') v.pop_back();
  }
  if (v == "-0") v = "0";
  std::string out = " ";
  out += name;
  out += "=\"";
  out += v;
  out += '"';
  return out;
}

void HtmlOut::open(std::string_view tag, std::string_view attrs) {
  out_ += '<';
  out_ += tag;
  out_ += attrs;
  out_ += '>';
  stack_.emplace_back(tag);
}

void HtmlOut::close() {
  if (stack_.empty()) return;
  out_ += "</";
  out_ += stack_.back();
  out_ += '>';
  stack_.pop_back();
}

void HtmlOut::close_to(size_t d) {
  while (stack_.size() > d) close();
}

void HtmlOut::empty(std::string_view tag, std::string_view attrs) {
  out_ += '<';
  out_ += tag;
  out_ += attrs;
  out_ += "/>";
}

void HtmlOut::element(std::string_view tag, std::string_view attrs, std::string_view text) {
  open(tag, attrs);
  out_ += html_escape(text);
  close();
}

void HtmlOut::text(std::string_view s) {
  out_ += html_escape(s);
}

std::string HtmlOut::finish() {
  close_to(0);
  return std::move(out_);
}

bool write_text_file(const std::string& path, std::string_view content, io::Diagnostics& diag) {
  return io::write_output_text(path, content, diag);
}

}  // namespace cs::report
