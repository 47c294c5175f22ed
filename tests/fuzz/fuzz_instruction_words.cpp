// libFuzzer harness: 64-bit instruction words written as INSTR_LO/INSTR_HI
// through the interconnect into the NPU register bank, interleaved with
// reads and writes of arbitrary offsets of the register window, waits, and
// error handling as firmware does it (docs/guides/firmware.md section 8): wait for
// idle-or-error, read STATUS/ERR_CODE, clear a latched error (STATUS bit 2)
// and go on. The platform is elaborated once (fuzz_platform.h).
//
// Input: a sequence of operations, one selector byte each:
//   0..3  push the next 8 bytes as an instruction word (little endian)
//   4     read a register: offset (2 bytes, in the 4 KiB window), size
//   5     write a register: offset (2 bytes), size, value (4 bytes)
//   6     wait for idle-or-error, check, clear a latched error
//   7     let the NPU run for (next byte) x 20 ns
// After the last operation the harness waits the NPU idle, clearing errors,
// and brings the DMA channels to rest.
//
// Shapes are bounded so every input ends in bounded time: MEMSET values
// written to the shape banks keep 6 bits (extents 0..63), which keeps every
// GEMV/GEMM/MEMCPY small while still reaching the zero-extent and range
// checks. The harness plays DMA driver while the NPU waits for stream
// bytes: it feeds the read channels and drains ACP_RESULT.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

#include "fuzz_platform.h"
#include "pccx_isa.h"
#include "pccx_npu_regs.h"
#include "uCA_v1_api.h"

namespace {

using pccx::fuzz::fuzz_platform;
using sc_core::SC_NS;
using sc_core::sc_time;
using sc_core::SC_US;

const char* const kName = "fuzz_instruction_words";
constexpr size_t kMaxOps = 96;                   // operations taken from one input
const sc_time kSettle(2000, SC_US);              // longest wait for idle-or-error
const sc_time kInputBound(200, sc_core::SC_MS);  // simulated time one input may take
constexpr uint64_t kFeedOffset = 0x10000;        // DDR bytes the harness streams from
constexpr uint64_t kDrainOffset = 0x80000;       // DDR bytes ACP_RESULT writes to

[[noreturn]] void violated(const std::string& what) {
  pccx::fuzz::violated(kName, what);
}

std::string hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

// Words accepted into CMD_IN since the process started (ISSUED must match).
uint64_t g_pushed = 0;

class driver {
 public:
  driver(fuzz_platform& p, const uint8_t* data, size_t size) : p_(p), data_(data), size_(size) {}

  void run() {
    for (size_t ops = 0; ops < kMaxOps && pos_ < size_; ++ops) {
      const uint8_t sel = take8();
      switch (sel % 8) {
        case 0:
        case 1:
        case 2:
        case 3: push(bound_shapes(take64())); break;
        case 4: random_read(); break;
        case 5: random_write(); break;
        case 6: settle(); break;
        default: run_for(sc_time(20.0 * take8(), SC_NS)); break;
      }
      check_status_alone();
    }
    quiesce();
  }

 private:
  uint8_t take8() { return pos_ < size_ ? data_[pos_++] : 0; }
  uint16_t take16() { return static_cast<uint16_t>(take8() | take8() << 8); }
  uint32_t take32() { return take16() | static_cast<uint32_t>(take16()) << 16; }
  uint64_t take64() { return take32() | static_cast<uint64_t>(take32()) << 32; }

  static uint64_t bound_shapes(uint64_t w) {
    if ((w >> 60) != UCA_OP_MEMSET) return w;
    const uint64_t cache = (w >> PCCX_MS_CACHE_LSB) & 3u;
    if (cache > 1) return w;  // constant banks carry BF16 scales, not extents
    const uint64_t keep = 0x3Fu;
    const uint64_t mask = (((1ull << PCCX_MS_VALUE_W) - 1) & ~keep);
    return w & ~((mask << PCCX_MS_A_LSB) | (mask << PCCX_MS_B_LSB) | (mask << PCCX_MS_C_LSB));
  }

  // Consistency of one STATUS read (the only register read at one instant).
  uint32_t check_status_alone() {
    const uint32_t s = p_.read(UCA_REG_STATUS);
    if (s & ~0xFu) violated("STATUS has undefined bits set: " + hex(s));
    if ((s & UCA_STAT_DONE) && (s & UCA_STAT_BUSY)) violated("STATUS shows DONE and BUSY");
    if ((s & PCCX_STAT_CMD_FULL) && !(s & UCA_STAT_BUSY))
      violated("STATUS shows CMD_FULL without BUSY");
    return s;
  }

  // Firmware's push: never write INSTR_HI into a full CMD_IN while an error
  // is latched (issue has stopped, the write would be held for good).
  void make_room() {
    for (int i = 0; i < 64; ++i) {
      const uint32_t s = p_.read(UCA_REG_STATUS);
      if (!(s & PCCX_STAT_CMD_FULL)) return;
      settle();
    }
    violated("CMD_IN stays full although errors were cleared");
  }

  void push(uint64_t word) {
    make_room();
    p_.write(UCA_REG_INSTR_LO, static_cast<uint32_t>(word));
    p_.write(UCA_REG_INSTR_HI, static_cast<uint32_t>(word >> 32));
    ++g_pushed;
  }

  // Unaligned offsets and sizes other than 4 reach the bus errors.
  unsigned take_length() {
    static const unsigned kLengths[4] = {4, 4, 1, 8};
    return kLengths[take8() % 4];
  }

  static bool readable(uint32_t off) {
    if (off >= UCA_REG_STATUS && off <= PCCX_REG_ISSUED_HI) return true;
    if (off == PCCX_REG_ID || off == PCCX_REG_VERSION) return true;
    return off >= PCCX_REG_PERF_BASE && off < PCCX_REG_PERF_LO(PCCX_PERF_COUNT);
  }

  void random_read() {
    const uint32_t off = take16() & (PCCX_NPU_REGS_SIZE - 1);
    const unsigned len = take_length();
    uint32_t v = 0;
    const auto r = p_.access(tlm::TLM_READ_COMMAND, off, v, len);
    if (r == tlm::TLM_INCOMPLETE_RESPONSE) violated("read left INCOMPLETE at " + hex(off));
    const bool ok = r == tlm::TLM_OK_RESPONSE;
    if (len == 4 && off % 4 == 0 && readable(off) && !ok)
      violated("read of readable register " + hex(off) + " refused");
    if ((len != 4 || off % 4 != 0) && ok) violated("misaligned read accepted at " + hex(off));
    if (!ok) return;
    if (off == PCCX_REG_ID && v != PCCX_NPU_ID) violated("ID reads " + hex(v));
    if (off == PCCX_REG_VERSION && v != PCCX_NPU_VERSION) violated("VERSION reads " + hex(v));
    if (off == PCCX_REG_ERR_CODE && v > PCCX_ERR_DMA_ADDRESS)
      violated("ERR_CODE outside 0x00..0x0D: " + hex(v));
  }

  void random_write() {
    const uint32_t off = take16() & (PCCX_NPU_REGS_SIZE - 1);
    const unsigned len = take_length();
    uint32_t v = take32();
    // A write that may reach INSTR_HI must find room in CMD_IN first.
    if ((off & ~3u) == UCA_REG_INSTR_HI) make_room();
    const auto r = p_.access(tlm::TLM_WRITE_COMMAND, off, v, len);
    if (r == tlm::TLM_INCOMPLETE_RESPONSE) violated("write left INCOMPLETE at " + hex(off));
    const bool ok = r == tlm::TLM_OK_RESPONSE;
    if ((len != 4 || off % 4 != 0) && ok) violated("misaligned write accepted at " + hex(off));
    if (ok && off != UCA_REG_INSTR_LO && off != UCA_REG_INSTR_HI && off != UCA_REG_STATUS)
      violated("write to read-only or unmapped offset " + hex(off) + " accepted");
    if (ok && off == UCA_REG_INSTR_HI) ++g_pushed;
  }

  void run_for(const sc_time& t) {
    const sc_time end = sc_core::sc_time_stamp() + t;
    while (sc_core::sc_time_stamp() < end) {
      feed_dma();
      sc_core::wait(std::min(sc_time(1, SC_US), end - sc_core::sc_time_stamp()));
    }
  }

  // The harness as DMA driver while the NPU runs: one descriptor at a time
  // per channel, only when the FIFO has room for all of it, so every
  // descriptor completes; ACP_RESULT moves what MEMCPY left in its FIFO.
  void feed_dma() {
    auto& top = p_.top();
    for (unsigned ch = 0; ch < PCCX_DMA_CHANNELS; ++ch) {
      auto& dma = *top.dma[ch];
      auto& fifo = top.fifo(ch);
      while (p_.read(fuzz_platform::dma_reg(ch, PCCX_DMA_REG_STS_LVL)) > 0)
        (void)p_.read(fuzz_platform::dma_reg(ch, PCCX_DMA_REG_STS_POP));
      if (dma.busy()) continue;
      const bool to_ddr = dma.params().direction == pccx::mem::dma_direction::stream_to_ddr;
      if (to_ddr) {
        const uint64_t n = std::min<uint64_t>(fifo.level() & ~15ull, 512);
        if (n > 0) p_.dma_submit(ch, p_.ddr_base() + kDrainOffset, static_cast<uint32_t>(n), 0);
      } else {
        const uint64_t n = ch <= PCCX_DMA_HP3 ? 4096 : 256;
        if (fifo.free_space() >= n)
          p_.dma_submit(ch, p_.ddr_base() + kFeedOffset, static_cast<uint32_t>(n), 0);
      }
    }
  }

  // Waits for idle-or-error (feeding DMA meanwhile); on an error checks the
  // error registers and clears it. Returns STATUS after that.
  uint32_t settle() {
    const sc_time end = sc_core::sc_time_stamp() + kSettle;
    while (!p_.top().cpu.npu_irq.read() && sc_core::sc_time_stamp() < end) {
      feed_dma();
      p_.wait_irq(sc_time(1, SC_US));
    }
    uint32_t s = check_status_alone();
    for (int i = 0; i < 16 && (s & PCCX_STAT_ERROR); ++i) {
      const uint32_t code = p_.read(PCCX_REG_ERR_CODE);
      if (code < PCCX_ERR_UNKNOWN_OPCODE || code > PCCX_ERR_DMA_ADDRESS)
        violated("ERROR set with ERR_CODE " + hex(code) + " outside 0x01..0x0D");
      const uint32_t seq = p_.read(PCCX_REG_ERR_SEQ);
      if (seq >= g_pushed)
        violated("ERR_SEQ " + std::to_string(seq) + " names a word never pushed");
      p_.write(UCA_REG_STATUS, PCCX_STAT_ERROR);  // W1C
      ++errors_;
      s = check_status_alone();
      // Another error may latch right after the clear; then it has a code.
      if (!(s & PCCX_STAT_ERROR) && p_.read(PCCX_REG_ERR_CODE) != 0) {
        s = p_.read(UCA_REG_STATUS);
        if (!(s & PCCX_STAT_ERROR)) violated("ERR_CODE nonzero after the error was cleared");
      }
    }
    return s;
  }

  // End of the input: the NPU idle with no error, CMD_IN empty, counters
  // consistent, DMA at rest, FIFOs empty for the next input.
  void quiesce() {
    uint32_t s = 0;
    for (int i = 0;; ++i) {
      s = settle();
      if (!(s & (UCA_STAT_BUSY | PCCX_STAT_ERROR))) break;
      if (i >= 64)
        violated("the NPU does not become idle (STATUS " + hex(s) + ", CMD_LEVEL " +
                 std::to_string(p_.read(PCCX_REG_CMD_LEVEL)) + ")");
    }
    // Idle and no error: nothing changes while these are read.
    if (p_.read(PCCX_REG_CMD_LEVEL) != 0) violated("idle with words in CMD_IN");
    if (p_.read(PCCX_REG_ERR_CODE) != 0) violated("ERR_CODE nonzero with no error latched");
    if (!p_.top().cpu.npu_irq.read()) violated("idle-or-error line low while idle");
    const uint32_t depth = p_.read(PCCX_REG_CMD_DEPTH);
    if (depth == 0 || depth != p_.params().npu.section.cmd_fifo_depth) violated("CMD_DEPTH " + hex(depth));
    const uint64_t issued =
        p_.read(PCCX_REG_ISSUED_LO) | static_cast<uint64_t>(p_.read(PCCX_REG_ISSUED_HI)) << 32;
    if (issued != g_pushed)
      violated("ISSUED " + std::to_string(issued) + " but " + std::to_string(g_pushed) +
               " words were pushed");
    const uint64_t retired =
        p_.read(PCCX_REG_RETIRED_LO) | static_cast<uint64_t>(p_.read(PCCX_REG_RETIRED_HI)) << 32;
    if (retired > issued) violated("more instructions retired than issued");
    p_.dma_quiesce(kName, sc_time(2, sc_core::SC_MS), [](unsigned, uint32_t) {});
    if (p_.verbose())
      std::fprintf(stderr, "%s: at %s: %llu words pushed, %llu retired, %u errors cleared\n", kName,
                   sc_core::sc_time_stamp().to_string().c_str(),
                   static_cast<unsigned long long>(issued),
                   static_cast<unsigned long long>(retired), errors_);
  }

  fuzz_platform& p_;
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
  unsigned errors_ = 0;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz_platform& p = fuzz_platform::get();
  driver d(p, data, size);
  p.run([&] { d.run(); }, kInputBound);
  return 0;
}
