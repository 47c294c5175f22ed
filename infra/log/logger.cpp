#include "infra/log/logger.h"

#include <cstdio>
#include <iomanip>
#include <iostream>
#include <systemc>

namespace pccx::log {

namespace {
constexpr const char* kNames[] = {"trace", "debug", "info", "warning", "error", "off"};
constexpr char kLetters[] = {'T', 'D', 'I', 'W', 'E', '-'};
}  // namespace

std::optional<level> parse_level(const std::string& name) {
  for (int i = 0; i <= static_cast<int>(level::off); ++i)
    if (name == kNames[i]) return static_cast<level>(i);
  return std::nullopt;
}

const char* level_name(level l) {
  return kNames[static_cast<int>(l)];
}

log_config& log_config::instance() {
  static log_config cfg;
  return cfg;
}

void log_config::set_default(level l) {
  default_ = l;
  ++generation_;
}
void log_config::set_module(const std::string& module, level l) {
  modules_[module] = l;
  ++generation_;
}
void log_config::reset() {
  ++generation_;
  default_ = level::info;
  modules_.clear();
  out_ = nullptr;
}
void log_config::set_stream(std::ostream* out) {
  out_ = out;
}
std::ostream& log_config::stream() const {
  return out_ ? *out_ : std::cerr;
}

level log_config::level_for(const std::string& module) const {
  // Longest matching prefix on a '.' boundary wins.
  std::string name = module;
  for (;;) {
    auto it = modules_.find(name);
    if (it != modules_.end()) return it->second;
    auto dot = name.rfind('.');
    if (dot == std::string::npos) return default_;
    name.resize(dot);
  }
}

logger::logger(std::string module) : module_(std::move(module)) {
  log_config::instance().note_module(module_);
}

bool logger::enabled(level l) const {
  const auto& cfg = log_config::instance();
  if (cached_generation_ != cfg.generation()) {
    cached_ = cfg.level_for(module_);
    cached_generation_ = cfg.generation();
  }
  return l != level::off && l >= cached_;
}

void logger::write(level l, const std::string& message) const {
  const double us = sc_core::sc_time_stamp().to_seconds() * 1e6;
  char stamp[48];
  std::snprintf(stamp, sizeof stamp, "[%c %.6f us] ", kLetters[static_cast<int>(l)], us);
  log_config::instance().stream() << stamp << module_ << ": " << message << '\n';
  if (l >= level::warning) log_config::instance().record({us * 1e3, l, module_, message});
}

}  // namespace pccx::log
