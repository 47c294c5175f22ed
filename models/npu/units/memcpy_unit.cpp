#include "npu/units/memcpy_unit.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "pccx_isa.h"

namespace pccx::npu {

using sc_core::sc_time;

namespace {
constexpr uint32_t kWord = PCCX_L2_WORD_BYTES;
static_assert(kWord == mem::l2_memory::kWordBytes, "L2 word size");
}  // namespace

memcpy_unit::memcpy_unit(sc_core::sc_module_name name, const memcpy_unit_params& params,
                         mem::l2_memory& l2, mem::stream_fifo& from_host, mem::stream_fifo& to_host)
    : threaded_unit(name), params_(params), l2_(l2), from_host_(from_host), to_host_(to_host) {
  if (params_.chunk_words == 0)
    throw std::invalid_argument(std::string(this->name()) + ": chunk_words must be at least 1");
  // A chunk never needs more than either FIFO can hold.
  const uint64_t fifo_words = std::min(from_host_.capacity(), to_host_.capacity()) / kWord;
  if (fifo_words == 0)
    throw std::invalid_argument(std::string(this->name()) +
                                ": ACP FIFOs must hold at least one 128-bit word");
  params_.chunk_words = static_cast<uint32_t>(std::min<uint64_t>(params_.chunk_words, fifo_words));
  if (l2_.functional()) buffer_.resize(static_cast<size_t>(params_.chunk_words) * kWord);
}

threaded_unit::result memcpy_unit::execute(const dispatched_instruction& d) {
  const auto* mc = std::get_if<isa::memcpy_instr>(&d.ins.body);
  if (!mc)
    return {PCCX_ERR_UNIT_FAULT,
            std::string(name()) + " executes MEMCPY only, not " + isa::opcode_name(d.ins.op)};
  const auto route = mc->route();
  if (route == isa::memcpy_route::kv_append)
    return {PCCX_ERR_INVALID_ROUTE,
            "MEMCPY kv-append (from_device=1, to_device=1): the KV append datapath is not part "
            "of this platform"};
  const uint64_t elements = static_cast<uint64_t>(d.size[0]) * d.size[1] * d.size[2];
  const uint64_t words64 = (elements + PCCX_BF16_PER_L2_WORD - 1) / PCCX_BF16_PER_L2_WORD;
  if (words64 == 0) return {PCCX_ERR_ZERO_LENGTH, "MEMCPY of zero words"};
  if (words64 > l2_.words())
    return {PCCX_ERR_L2_RANGE, "MEMCPY of " + std::to_string(words64) + " words exceeds the L2"};
  const auto words = static_cast<uint32_t>(words64);

  ++stats_.instructions;
  clock_.reset();
  end_ = sc_core::sc_time_stamp();
  result r;
  try {
    switch (route) {
      case isa::memcpy_route::host_to_l2: host_to_l2(mc->dest, words); break;
      case isa::memcpy_route::l2_to_host: l2_to_host(mc->src, words); break;
      case isa::memcpy_route::l2_to_l2: l2_to_l2(mc->src, mc->dest, words); break;
      case isa::memcpy_route::kv_append: break;
    }
  } catch (const mem::l2_range_error& e) {
    r = {PCCX_ERR_L2_RANGE, e.what()};
  }
  // Retire when the last word is done, not when its reservation was made.
  clock_.sync_to(std::max(end_, clock_.local()));
  return r;
}

void memcpy_unit::host_to_l2(uint32_t dest, uint32_t words) {
  uint8_t* buf = l2_.functional() ? buffer_.data() : nullptr;
  uint32_t done = 0;
  while (done < words) {
    uint32_t n = std::min(params_.chunk_words, words - done);
    const uint64_t present = from_host_.level() / kWord;
    sc_time ready;
    if (present == 0) {
      // Nothing in the FIFO: wait (in kernel time) for the next word.
      clock_.sync_to(clock_.local());
      const sc_time t0 = sc_core::sc_time_stamp();
      ready = from_host_.pop(kWord, buf);
      stats_.stall += ready - t0;
      n = 1;
    } else {
      n = static_cast<uint32_t>(std::min<uint64_t>(n, present));
      ready = *from_host_.try_pop(static_cast<uint64_t>(n) * kWord, buf, clock_.local());
      if (ready > clock_.local()) stats_.stall += ready - clock_.local();
    }
    // The write engine takes the words as they arrive, one per clock.
    end_ = l2_.write(mem::l2_memory::kAcpPort, dest + done, n, buf, ready);
    stats_.words_host_to_l2 += n;
    done += n;
    clock_.advance_to(end_);
  }
}

void memcpy_unit::l2_to_host(uint32_t src, uint32_t words) {
  uint8_t* buf = l2_.functional() ? buffer_.data() : nullptr;
  const sc_time latency =
      l2_.params().period * static_cast<double>(l2_.params().read_latency_cycles);
  uint32_t done = 0;
  while (done < words) {
    uint32_t n = std::min(params_.chunk_words, words - done);
    uint64_t room = to_host_.free_space() / kWord;
    if (room == 0) {
      // FIFO full: wait (in kernel time) for the ACP_RESULT channel to drain a word.
      clock_.sync_to(clock_.local());
      const sc_time t0 = sc_core::sc_time_stamp();
      to_host_.reserve(kWord);
      stats_.stall += sc_core::sc_time_stamp() - t0;
      room = to_host_.free_space() / kWord + 1;  // the reserved word counts
    }
    n = static_cast<uint32_t>(std::min<uint64_t>(n, room));
    const sc_time data_out = l2_.read(mem::l2_memory::kAcpPort, src + done, n, buf, clock_.local());
    to_host_.push(static_cast<uint64_t>(n) * kWord, data_out, buf);
    end_ = data_out;
    stats_.words_l2_to_host += n;
    done += n;
    clock_.advance_to(data_out - latency);  // the port is free again once the last address went out
  }
}

void memcpy_unit::l2_to_l2(uint32_t src, uint32_t dest, uint32_t words) {
  uint8_t* buf = l2_.functional() ? buffer_.data() : nullptr;
  const sc_time period = l2_.params().period;
  const sc_time latency = period * static_cast<double>(l2_.params().read_latency_cycles);
  uint32_t done = 0;
  while (done < words) {
    const uint32_t n = std::min(params_.chunk_words, words - done);
    const sc_time read_done =
        l2_.read(mem::l2_memory::kComputePort, src + done, n, buf, clock_.local());
    // Word i of the chunk arrives at first + i clocks: writing one word per
    // clock from the first arrival on never overtakes the read.
    const sc_time first = read_done - period * static_cast<double>(n - 1);
    end_ = l2_.write(mem::l2_memory::kAcpPort, dest + done, n, buf, first);
    stats_.words_l2_to_l2 += n;
    done += n;
    clock_.advance_to(read_done - latency);
  }
}

}  // namespace pccx::npu
