#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "generator/job/writers.h"

namespace cs::generator {

std::string render_steps_json(
    const RankTimeline& tl, size_t bytes_per_op,
    const std::function<void(io::JsonWriter&, const std::vector<const CommRecord*>&)>& write_ops) {
  std::string out;
  out.reserve(tl.comms.size() * bytes_per_op + 64);
  io::JsonWriter w(&out, io::JsonStyle::python());
  w.begin_object();
  for (int s = 0; s < static_cast<int>(tl.steps.size()); ++s) {
    std::vector<const CommRecord*> coll, p2p;
    for (const auto& c : tl.comms)
      if (c.step == s) (is_p2p(c.kind) ? p2p : coll).push_back(&c);
    w.key("step" + std::to_string(s + 1));
    w.begin_object();
    w.key("collective");
    write_ops(w, coll);
    w.key("p2p");
    write_ops(w, p2p);
    w.end_object();
  }
  w.end_object();
  return out;
}

namespace {
void append_uint(std::string& out, uint64_t v) {
  char buf[24];
  int n = 0;
  do {
    buf[n++] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v);
  while (n) out.push_back(buf[--n]);
}
}  // namespace

void append_num3(std::string& out, double v) {
  if (!std::isfinite(v)) {
    out += "N/A";
    return;
  }
  const bool negative = v < 0;
  auto milli = static_cast<uint64_t>(std::llround((negative ? -v : v) * 1000.0));
  if (negative && milli != 0) out.push_back('-');
  append_uint(out, milli / 1000);
  unsigned frac = static_cast<unsigned>(milli % 1000);
  if (frac == 0) return;
  char d[4] = {static_cast<char>('0' + frac / 100), static_cast<char>('0' + frac / 10 % 10),
               static_cast<char>('0' + frac % 10), 0};
  int len = 3;
  while (d[len - 1] == '0') --len;
  out.push_back('.');
  out.append(d, static_cast<size_t>(len));
}

void append_abs_us(std::string& out, int64_t base_us, double rel_us) {
  int64_t ns = abs_ns(base_us, rel_us);
  append_uint(out, static_cast<uint64_t>(ns / 1000));
  unsigned frac = static_cast<unsigned>(ns % 1000);
  out.push_back('.');
  out.push_back(static_cast<char>('0' + frac / 100));
  out.push_back(static_cast<char>('0' + frac / 10 % 10));
  out.push_back(static_cast<char>('0' + frac % 10));
}

bool write_text_file(const std::string& path, const std::string& text, io::Diagnostics& diag) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) {
    diag.error(path, 0, std::string("cannot create file: ") + std::strerror(errno),
               "check that the output directory is writable and the disk is not full");
    return false;
  }
  bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  ok = (std::fclose(f) == 0) && ok;
  if (!ok)
    diag.error(path, 0, std::string("write failed: ") + std::strerror(errno),
               "check free disk space and retry");
  return ok;
}

}  // namespace cs::generator
