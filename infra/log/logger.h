// Leveled logging stamped with simulation time and the module's name:
//   [I 1.234000 us] npu.cmd: CMD_IN full, holding the write
// Levels are set globally and per module; a module setting applies to the
// module and everything below it ("npu" covers "npu.cmd").
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

namespace pccx::log {

enum class level { trace = 0, debug, info, warning, error, off };

std::optional<level> parse_level(const std::string& name);
const char* level_name(level l);

// Process-wide settings; written once at start-up, read by every logger.
class log_config {
 public:
  static log_config& instance();
  void set_default(level l);
  void set_module(const std::string& module, level l);
  void reset();
  level level_for(const std::string& module) const;
  void set_stream(std::ostream* out);  // nullptr: std::cerr
  std::ostream& stream() const;
  // Bumped on every change so loggers can cache their level.
  uint64_t generation() const { return generation_; }
  // Every module a logger was made for, so far: what a module setting can
  // name (it or a prefix of it on a '.' boundary).
  const std::set<std::string>& modules() const { return known_; }
  void note_module(const std::string& module) { known_.insert(module); }

  // Warnings and errors as they were written, for a run's summary and
  // report: the first kKeptNotices in full, the rest only counted.
  struct notice {
    double t_ns;
    level lvl;
    std::string module, text;
  };
  static constexpr std::size_t kKeptNotices = 100;
  void record(const notice& n) {
    ++notice_count_;
    if (notices_.size() < kKeptNotices) notices_.push_back(n);
  }
  const std::vector<notice>& notices() const { return notices_; }
  std::size_t notice_count() const { return notice_count_; }
  void clear_notices() {
    notices_.clear();
    notice_count_ = 0;
  }

 private:
  std::vector<notice> notices_;
  std::size_t notice_count_ = 0;
  uint64_t generation_ = 1;
  level default_ = level::info;
  std::map<std::string, level> modules_;
  std::set<std::string> known_;
  std::ostream* out_ = nullptr;
};

class logger {
 public:
  explicit logger(std::string module);
  const std::string& module() const { return module_; }
  bool enabled(level l) const;
  void write(level l, const std::string& message) const;

 private:
  std::string module_;
  mutable level cached_ = level::info;
  mutable uint64_t cached_generation_ = 0;
};

}  // namespace pccx::log

// Formats the message only when the level is enabled.
#define PCCX_LOG(lg, lvl, expr)                                \
  do {                                                         \
    if ((lg).enabled(::pccx::log::level::lvl)) {               \
      std::ostringstream pccx_log_os_;                         \
      pccx_log_os_ << expr;                                    \
      (lg).write(::pccx::log::level::lvl, pccx_log_os_.str()); \
    }                                                          \
  } while (0)
