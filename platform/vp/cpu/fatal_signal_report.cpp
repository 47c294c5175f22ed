#include "platform/vp/cpu/fatal_signal_report.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#if defined(__SANITIZE_ADDRESS__)
#define PCCX_HAS_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PCCX_HAS_ASAN 1
#endif
#endif

namespace pccx::vp {

#ifndef PCCX_HAS_ASAN
namespace {

constexpr int kSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
constexpr size_t kSignalCount = sizeof kSignals / sizeof kSignals[0];

// Everything the handler touches is prepared beforehand: it may only call
// async-signal-safe functions.
char g_firmware[512];
const firmware_activity* g_cpu = nullptr;
std::vector<char> g_alt_stack;
struct sigaction g_previous[kSignalCount];
sigjmp_buf* volatile g_recovery = nullptr;
volatile sig_atomic_t g_recovered_signal = 0;
volatile uintptr_t g_recovered_address = 0;

// A tiny formatter over a fixed buffer (no malloc, no stdio).
struct line {
  char buf[1024];
  size_t n = 0;
  void put(const char* s) {
    while (*s && n + 1 < sizeof buf) buf[n++] = *s++;
  }
  void put_uint(uint64_t v) {
    char digits[24];
    int k = 0;
    do {
      digits[k++] = static_cast<char>('0' + v % 10);
      v /= 10;
    } while (v);
    while (k && n + 1 < sizeof buf) buf[n++] = digits[--k];
  }
  void put_hex(uint64_t v) {
    put("0x");
    char digits[16];
    int k = 0;
    do {
      digits[k++] = "0123456789abcdef"[v & 15];
      v >>= 4;
    } while (v);
    while (k && n + 1 < sizeof buf) buf[n++] = digits[--k];
  }
};

const char* describe(int sig) {
  switch (sig) {
    case SIGSEGV: return "SIGSEGV (invalid memory access";
    case SIGBUS: return "SIGBUS (bus error";
    case SIGFPE: return "SIGFPE (arithmetic fault, e.g. integer division by zero";
    case SIGILL: return "SIGILL (illegal instruction";
    case SIGABRT: return "SIGABRT (abort() called";
    default: return "fatal signal (";
  }
}

void on_fatal_signal(int sig, siginfo_t* info, void*) {
  // Firmware code faulted on its own thread: back to the entry's caller.
  if (g_recovery && g_cpu && g_cpu->in_firmware()) {
    g_recovered_signal = sig;
    g_recovered_address = reinterpret_cast<uintptr_t>(info->si_addr);
    sigjmp_buf* point = g_recovery;
    g_recovery = nullptr;
    siglongjmp(*point, 1);
  }
  line l;
  l.put("pccx-vp: simulation failed: ");
  l.put(describe(sig));
  if (sig == SIGSEGV || sig == SIGBUS) {
    l.put(" at address ");
    l.put_hex(reinterpret_cast<uintptr_t>(info->si_addr));
  }
  l.put(") while running the firmware ");
  l.put(g_firmware);
  if (g_cpu) {
    if (!g_cpu->started.load(std::memory_order_relaxed))
      l.put(" before the firmware started");
    else if (!g_cpu->in_firmware())
      l.put(", inside a platform call (HAL or host memory: e.g. a bad buffer pointer passed in)");
    else
      l.put(", in firmware code");
    l.put("; ");
    l.put_uint(g_cpu->hal_calls.load(std::memory_order_relaxed));
    l.put(" HAL calls so far, the last at simulated time ");
    l.put_uint(g_cpu->last_sim_ns.load(std::memory_order_relaxed));
    l.put(" ns");
  }
  l.put(". No outputs were written.\n");
  ssize_t ignored = write(STDERR_FILENO, l.buf, l.n);
  (void)ignored;
  _exit(1);
}

}  // namespace
#endif

void fatal_signal_report::set_recovery_point(sigjmp_buf* point) {
#ifndef PCCX_HAS_ASAN
  g_recovery = point;
#else
  (void)point;
#endif
}

std::string fatal_signal_report::recovered_fault() {
#ifndef PCCX_HAS_ASAN
  line l;
  l.put(describe(g_recovered_signal));
  if (g_recovered_signal == SIGSEGV || g_recovered_signal == SIGBUS) {
    l.put(" at address ");
    l.put_hex(g_recovered_address);
  }
  l.put(")");
  return std::string(l.buf, l.n);
#else
  return "a fatal signal";
#endif
}

std::string fatal_signal_report::signal_name(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  return abbrev ? "SIG" + std::string(abbrev) : "signal " + std::to_string(sig);
}

bool fatal_signal_report::ends_process(int sig) {
  struct sigaction now {};
  if (sigaction(sig, nullptr, &now) != 0) return false;
  if (now.sa_handler == SIG_IGN) return false;
  if (now.sa_handler != SIG_DFL)
#ifndef PCCX_HAS_ASAN
    return (now.sa_flags & SA_SIGINFO) && now.sa_sigaction == on_fatal_signal;
#else
    return false;
#endif
  switch (sig) {  // the signals whose default action is to ignore or stop
    case SIGCHLD:
    case SIGURG:
    case SIGWINCH:
    case SIGCONT:
    case SIGSTOP:
    case SIGTSTP:
    case SIGTTIN:
    case SIGTTOU: return false;
    default: return true;
  }
}

fatal_signal_report::fatal_signal_report(const std::string& firmware_name,
                                         const firmware_activity& cpu) {
#ifdef PCCX_HAS_ASAN
  (void)firmware_name;
  (void)cpu;
#else
  std::strncpy(g_firmware, firmware_name.c_str(), sizeof g_firmware - 1);
  g_firmware[sizeof g_firmware - 1] = '\0';
  g_cpu = &cpu;
  g_alt_stack.assign(std::max<size_t>(SIGSTKSZ, 64 * 1024), 0);
  stack_t ss{};
  ss.ss_sp = g_alt_stack.data();
  ss.ss_size = g_alt_stack.size();
  sigaltstack(&ss, nullptr);
  struct sigaction sa {};
  sa.sa_sigaction = on_fatal_signal;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  for (size_t i = 0; i < kSignalCount; ++i) sigaction(kSignals[i], &sa, &g_previous[i]);
  armed_ = true;
#endif
}

fatal_signal_report::~fatal_signal_report() {
#ifndef PCCX_HAS_ASAN
  if (!armed_) return;
  for (size_t i = 0; i < kSignalCount; ++i) sigaction(kSignals[i], &g_previous[i], nullptr);
  g_cpu = nullptr;
#endif
}

}  // namespace pccx::vp
