// libFuzzer harness: register writes and reads on the six DMA channel pages
// of the NPU window (docs/models/memory-dma-l2.md): descriptors with addresses in
// and outside DDR, odd and zero byte counts, traffic classes, W1C of ERR,
// full descriptor and status queues, arbitrary offsets and sizes. The
// harness plays the stream side (consumer of the read channels' FIFOs,
// producer for ACP_RESULT) and checks every status against the documented
// descriptor checks. The platform is elaborated once (fuzz_platform.h).
//
// Input: a sequence of operations, one selector byte each, the low three
// bits the operation and the rest the channel (mod 6):
//   0  set ADDR_LO/ADDR_HI/BYTES: mode byte, then 8 + 4 bytes; mode bit 4
//      also ROWS and STRIDE: 1 + 4 bytes
//   1  PUSH: tag byte, bit 4 the 2-D flag (a full queue is made room for
//      first)
//   2  CLASS write: value byte (above 5 must set ERR.CLASS and be ignored)
//   3  ERR write (W1C): value byte
//   4  read an arbitrary offset of the page: 2 bytes offset, size byte
//   5  write an arbitrary offset of the page: 2 bytes, size byte, 4 bytes
//   6  stream side: consume (read channels) or produce (ACP_RESULT) N x 16
//      bytes, N the next byte
//   7  let the channels run for (next byte) x 50 ns
// After the last operation every channel is brought to rest and each
// descriptor pushed must have produced exactly one status.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <string>

#include "fuzz_platform.h"
#include "pccx_dma.h"

namespace {

using pccx::fuzz::fuzz_platform;
using sc_core::SC_NS;
using sc_core::sc_time;
using sc_core::SC_US;

const char* const kName = "fuzz_dma_descriptors";
constexpr size_t kMaxOps = 128;
const sc_time kInputBound(200, sc_core::SC_MS);
const sc_time kDrainBound(20, sc_core::SC_MS);
constexpr uint32_t kMaxMove = 16 * 1024;  // bytes a valid descriptor may move
constexpr uint32_t kPageRegsEnd = PCCX_DMA_REG_STRIDE + 4;

[[noreturn]] void violated(const std::string& what) {
  pccx::fuzz::violated(kName, what);
}

std::string hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

struct expected_status {
  unsigned tag = 0;
  uint32_t errors = 0;  // PCCX_DMA_ERR_* the checks must raise (BUS aside)
  uint64_t addr = 0;
  uint64_t bytes = 0;  // rows x bytes per row
};

class driver {
 public:
  driver(fuzz_platform& p, const uint8_t* data, size_t size) : p_(p), data_(data), size_(size) {
    for (unsigned ch = 0; ch < PCCX_DMA_CHANNELS; ++ch) {
      // Registers as the previous input left them (they persist).
      addr_[ch] = p_.read(reg(ch, PCCX_DMA_REG_ADDR_LO)) |
                  static_cast<uint64_t>(p_.read(reg(ch, PCCX_DMA_REG_ADDR_HI))) << 32;
      bytes_[ch] = p_.read(reg(ch, PCCX_DMA_REG_BYTES));
      rows_[ch] = p_.read(reg(ch, PCCX_DMA_REG_ROWS));
      stride_[ch] = p_.read(reg(ch, PCCX_DMA_REG_STRIDE));
    }
  }

  void run() {
    for (size_t ops = 0; ops < kMaxOps && pos_ < size_; ++ops) {
      const uint8_t sel = take8();
      const unsigned ch = (sel >> 3) % PCCX_DMA_CHANNELS;
      switch (sel & 7) {
        case 0: set_descriptor(ch); break;
        case 1: push(ch, take8()); break;
        case 2: write_class(ch, take8()); break;
        case 3: p_.write(reg(ch, PCCX_DMA_REG_ERR), take8()); break;
        case 4: random_read(ch); break;
        case 5: random_write(ch); break;
        case 6: stream_side(ch, 16ull * take8()); break;
        default: sc_core::wait(sc_time(50.0 * take8(), SC_NS)); break;
      }
    }
    p_.dma_quiesce(kName, kDrainBound, [this](unsigned ch, uint32_t s) { check_status(ch, s); });
    for (unsigned ch = 0; ch < PCCX_DMA_CHANNELS; ++ch)
      if (!expected_[ch].empty())
        violated("channel " + std::to_string(ch) + ": " + std::to_string(expected_[ch].size()) +
                 " descriptors pushed without a status");
    if (p_.verbose())
      std::fprintf(stderr, "%s: at %s: %u statuses, %u with errors\n", kName,
                   sc_core::sc_time_stamp().to_string().c_str(), statuses_, refused_);
  }

 private:
  static uint64_t reg(unsigned ch, uint32_t r) { return fuzz_platform::dma_reg(ch, r); }
  uint8_t take8() { return pos_ < size_ ? data_[pos_++] : 0; }
  uint16_t take16() { return static_cast<uint16_t>(take8() | take8() << 8); }
  uint32_t take32() { return take16() | static_cast<uint32_t>(take16()) << 16; }
  uint64_t take64() { return take32() | static_cast<uint64_t>(take32()) << 32; }

  // Mode bits steer the raw values towards the interesting cases without
  // losing any: bit0 address inside DDR (offset modulo its size), bit1
  // aligned address, bit2 byte count below 64 KiB, bit3 aligned count.
  void set_descriptor(unsigned ch) {
    const uint8_t mode = take8();
    uint64_t addr = take64();
    uint32_t bytes = take32();
    if (mode & 1) addr = p_.ddr_base() + addr % p_.ddr_size();
    if (mode & 2) addr &= ~15ull;
    if (mode & 4) bytes &= 0xFFFF;
    if (mode & 8) bytes &= ~15u;
    p_.write(reg(ch, PCCX_DMA_REG_ADDR_LO), static_cast<uint32_t>(addr));
    p_.write(reg(ch, PCCX_DMA_REG_ADDR_HI), static_cast<uint32_t>(addr >> 32));
    p_.write(reg(ch, PCCX_DMA_REG_BYTES), bytes);
    addr_[ch] = addr;
    bytes_[ch] = bytes;
    if (mode & 16) {
      rows_[ch] = take8();
      stride_[ch] = take32();
      p_.write(reg(ch, PCCX_DMA_REG_ROWS), rows_[ch]);
      p_.write(reg(ch, PCCX_DMA_REG_STRIDE), stride_[ch]);
    }
    if (p_.read(reg(ch, PCCX_DMA_REG_ADDR_LO)) != static_cast<uint32_t>(addr) ||
        p_.read(reg(ch, PCCX_DMA_REG_ADDR_HI)) != static_cast<uint32_t>(addr >> 32) ||
        p_.read(reg(ch, PCCX_DMA_REG_BYTES)) != bytes)
      violated("ADDR/BYTES do not read back what was written");
  }

  // Rows of the next PUSH (1 unless 2-D with ROWS above 1).
  uint32_t rows_of(unsigned ch, bool two_d) const {
    return two_d ? std::max<uint32_t>(1, rows_[ch]) : 1;
  }

  // The documented checks (docs/models/memory-dma-l2.md, "Descriptors and errors").
  uint32_t expected_errors(unsigned ch, bool two_d) const {
    const uint64_t a = addr_[ch], n = bytes_[ch], rows = rows_of(ch, two_d);
    const unsigned __int128 extent = static_cast<unsigned __int128>(rows - 1) * stride_[ch] + n;
    const uint64_t base = p_.ddr_base(), size = p_.ddr_size();
    uint32_t e = 0;
    // a inside DDR and [a, a + extent) inside it, computed without overflowing.
    if (a < base || a - base >= size || extent > size - (a - base)) e |= PCCX_DMA_ERR_RANGE;
    if (n == 0) e |= PCCX_DMA_ERR_ZERO_LENGTH;
    const uint32_t align = p_.params().dma[ch].section.alignment_bytes;
    if (a % align != 0 || (rows > 1 && stride_[ch] % align != 0)) e |= PCCX_DMA_ERR_ALIGN_ADDR;
    if (n % align != 0) e |= PCCX_DMA_ERR_ALIGN_LEN;
    return e;
  }

  void check_status(unsigned ch, uint32_t s) {
    if (!(s & PCCX_DMA_STS_VALID)) violated("popped status without VALID");
    if (s & 0x7FFF00F0u) violated("status with undefined bits: " + hex(s));
    if (expected_[ch].empty()) violated("a status for a descriptor never pushed: " + hex(s));
    const expected_status want = expected_[ch].front();
    expected_[ch].pop_front();
    const uint32_t err = PCCX_DMA_STS_ERR(s);
    ++statuses_;
    if (err != 0) ++refused_;
    if (PCCX_DMA_STS_TAG(s) != want.tag)
      violated("channel " + std::to_string(ch) + ": status tag " +
               std::to_string(PCCX_DMA_STS_TAG(s)) + ", pushed " + std::to_string(want.tag));
    // The DDR may still answer a valid descriptor with a bus error; the
    // descriptor checks must match exactly.
    if ((err & ~PCCX_DMA_ERR_BUS) != want.errors)
      violated("channel " + std::to_string(ch) + ": status errors " + hex(err) + ", expected " +
               hex(want.errors) + " for " + hex(want.addr) + ", " + std::to_string(want.bytes) +
               " bytes");
    if (want.errors != 0 && (err & PCCX_DMA_ERR_BUS))
      violated("a refused descriptor was moved (BUS error reported)");
  }

  // Room in the queue: pop statuses and play the stream side until the
  // channel takes the next descriptor (it may hold a full status queue or
  // wait on its FIFO).
  void make_room(unsigned ch) {
    const sc_time end = sc_core::sc_time_stamp() + kDrainBound;
    while (p_.read(reg(ch, PCCX_DMA_REG_FLAGS)) & PCCX_DMA_FLAG_CMD_FULL) {
      if (sc_core::sc_time_stamp() >= end) violated("descriptor queue stays full");
      pop_statuses(ch);
      stream_side(ch, p_.top().fifo(ch).capacity());
      sc_core::wait(sc_time(1, SC_US));
    }
  }

  void pop_statuses(unsigned ch) {
    for (uint32_t n = p_.read(reg(ch, PCCX_DMA_REG_STS_LVL)); n > 0; --n)
      check_status(ch, p_.read(reg(ch, PCCX_DMA_REG_STS_POP)));
  }

  void push(unsigned ch, uint32_t value) {
    make_room(ch);
    const bool two_d = value & PCCX_DMA_PUSH_2D;
    // A descriptor that passes the checks moves its bytes; bounding those
    // keeps every input within a few milliseconds of simulated time.
    // Refused descriptors keep their raw (often huge) counts.
    if (expected_errors(ch, two_d) == 0 && bytes_[ch] > kMaxMove) {
      bytes_[ch] = std::max<uint32_t>((bytes_[ch] % kMaxMove) & ~15u, 16);
      p_.write(reg(ch, PCCX_DMA_REG_BYTES), bytes_[ch]);
    }
    if (expected_errors(ch, two_d) == 0 && uint64_t{rows_of(ch, two_d)} * bytes_[ch] > kMaxMove) {
      rows_[ch] = std::max<uint32_t>(1, kMaxMove / bytes_[ch]);
      p_.write(reg(ch, PCCX_DMA_REG_ROWS), rows_[ch]);
    }
    expected_[ch].push_back({value & PCCX_DMA_TAG_MASK, expected_errors(ch, two_d), addr_[ch],
                             uint64_t{rows_of(ch, two_d)} * bytes_[ch]});
    p_.write(reg(ch, PCCX_DMA_REG_PUSH), value);
  }

  void write_class(unsigned ch, uint32_t value) {
    const uint32_t before = p_.read(reg(ch, PCCX_DMA_REG_CLASS));
    p_.write(reg(ch, PCCX_DMA_REG_CLASS), value);
    const uint32_t after = p_.read(reg(ch, PCCX_DMA_REG_CLASS));
    if (value <= PCCX_DMA_CLASS_LAST) {
      if (after != value) violated("CLASS reads " + hex(after) + " after writing " + hex(value));
    } else {
      if (after != before) violated("a CLASS above 5 was not ignored");
      if (!(p_.read(reg(ch, PCCX_DMA_REG_ERR)) & PCCX_DMA_ERR_CLASS))
        violated("a CLASS above 5 did not set ERR.CLASS");
    }
  }

  unsigned take_length() {
    static const unsigned kLengths[4] = {4, 4, 2, 8};
    return kLengths[take8() % 4];
  }

  static bool writable(uint32_t off) {
    return off <= PCCX_DMA_REG_PUSH || off == PCCX_DMA_REG_ERR || off == PCCX_DMA_REG_CLASS ||
           off == PCCX_DMA_REG_ROWS || off == PCCX_DMA_REG_STRIDE;
  }

  void random_read(unsigned ch) {
    const uint32_t off = take16() % PCCX_DMA_PAGE_SIZE;
    const unsigned len = take_length();
    uint32_t v = 0;
    const auto r = p_.access(tlm::TLM_READ_COMMAND, reg(ch, off), v, len);
    if (r == tlm::TLM_INCOMPLETE_RESPONSE) violated("read left INCOMPLETE");
    const bool ok = r == tlm::TLM_OK_RESPONSE;
    const bool proper = len == 4 && off % 4 == 0;
    if (!proper && ok) violated("misaligned read accepted at " + hex(off));
    if (proper && off < kPageRegsEnd && off != PCCX_DMA_REG_PUSH && !ok)
      violated("read of register " + hex(off) + " refused");
    if (proper && (off >= kPageRegsEnd || off == PCCX_DMA_REG_PUSH) && ok)
      violated("read of " + hex(off) + " accepted");
    if (!ok) return;
    if (off == PCCX_DMA_REG_STS_POP && v != PCCX_DMA_STS_EMPTY) check_status(ch, v);
    if (off == PCCX_DMA_REG_ERR && (v & ~PCCX_DMA_ERR_ALL)) violated("ERR has undefined bits");
    if (off == PCCX_DMA_REG_FLAGS && (v & ~0x3Fu)) violated("FLAGS has undefined bits");
    if (off == PCCX_DMA_REG_INFO) {
      const bool to_ddr = p_.params().dma[ch].direction == pccx::mem::dma_direction::stream_to_ddr;
      if (((v & PCCX_DMA_INFO_TO_DDR) != 0) != to_ddr) violated("INFO direction wrong");
    }
  }

  void random_write(unsigned ch) {
    const uint32_t off = take16() % PCCX_DMA_PAGE_SIZE;
    const unsigned len = take_length();
    uint32_t v = take32();
    const bool proper = len == 4 && off % 4 == 0;
    if (proper && off == PCCX_DMA_REG_PUSH) return push(ch, v);
    if (proper && off == PCCX_DMA_REG_CLASS) return write_class(ch, v);
    const auto r = p_.access(tlm::TLM_WRITE_COMMAND, reg(ch, off), v, len);
    if (r == tlm::TLM_INCOMPLETE_RESPONSE) violated("write left INCOMPLETE");
    const bool ok = r == tlm::TLM_OK_RESPONSE;
    if (ok != (proper && writable(off)))
      violated(std::string("write of ") + hex(off) + " size " + std::to_string(len) +
               (ok ? " accepted" : " refused"));
    if (!ok) return;
    if (off == PCCX_DMA_REG_ADDR_LO) addr_[ch] = (addr_[ch] & ~0xFFFFFFFFull) | v;
    if (off == PCCX_DMA_REG_ADDR_HI) addr_[ch] = (addr_[ch] & 0xFFFFFFFFull) | uint64_t{v} << 32;
    if (off == PCCX_DMA_REG_BYTES) bytes_[ch] = v;
    if (off == PCCX_DMA_REG_ROWS) rows_[ch] = v;
    if (off == PCCX_DMA_REG_STRIDE) stride_[ch] = v;
  }

  void stream_side(unsigned ch, uint64_t bytes) {
    auto& fifo = p_.top().fifo(ch);
    if (p_.params().dma[ch].direction == pccx::mem::dma_direction::stream_to_ddr) {
      p_.fifo_fill(ch, bytes);
    } else {
      const uint64_t n = std::min(bytes, fifo.level());
      if (n > 0 && !fifo.try_pop(n, nullptr, sc_core::sc_time_stamp()))
        violated("try_pop of present bytes failed");
    }
  }

  fuzz_platform& p_;
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
  std::array<uint64_t, PCCX_DMA_CHANNELS> addr_{};
  std::array<uint32_t, PCCX_DMA_CHANNELS> bytes_{};
  std::array<uint32_t, PCCX_DMA_CHANNELS> rows_{};
  std::array<uint32_t, PCCX_DMA_CHANNELS> stride_{};
  std::array<std::deque<expected_status>, PCCX_DMA_CHANNELS> expected_;
  unsigned statuses_ = 0, refused_ = 0;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz_platform& p = fuzz_platform::get();
  p.run(
      [&] {
        driver d(p, data, size);
        d.run();
      },
      kInputBound);
  return 0;
}
