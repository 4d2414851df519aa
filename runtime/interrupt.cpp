#include "runtime/interrupt.h"

#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>

namespace cs::runtime {

namespace {

volatile std::sig_atomic_t g_signal = 0;
std::atomic<bool> g_acting{false};
std::mutex g_action_mu;
std::function<void(int)> g_action;

extern "C" void on_signal(int sig) {
  if (g_signal == 0) g_signal = sig;
}

// CLUSTERSCOPE_TEST_INTERRUPT=<stage>[:TERM]: the signal to raise at `stage`, or 0.
// wait:<stage>: at `stage`, one line on stderr, then wait (at most 120 s) for a real signal.
int test_hook_signal(std::string_view stage) {
  const char* env = std::getenv("CLUSTERSCOPE_TEST_INTERRUPT");
  if (!env || !*env) return 0;
  std::string_view spec(env);
  if (spec.starts_with("wait:")) {
    if (spec.substr(5) != stage) return 0;
    static std::atomic<bool> said{false};
    if (!said.exchange(true))
      std::fprintf(stderr, "clusterscope: test hook: waiting for a signal at %s\n",
                   std::string(stage).c_str());
    for (int i = 0; i < 12000 && g_signal == 0; ++i) ::usleep(10000);
    return 0;
  }
  int sig = SIGINT;
  if (spec.ends_with(":TERM")) {
    sig = SIGTERM;
    spec.remove_suffix(5);
  }
  return spec == stage ? sig : 0;
}

}  // namespace

void install_interrupt_handlers() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction sa = {};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    for (int sig : {SIGINT, SIGTERM}) {
      // A signal ignored at startup (nohup, a background job of a script) stays ignored.
      struct sigaction old = {};
      if (sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;
      sigaction(sig, &sa, nullptr);
    }
  });
}

int pending_interrupt() {
  return static_cast<int>(g_signal);
}

int interrupt_exit_code(int sig) {
  return 128 + sig;
}

const char* interrupt_signal_name(int sig) {
  if (sig == SIGINT) return "SIGINT";
  if (sig == SIGTERM) return "SIGTERM";
  return "a signal";
}

void set_interrupt_action(std::function<void(int sig)> action) {
  std::lock_guard<std::mutex> lock(g_action_mu);
  g_action = std::move(action);
}

void interrupt_checkpoint(std::string_view stage) {
  if (const int sig = test_hook_signal(stage)) std::raise(sig);
  const int sig = pending_interrupt();
  if (sig == 0) return;
  if (g_acting.exchange(true)) {
    while (true) ::pause();  // another thread is ending the process
  }
  std::function<void(int)> action;
  {
    std::lock_guard<std::mutex> lock(g_action_mu);
    action = g_action;
  }
  if (action) action(sig);
  std::_Exit(interrupt_exit_code(sig));
}

}  // namespace cs::runtime
