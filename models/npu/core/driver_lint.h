// The driver lint: warnings for legal but suspicious driver behaviour, each
// with a code, a one-line cause and the instruction that triggered it, the
// way a memory checker or a protocol checker reports on a bus it watches.
// The same sink takes the places where an upstream pccx artefact departs
// from the platform's strict reading and the platform runs it anyway
// (docs/reference/spec-decisions.md); a strict run refuses those instead.
//
// The sink also keeps the L2's initialisation map: which words an
// instruction has written since reset. The command processor marks each
// instruction's write ranges and checks its read ranges when it dispatches,
// after older writers to those words have retired, so program order is what
// counts, not the units' internal timing.
//
// simulation.lint decides what a warning does: off (nothing), warn (log it
// and tell the subscribers), error (also end the run, done by the platform
// on the `warnings` port).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <systemc>
#include <vector>

#include "infra/log/logger.h"
#include "infra/trace/analysis_port.h"
#include "models/npu/isa/instruction.h"
#include "models/npu/npu_config.h"

namespace pccx::npu {

// Every warning the platform can raise; docs/reference/errors.md lists them
// with what a driver does about each.
enum class lint_code : uint8_t {
  route_bug,     // L2->host MEMCPY with a nonzero dest: the upstream route bug
  l2_uninitialised,       // an engine reads L2 words never written since reset
  result_no_descriptor,   // a MEMCPY fills ACP_RESULT with no descriptor waiting
  host_move_no_descriptor,// a host->L2 MEMCPY with nothing queued on ACP_FMAP
  issue_after_timeout,    // instructions issued after a uca_sync that timed out
  lanes_ignored,          // parallel_lane bits the engine does not use
  flags_ignored,          // flag bits the engine does not use
  lanes_mask,             // GEMV lanes read as a core mask (upstream API docs)
  shape_upstream,         // GEMM/GEMV extents read the RTL's way (upstream smoke program)
  cvo_length_passes,      // a CVO longer than the SFU's limit runs in passes
  count
};
const char* lint_code_name(lint_code c);  // "WARN_ROUTE_BUG", ...
// Whether the warning reports an upstream departure that --strict refuses.
bool lint_is_conformance(lint_code c);

using config::lint_mode;

struct lint_warning {
  lint_code code = lint_code::count;
  std::string cause;    // one line
  uint64_t seq = 0;     // the instruction's place in the command stream
  uint64_t word = 0;    // the instruction word
  std::string disasm;   // the word, disassembled
  sc_core::sc_time at;  // simulated time of the warning
  std::string text() const;  // "WARN_X: #4 0x...(MEMCPY ...): cause"
};

class driver_lint {
 public:
  // limits: for the disassembly in each warning; track_l2: keep the L2
  // initialisation map (functional mode).
  driver_lint(std::string name, lint_mode mode, const isa::decode_limits& limits, bool track_l2);

  lint_mode mode() const { return mode_; }
  bool enabled() const { return mode_ != lint_mode::off; }
  // Raises one warning (nothing when off).
  void report(lint_code code, uint64_t seq, uint64_t word, const std::string& cause);

  // What the platform tells the lint about the rest of the system: whether
  // a DMA channel has a descriptor queued or running (or, for ACP_FMAP,
  // bytes already in its FIFO); unset, nothing is assumed missing.
  std::function<bool(unsigned channel)> channel_has_work;
  bool channel_idle(unsigned channel) const {
    return channel_has_work && !channel_has_work(channel);
  }
  // A uca_sync (the HAL's wait for idle) ended: timed out or not. The next
  // instruction after a timeout is reported, once.
  void sync_ended(bool timed_out) { sync_timed_out_ = timed_out; }
  bool take_sync_timeout() {
    const bool t = sync_timed_out_;
    sync_timed_out_ = false;
    return t;
  }

  // L2 initialisation (only when tracking: functional mode with the lint on).
  bool tracks_l2() const { return track_l2_; }
  void mark_written(const isa::l2_range& r);
  // The first word of r never written since reset, if any.
  std::optional<uint32_t> first_unwritten(const isa::l2_range& r) const;

  uint64_t count(lint_code c) const { return counts_[static_cast<size_t>(c)]; }
  uint64_t total() const { return total_; }

  // Every warning as it is raised (the platform ends the run on it in error mode).
  trace::analysis_port<lint_warning> warnings;

 private:
  lint_mode mode_;
  isa::decode_limits limits_;
  bool track_l2_;
  bool sync_timed_out_ = false;
  std::vector<bool> written_;  // one bit per L2 word
  uint64_t counts_[static_cast<size_t>(lint_code::count)] = {};
  uint64_t total_ = 0;
  log::logger log_;
};

}  // namespace pccx::npu
