#include "models/npu/core/driver_lint.h"

#include "infra/text/hex.h"

namespace pccx::npu {

namespace {
// A driver loop repeats its mistake per token: the log shows the first few
// of each code, the counts hold them all.
constexpr uint64_t kLoggedPerCode = 8;
}  // namespace

const char* lint_code_name(lint_code c) {
  switch (c) {
    case lint_code::route_bug: return "WARN_ROUTE_BUG";
    case lint_code::l2_uninitialised: return "WARN_L2_UNINITIALISED";
    case lint_code::result_no_descriptor: return "WARN_RESULT_NO_DESCRIPTOR";
    case lint_code::host_move_no_descriptor: return "WARN_HOST_MOVE_NO_DESCRIPTOR";
    case lint_code::issue_after_timeout: return "WARN_ISSUE_AFTER_SYNC_TIMEOUT";
    case lint_code::lanes_ignored: return "WARN_LANES_IGNORED";
    case lint_code::flags_ignored: return "WARN_FLAGS_IGNORED";
    case lint_code::lanes_mask: return "WARN_LANES_MASK";
    case lint_code::shape_upstream: return "WARN_SHAPE_UPSTREAM";
    case lint_code::cvo_length_passes: return "WARN_CVO_LENGTH_PASSES";
    case lint_code::count: break;
  }
  return "WARN_UNKNOWN";
}

bool lint_is_conformance(lint_code c) {
  return c == lint_code::lanes_mask || c == lint_code::shape_upstream ||
         c == lint_code::cvo_length_passes || c == lint_code::lanes_ignored;
}

std::string lint_warning::text() const {
  return std::string(lint_code_name(code)) + ": #" + std::to_string(seq) + " " +
         text::hex_word(word) + (disasm.empty() ? "" : " (" + disasm + ")") + ": " + cause;
}

driver_lint::driver_lint(std::string name, lint_mode mode, const isa::decode_limits& limits,
                         bool track_l2)
    : mode_(mode),
      limits_(limits),
      track_l2_(track_l2 && mode != lint_mode::off),
      log_(std::move(name)) {
  if (track_l2_) written_.assign(limits.l2_words, false);
}

void driver_lint::report(lint_code code, uint64_t seq, uint64_t word, const std::string& cause) {
  if (mode_ == lint_mode::off) return;
  const auto k = static_cast<size_t>(code);
  ++counts_[k];
  ++total_;
  // A warning repeated per token is only counted: no text is made for it.
  const bool logged = counts_[k] <= kLoggedPerCode && log_.enabled(log::level::warning);
  if (!logged && !warnings.connected()) return;
  lint_warning w{code, cause, seq, word, isa::disassemble(word, limits_),
                 sc_core::sc_time_stamp()};
  if (logged) log_.write(log::level::warning, w.text());
  if (counts_[k] == kLoggedPerCode)
    PCCX_LOG(log_, warning, "further " << lint_code_name(code)
                                       << " warnings are counted, not shown");
  if (warnings.connected()) warnings.write(w);
}

void driver_lint::mark_written(const isa::l2_range& r) {
  if (!track_l2_) return;
  const uint64_t end = std::min<uint64_t>(uint64_t{r.first} + r.words, written_.size());
  for (uint64_t a = r.first; a < end; ++a) written_[a] = true;
}

std::optional<uint32_t> driver_lint::first_unwritten(const isa::l2_range& r) const {
  if (!track_l2_) return std::nullopt;
  const uint64_t end = std::min<uint64_t>(uint64_t{r.first} + r.words, written_.size());
  for (uint64_t a = r.first; a < end; ++a)
    if (!written_[a]) return static_cast<uint32_t>(a);
  return std::nullopt;
}

}  // namespace pccx::npu
