#include "models/npu/units/memcpy_unit.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "models/npu/units/bf16.h"
#include "pccx_isa.h"

namespace pccx::npu {

using sc_core::sc_time;

namespace {
constexpr uint32_t kWord = PCCX_L2_WORD_BYTES;
static_assert(kWord == mem::l2_memory::kWordBytes, "L2 word size");
}  // namespace

memcpy_unit::memcpy_unit(sc_core::sc_module_name name, const memcpy_unit_params& params,
                         mem::l2_memory& l2, mem::stream_fifo& from_host, mem::stream_fifo& to_host)
    : threaded_unit(name),
      params_(params),
      l2_(l2),
      from_host_(from_host),
      to_host_(to_host),
      key_codec_(params.kv.key_format()),
      value_codec_(params.kv.value_format()) {
  if (params_.section.chunk_words == 0)
    throw std::invalid_argument(std::string(this->name()) + ": chunk_words must be at least 1");
  // A chunk never needs more than either FIFO can hold.
  const uint64_t fifo_words = std::min(from_host_.capacity(), to_host_.capacity()) / kWord;
  if (fifo_words == 0)
    throw std::invalid_argument(std::string(this->name()) +
                                ": ACP FIFOs must hold at least one 128-bit word");
  chunk_words_ = static_cast<uint32_t>(std::min<uint64_t>(params_.section.chunk_words, fifo_words));
  if (l2_.functional()) buffer_.resize(static_cast<size_t>(chunk_words_) * kWord);
  if (params_.kv.append_elements_per_cycle == 0 || params_.kv.rotation_adds_per_cycle == 0)
    throw std::invalid_argument(std::string(this->name()) +
                                ": KV append widths must be at least 1 per clock");
}

threaded_unit::result memcpy_unit::execute(const dispatched_instruction& d) {
  const auto* mc = std::get_if<isa::memcpy_instr>(&d.ins.body);
  if (!mc)
    return {PCCX_ERR_UNIT_FAULT,
            std::string(name()) + " executes MEMCPY only, not " + isa::opcode_name(d.ins.op)};
  const auto route = mc->route();
  const uint64_t elements = static_cast<uint64_t>(d.size[0]) * d.size[1] * d.size[2];
  const kv::kv_codec* codec = nullptr;
  if (route == isa::memcpy_route::kv_append) {
    if (mc->dest > 1)
      return {PCCX_ERR_UNIT_FAULT, "MEMCPY kv-append: dest " + std::to_string(mc->dest) +
                                       " must select the stream: 0 keys, 1 values"};
    codec = mc->dest == 0 ? &key_codec_ : &value_codec_;
    const uint32_t hd = codec->format().head_dim;
    if (elements == 0 || elements % hd != 0)
      return {PCCX_ERR_UNIT_FAULT,
              "MEMCPY kv-append: " + std::to_string(elements) + " elements (fmap_shape slot " +
                  std::to_string(mc->shape_ptr) + ") is not a whole number of " +
                  std::to_string(hd) + "-element head-vectors (npu.kv.head_dim)"};
    if (to_host_.capacity() < codec->format().record_bytes())
      return {PCCX_ERR_UNIT_FAULT,
              "MEMCPY kv-append: the ACP_RESULT FIFO holds " + std::to_string(to_host_.capacity()) +
                  " bytes, a record is " + std::to_string(codec->format().record_bytes())};
  }
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
      case isa::memcpy_route::kv_append:
        kv_append(mc->src, static_cast<uint32_t>(elements / codec->format().head_dim), *codec);
        break;
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
    uint32_t n = std::min(chunk_words_, words - done);
    const uint64_t present = from_host_.level() / kWord;
    sc_time ready;
    if (present == 0) {
      // Nothing in the FIFO: wait (in kernel time) for the next word.
      clock_.sync_to(clock_.local());
      const sc_time t0 = sc_core::sc_time_stamp();
      ready = from_host_.pop(kWord, buf);
      clock_.refresh();
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
      l2_.params().period * static_cast<double>(l2_.params().section.read_latency_cycles);
  uint32_t done = 0;
  while (done < words) {
    uint32_t n = std::min(chunk_words_, words - done);
    uint64_t room = to_host_.free_space() / kWord;
    if (room == 0) {
      // FIFO full: wait (in kernel time) for the ACP_RESULT channel to drain a word.
      clock_.sync_to(clock_.local());
      const sc_time t0 = sc_core::sc_time_stamp();
      to_host_.reserve(kWord);
      clock_.refresh();
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
  const sc_time latency = period * static_cast<double>(l2_.params().section.read_latency_cycles);
  uint32_t done = 0;
  while (done < words) {
    const uint32_t n = std::min(chunk_words_, words - done);
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

void memcpy_unit::kv_append(uint32_t src, uint32_t vectors, const kv::kv_codec& codec) {
  const kv::kv_format& f = codec.format();
  const uint32_t vec_words = (f.head_dim + PCCX_BF16_PER_L2_WORD - 1) / PCCX_BF16_PER_L2_WORD;
  const uint64_t rec = f.record_bytes();
  const bool functional = l2_.functional();
  const sc_time latency =
      l2_.params().period * static_cast<double>(l2_.params().section.read_latency_cycles);
  // The quantizer takes a whole vector (its scale or norm needs every
  // element), then spends head_dim / width clocks, plus the Walsh-Hadamard
  // butterflies for the rotated formats; vectors pipeline behind each other.
  const uint64_t q_cycles =
      (f.head_dim + params_.kv.append_elements_per_cycle - 1) / params_.kv.append_elements_per_cycle +
      (codec.rotation_adds() + params_.kv.rotation_adds_per_cycle - 1) /
          params_.kv.rotation_adds_per_cycle;
  const sc_time q_time = params_.core_period * static_cast<double>(q_cycles);
  std::vector<uint8_t> words(functional ? size_t{vec_words} * kWord : 0), out(functional ? rec : 0);
  std::vector<float> x(functional ? f.head_dim : 0);
  sc_time q_free = sc_core::SC_ZERO_TIME;
  for (uint32_t v = 0; v < vectors; ++v) {
    const sc_time data_out = l2_.read(mem::l2_memory::kAcpPort, src + v * vec_words, vec_words,
                                      functional ? words.data() : nullptr, clock_.local());
    const sc_time done = std::max(data_out, q_free) + q_time;
    q_free = done;
    if (functional) {
      for (uint32_t i = 0; i < f.head_dim; ++i) x[i] = bf16::to_float(bf16::load(words.data(), i));
      codec.encode(x.data(), out.data());
    }
    if (to_host_.free_space() < rec) {
      // FIFO full: wait (in kernel time) for the ACP_RESULT channel to drain a record.
      clock_.sync_to(clock_.local());
      const sc_time t0 = sc_core::sc_time_stamp();
      to_host_.reserve(rec);
      clock_.refresh();
      stats_.stall += sc_core::sc_time_stamp() - t0;
    }
    to_host_.push(rec, std::max(done, clock_.local()), functional ? out.data() : nullptr);
    end_ = std::max(end_, done);
    ++stats_.kv_records;
    stats_.kv_record_bytes += rec;
    clock_.advance_to(data_out - latency);
  }
}

}  // namespace pccx::npu
