#include "runtime/progress.h"

#include <sys/resource.h>

#include <cstdio>
#include <ctime>

namespace cs::runtime {

uint64_t peak_rss_bytes() {
  struct rusage ru {};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<uint64_t>(ru.ru_maxrss) * 1024;  // Linux: kilobytes
}

std::string human_bytes(uint64_t bytes) {
  char buf[32];
  const double b = static_cast<double>(bytes);
  if (b >= 1e9) {
    std::snprintf(buf, sizeof buf, "%.1f GB", b / 1e9);
  } else if (b >= 1e6) {
    std::snprintf(buf, sizeof buf, "%.0f MB", b / 1e6);
  } else if (b >= 1e3) {
    std::snprintf(buf, sizeof buf, "%.0f KB", b / 1e3);
  } else {
    std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(bytes));
  }
  return buf;
}

namespace {
double seconds_of(clockid_t clock) {
  timespec ts{};
  clock_gettime(clock, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}
double process_cpu_seconds() {
  return seconds_of(CLOCK_PROCESS_CPUTIME_ID);
}
}  // namespace

double thread_cpu_seconds() {
  return seconds_of(CLOCK_THREAD_CPUTIME_ID);
}

void PhaseLog::begin(std::string name) {
  name_ = std::move(name);
  start_ = lap_ = std::chrono::steady_clock::now();
  lap_cpu_ = process_cpu_seconds();
}

void PhaseLog::note(const std::string& what, double wall_s, double cpu_s) {
  if (!enabled_) return;
  std::fprintf(stderr, "clusterscope:   %s/%-32s %6.2f s (cpu %.2f s)\n", name_.c_str(),
               what.c_str(), wall_s, cpu_s);
}

void PhaseLog::lap(const char* what) {
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  const double cpu = process_cpu_seconds();
  note(what, std::chrono::duration<double>(now - lap_).count(), cpu - lap_cpu_);
  lap_ = now;
  lap_cpu_ = cpu;
}

double PhaseLog::end(const std::string& detail) {
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  if (enabled_) {
    std::fprintf(stderr, "clusterscope: %-10s %8.2f s  peak RSS %-7s %s\n", name_.c_str(), s,
                 human_bytes(peak_rss_bytes()).c_str(), detail.c_str());
  }
  return s;
}

ProgressBar::ProgressBar(bool enabled, std::string label, int64_t total, uint64_t total_bytes)
    : enabled_(enabled && total > 0),
      label_(std::move(label)),
      total_(total),
      total_bytes_(total_bytes),
      start_(std::chrono::steady_clock::now()),
      last_draw_(start_) {}

void ProgressBar::update(int64_t done, uint64_t done_bytes) {
  if (!enabled_) return;
  auto now = std::chrono::steady_clock::now();
  if (drawn_ && done < total_ && now - last_draw_ < std::chrono::milliseconds(100)) return;
  last_draw_ = now;
  drawn_ = true;
  constexpr int kWidth = 30;
  int filled = static_cast<int>(kWidth * done / total_);
  char bar[kWidth + 1];
  for (int i = 0; i < kWidth; ++i) bar[i] = i < filled ? '#' : '.';
  bar[kWidth] = 0;
  double secs = std::chrono::duration<double>(now - start_).count();
  double rate = secs > 0 ? static_cast<double>(done_bytes) / secs : 0;
  // Time left at the rate so far: by bytes when sizes are known, else by ranks.
  double left = -1;
  if (done_bytes > 0 && total_bytes_ > done_bytes)
    left = secs * static_cast<double>(total_bytes_ - done_bytes) / static_cast<double>(done_bytes);
  else if (done > 0 && total_ > done)
    left = secs * static_cast<double>(total_ - done) / static_cast<double>(done);
  char eta[32] = "";
  if (left >= 0 && done < total_)
    std::snprintf(eta, sizeof eta, "  ETA %d:%02d", static_cast<int>(left) / 60,
                  static_cast<int>(left) % 60);
  std::fprintf(stderr, "\rclusterscope: %s [%s] %lld/%lld ranks  %s of %s  %s/s%s   ",
               label_.c_str(), bar, static_cast<long long>(done), static_cast<long long>(total_),
               human_bytes(done_bytes).c_str(), human_bytes(total_bytes_).c_str(),
               human_bytes(static_cast<uint64_t>(rate)).c_str(), eta);
  std::fflush(stderr);
}

void ProgressBar::finish() {
  if (enabled_ && drawn_) std::fputs("\n", stderr);
  drawn_ = false;
}

}  // namespace cs::runtime
