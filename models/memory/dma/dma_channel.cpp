#include "models/memory/dma/dma_channel.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <iterator>
#include <stdexcept>

#include "infra/text/hex.h"
#include "infra/time/kernel_time.h"
#include "infra/time/share_of_span.h"
#include "pccx_dma.h"

namespace pccx::mem {

using sc_core::sc_time;
using sc_core::SC_ZERO_TIME;

namespace {

using text::hex;

const regs::register_info kRegisters[] = {PCCX_DMA_REGISTERS(PCCX_REGISTER_ROW)};

// Transactions of at most block_bytes, small enough that `outstanding` of
// them fit the FIFO together, and a multiple of the alignment when possible.
uint32_t effective_block(const dma_channel_params& p, uint64_t fifo_capacity) {
  const uint64_t align = std::max<uint32_t>(1, p.section.alignment_bytes);
  uint64_t b = std::min<uint64_t>(p.section.block_bytes,
                                  fifo_capacity / std::max<uint32_t>(1, p.section.outstanding));
  b -= b % align;
  if (b == 0) b = align;
  b = std::min<uint64_t>(b, fifo_capacity);
  return static_cast<uint32_t>(std::max<uint64_t>(1, b));
}

}  // namespace

dma_channel_params dma_channel_params::for_page(unsigned n) {
  dma_channel_params p;
  p.page = n;
  if (n <= PCCX_DMA_HP3) {
    p.port = static_cast<ddr_port>(n);
    p.direction = dma_direction::ddr_to_stream;
    p.default_class = traffic_class::weights;
  } else if (n == PCCX_DMA_ACP_FMAP || n == PCCX_DMA_ACP_RESULT) {
    p.port = ddr_port::acp;
    p.direction =
        n == PCCX_DMA_ACP_FMAP ? dma_direction::ddr_to_stream : dma_direction::stream_to_ddr;
    p.default_class = traffic_class::activations;
  } else {
    throw std::invalid_argument("no DMA channel page " + std::to_string(n));
  }
  return p;
}

dma_channel::dma_channel(sc_core::sc_module_name name, const dma_channel_params& params,
                         stream_fifo& fifo)
    : sc_core::sc_module(name),
      mmio("mmio"),
      ddr("ddr"),
      params_(params),
      fifo_(fifo),
      block_(effective_block(params, fifo.capacity())),
      log_(sc_core::sc_module::name()),
      traffic_(params.port, params.default_class),
      cls_(params.default_class),
      bank_(sc_core::sc_module::name(), PCCX_DMA_PAGE_SIZE) {
  if (params_.section.outstanding == 0 || params_.section.descriptor_depth == 0 ||
      params_.section.status_depth == 0 || params_.section.alignment_bytes == 0)
    throw std::invalid_argument(std::string(name) +
                                ": outstanding, depths and alignment must be at least 1");
  if (params_.functional != fifo_.functional())
    throw std::invalid_argument(std::string(name) + ": channel and FIFO " + fifo_.name() +
                                " disagree on functional mode");
  build_registers();
  mmio.register_b_transport(this, &dma_channel::b_transport);
  mmio.register_transport_dbg(this, &dma_channel::transport_dbg);
  if (params_.section.coalesce_blocks == 0)
    throw std::invalid_argument(std::string(name) + ": coalesce_blocks must be at least 1");
  if (params_.functional)
    buffer_.resize(size_t{block_} * (params_.direction == dma_direction::ddr_to_stream
                                         ? params_.section.coalesce_blocks
                                         : 1));
  tx_.set_extension(&traffic_);
  SC_THREAD(run);
}

dma_channel::~dma_channel() {
  tx_.clear_extension(&traffic_);  // owned here, not by the payload
}

// ---------------------------------------------------------------- thread

void dma_channel::run() {
  clock_.reset();
  for (;;) {
    if (queue_.empty()) {
      clock_.sync();  // idle from the end of the local work on
      while (queue_.empty()) wait(cmd_pushed_);
      clock_.refresh();
    }
    const descriptor d = queue_.front();
    queue_.pop_front();
    cmd_popped_.notify(SC_ZERO_TIME);
    // Counts what completed by now, so the in-flight lists hold only what
    // is still moving (they grew with the run otherwise); a reader matures
    // at its own, later, time, so the counters read the same.
    mature(kernel_time());
    move(d);
  }
}

uint32_t dma_channel::check(const descriptor& d, std::string& reason) const {
  uint32_t e = 0;
  auto because = [&](uint32_t bit, const std::string& why) {
    e |= bit;
    reason += (reason.empty() ? "" : "; ") + why;
  };
  if (d.bytes == 0) because(PCCX_DMA_ERR_ZERO_LENGTH, "zero length");
  // The extent: from the first row's start to the last row's end.
  const unsigned __int128 extent = static_cast<unsigned __int128>(d.rows - 1) * d.stride + d.bytes;
  const uint64_t base = params_.ddr_base, size = params_.ddr_size;
  if (d.addr < base || d.addr - base >= size || extent > size - (d.addr - base))
    because(PCCX_DMA_ERR_RANGE,
            "[" + hex(d.addr) + ", " + hex(d.addr + static_cast<uint64_t>(extent)) +
                ") is not inside DDR [" + hex(base) + ", " + hex(base + size) + ")");
  const uint32_t align = params_.section.alignment_bytes;
  if (d.addr % align != 0)
    because(PCCX_DMA_ERR_ALIGN_ADDR,
            "address " + hex(d.addr) + " is not a multiple of " + std::to_string(align));
  if (d.rows > 1 && d.stride % align != 0)
    because(PCCX_DMA_ERR_ALIGN_ADDR, "row stride " + std::to_string(d.stride) +
                                         " is not a multiple of " + std::to_string(align));
  if (d.bytes % align != 0)
    because(PCCX_DMA_ERR_ALIGN_LEN,
            "length " + std::to_string(d.bytes) + " is not a multiple of " + std::to_string(align));
  return e;
}

void dma_channel::fault(const descriptor& d, uint32_t errors, const std::string& reason) {
  err_ |= errors;
  ++stats_.errors;
  PCCX_LOG(log_, warning,
           "descriptor #" << d.seq << " (tag " << d.tag << ", " << hex(d.addr) << ", " << d.bytes
                          << " bytes"
                          << (d.rows > 1 ? " x " + std::to_string(d.rows) + " rows" : "")
                          << ") dropped: " << reason);
  if (faults.connected())
    faults.write({params_.page, d.seq, d.addr, d.bytes, d.tag, errors, reason});
}

void dma_channel::post_status(const descriptor& d, uint32_t errors, const sc_time& at) {
  if (status_.size() >= params_.section.status_depth) {
    // The status stream backpressures the channel until firmware pops.
    clock_.sync();
    const sc_time t0 = kernel_time();
    PCCX_LOG(log_, debug, "status queue full, holding descriptor #" << d.seq);
    while (status_.size() >= params_.section.status_depth) wait(status_popped_);
    clock_.refresh();
    stats_.stall += kernel_time() - t0;
  }
  const uint32_t word = PCCX_DMA_STS_VALID | ((errors & 0xFFu) << 8) | (d.tag & PCCX_DMA_TAG_MASK);
  status_.push_back({word, std::max(at, local_now())});
  if (errors == 0) pending_done_.push_back(std::max(at, local_now()));
}

void dma_channel::move(const descriptor& d) {
  clock_.move_to(d.arrival);
  const sc_time start = local_now();
  active_ = true;
  active_arrival_ = d.arrival;

  std::string reason;
  if (const uint32_t errors = check(d, reason)) {
    fault(d, errors, reason);
    post_status(d, errors, start);
    active_ = false;
    finished(d, 0, errors, start, start);
    return;
  }

  const bool to_ddr = params_.direction == dma_direction::stream_to_ddr;
  traffic_.cls = d.cls;
  ring_queue<sc_time>& in_flight = in_flight_;  // completion times of this descriptor's blocks
  in_flight.clear();
  sc_time last = start;
  uint64_t moved_rows = 0;  // bytes of the rows already moved
  // Blocks may share a transaction only while the blocks in flight outlast
  // the DDR latency: then each block's transfer follows the previous one
  // without a gap, and one transaction of several blocks, timed block by
  // block, gives the times the blocks would have had on their own. Learnt
  // from the descriptor's previous transaction (the first goes alone).
  bool gapless = false;
  // Rows that follow each other in DDR (stride = bytes) are one run, cut
  // into blocks like a plain descriptor; other rows are a run each.
  const bool joined = d.rows > 1 && d.stride == d.bytes;
  const uint32_t runs = joined ? 1 : d.rows;
  const uint64_t run_bytes = joined ? d.total() : d.bytes;
  for (uint32_t r = 0; r < runs; ++r) {
    uint64_t addr = d.addr + uint64_t{r} * d.stride;
    uint64_t left = run_bytes;
    while (left > 0) {
      // Blocks this transaction carries: one, or when reading into the FIFO up
      // to coalesce_blocks that the FIFO has room for now.
      uint64_t group = 1;
      if (!to_ddr && gapless && params_.section.coalesce_blocks > 1)
        group = std::max<uint64_t>(
            1, std::min<uint64_t>({params_.section.coalesce_blocks, (left + block_ - 1) / block_,
                                   fifo_.free_space() / block_}));
      const uint32_t n = static_cast<uint32_t>(std::min<uint64_t>(uint64_t{block_} * group, left));
      // Block k + outstanding leaves when block k has completed.
      while (in_flight.size() >= params_.section.outstanding) {
        clock_.move_to(in_flight.front());
        in_flight.pop_front();
      }
      uint8_t* data = params_.functional ? buffer_.data() : nullptr;
      if (!to_ddr) {
        if (!fifo_.try_reserve(n)) {  // FIFO full: wait for the consumer
          clock_.sync();
          const sc_time t0 = kernel_time();
          fifo_.reserve(n);
          clock_.refresh();
          stats_.stall += kernel_time() - t0;
        }
      } else if (auto ready = fifo_.try_pop(n, data, local_now())) {
        clock_.move_to(*ready);
      } else {  // FIFO empty: wait for the producer
        clock_.sync();
        const sc_time t0 = kernel_time();
        fifo_.pop(n, data);
        clock_.refresh();
        stats_.stall += kernel_time() - t0;
      }

      tx_.set_command(to_ddr ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
      tx_.set_address(addr);
      tx_.set_data_ptr(data);
      tx_.set_data_length(n);
      tx_.set_streaming_width(n);
      tx_.set_byte_enable_ptr(nullptr);
      tx_.set_dmi_allowed(false);
      tx_.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
      // The kernel's time does not move while the thread runs: read once.
      const sc_time now = kernel_time();
      sc_time delay = local_now() - now;
      traffic_.transfer_start = traffic_.transfer_end = SC_ZERO_TIME;  // a DDR may not set them
      ddr->b_transport(tx_, delay);
      ++stats_.transactions;
      if (!tx_.is_response_ok()) {
        if (!to_ddr) fifo_.unreserve(n);
        fault(d, PCCX_DMA_ERR_BUS,
              "DDR answered " + tx_.get_response_string() + " for " + std::to_string(n) +
                  " bytes at " + hex(addr) + " (the rest of the descriptor is not moved)");
        post_status(d, PCCX_DMA_ERR_BUS, std::max(last, local_now()));
        active_ = false;
        finished(d, moved_rows + (d.bytes - left), PCCX_DMA_ERR_BUS, start,
                 std::max(last, local_now()));
        return;
      }
      const sc_time completion = now + delay;
      const sc_time xfer_start = traffic_.transfer_start, xfer_end = traffic_.transfer_end;
      const bool timed =
          xfer_end > SC_ZERO_TIME && xfer_end >= xfer_start && completion >= xfer_end;
      // One block's transfer time, times the other blocks in flight with it.
      const double cover = timed ? static_cast<double>((xfer_end - xfer_start).value()) * block_ /
                                       n * (params_.section.outstanding - 1.0)
                                 : 0.0;
      gapless = timed && params_.section.outstanding > 1 &&
                cover >= static_cast<double>((completion - xfer_end).value());
      if (group == 1) {
        if (!to_ddr) fifo_.push(n, completion, data);
        in_flight.push_back(completion);
        in_flight_bytes_.push_back({completion, n});
      } else {
        // Each block completes when its last byte has moved (the transfer's
        // bytes spread evenly over its time) plus the access latency, as it
        // would have on its own behind the previous one.
        const uint64_t span = (xfer_end - xfer_start).value();
        const sc_time latency = completion - xfer_end;
        uint64_t moved = 0;
        for (uint64_t b = 0; b < group; ++b) {
          const uint32_t part = static_cast<uint32_t>(std::min<uint64_t>(block_, n - moved));
          moved += part;
          const sc_time at = xfer_start + time_of_(share_of_span(span, moved, n)) + latency;
          fifo_.push(part, at, data ? data + (moved - part) : nullptr);
          in_flight.push_back(at);
          in_flight_bytes_.push_back({at, part});
        }
      }
      last = std::max(last, completion);
      addr += n;
      left -= n;
      if (clock_.quantum_used()) clock_.sync();
    }
    moved_rows += run_bytes;
  }

  // Busy time is the union of the descriptors' [start, last completion].
  const sc_time from = std::max(start, busy_end_);
  if (last > from) stats_.busy += last - from;
  busy_end_ = std::max(busy_end_, last);
  busy_until_ = std::max(busy_until_, last);
  PCCX_LOG(log_, debug,
           "descriptor #" << d.seq << " (tag " << d.tag << ", " << d.total() << " bytes at "
                          << hex(d.addr) << ", " << traffic_class_name(d.cls) << ") done at "
                          << last);
  post_status(d, 0, last);
  active_ = false;
  finished(d, d.total(), 0, start, last);
}

void dma_channel::finished(const descriptor& d, uint64_t moved, uint32_t errors,
                           const sc_time& from, const sc_time& to) {
  if (!descriptors.connected()) return;
  descriptors.write({params_.page, d.seq, d.addr, d.total(), moved, d.tag, d.cls,
                     params_.direction == dma_direction::stream_to_ddr, errors, from, to});
}

// ---------------------------------------------------------------- state

void dma_channel::mature(const sc_time& now) {
  while (!in_flight_bytes_.empty() && in_flight_bytes_.front().first <= now) {
    stats_.bytes_done += in_flight_bytes_.front().second;
    in_flight_bytes_.pop_front();
  }
  while (!pending_done_.empty() && pending_done_.front() <= now) {
    ++stats_.descriptors_done;
    pending_done_.pop_front();
  }
}

const dma_channel::stats& dma_channel::statistics() {
  mature(kernel_time());
  return stats_;
}

bool dma_channel::has_work_at(const sc_time& t) const {
  // The channel's thread runs ahead too: it may hold a descriptor pushed later.
  if (active_ && active_arrival_ <= t) return true;
  for (const descriptor& d : queue_)
    if (d.arrival <= t) return true;
  return false;
}

bool dma_channel::busy() const {
  return !queue_.empty() || active_ || busy_until_ > kernel_time();
}

uint32_t dma_channel::ready_statuses(const sc_time& now) const {
  uint32_t n = 0;
  for (const status_entry& s : status_) {
    if (s.ready > now) break;
    ++n;
  }
  return n;
}

uint32_t dma_channel::flags(const sc_time& now) const {
  uint32_t f = 0;
  if (queue_.empty()) f |= PCCX_DMA_FLAG_CMD_EMPTY;
  if (queue_.size() >= params_.section.descriptor_depth) f |= PCCX_DMA_FLAG_CMD_FULL;
  const uint32_t ready = ready_statuses(now);
  if (ready == 0) f |= PCCX_DMA_FLAG_STS_EMPTY;
  if (ready >= params_.section.status_depth) f |= PCCX_DMA_FLAG_STS_FULL;
  if (busy()) f |= PCCX_DMA_FLAG_BUSY;
  if (err_ != 0) f |= PCCX_DMA_FLAG_ERROR;
  return f;
}

// ---------------------------------------------------------------- registers

void dma_channel::build_registers() {
  bank_.add_table(kRegisters, std::size(kRegisters));
  // ADDR_LO, ADDR_HI, BYTES, ROWS and STRIDE are plain read/write registers: PUSH takes
  // the descriptor from their stored values.
  addr_lo_ = &bank_["ADDR_LO"];
  addr_hi_ = &bank_["ADDR_HI"];
  bytes_ = &bank_["BYTES"];
  rows_ = &bank_["ROWS"];
  stride_ = &bank_["STRIDE"];
  bank_["PUSH"].on_write([this](uint32_t v, sc_time& delay) { push_descriptor(v, delay); });
  bank_["STS_POP"].on_read([this](bool debug) { return pop_status(debug); });
  bank_["FLAGS"].on_read([this](bool) { return flags(kernel_time()); });
  bank_["CMD_LVL"].on_read([this](bool) { return static_cast<uint32_t>(queue_.size()); });
  bank_["STS_LVL"].on_read([this](bool) { return ready_statuses(kernel_time()); });
  bank_["ERR"].on_read([this](bool) { return err_; }).on_write([this](uint32_t v, sc_time&) {
    err_ &= ~v;
  });
  bank_["CLASS"]
      .on_read([this](bool) { return static_cast<uint32_t>(cls_); })
      .on_write([this](uint32_t v, sc_time&) { set_class(v); });
  bank_.add_counter64("BYTES_DONE_LO", "BYTES_DONE_HI", PCCX_DMA_REG_BYTES_DONE_LO, [this] {
    mature(kernel_time());
    return stats_.bytes_done;
  });
  bank_["DEPTH"].on_read([this](bool) {
    return std::min<uint32_t>(params_.section.descriptor_depth, 0xFFFF) |
           (std::min<uint32_t>(params_.section.status_depth, 0xFFFF) << 16);
  });
  bank_["INFO"].on_read([this](bool) {
    return (params_.direction == dma_direction::stream_to_ddr ? PCCX_DMA_INFO_TO_DDR : 0u) |
           (static_cast<uint32_t>(params_.port) << 8);
  });
  bank_.check_behaviour();
}

std::string dma_channel::register_name(uint64_t offset) {
  return regs::table_name(kRegisters, std::size(kRegisters), static_cast<uint32_t>(offset));
}

uint32_t dma_channel::pop_status(bool debug) {
  if (status_.empty() || status_.front().ready > kernel_time()) return PCCX_DMA_STS_EMPTY;
  const uint32_t word = status_.front().word;
  if (!debug) {
    status_.pop_front();
    status_popped_.notify(SC_ZERO_TIME);
  }
  return word;
}

void dma_channel::push_descriptor(uint32_t value, sc_time& delay) {
  if (queue_.size() >= params_.section.descriptor_depth) {
    // Held like a deasserted awready: catch up, then wait for a slot.
    wait(delay);
    delay = SC_ZERO_TIME;
    PCCX_LOG(log_, debug,
             "descriptor queue full (" << params_.section.descriptor_depth << "), holding PUSH");
    while (queue_.size() >= params_.section.descriptor_depth) wait(cmd_popped_);
  }
  descriptor d;
  d.seq = pushed_++;
  d.addr = (static_cast<uint64_t>(addr_hi_->value()) << 32) | addr_lo_->value();
  d.bytes = bytes_->value();
  d.tag = value & PCCX_DMA_TAG_MASK;
  if (value & PCCX_DMA_PUSH_2D) {
    d.rows = std::max<uint32_t>(1, rows_->value());
    d.stride = stride_->value();
  }
  d.cls = cls_;
  d.arrival = kernel_time() + delay;
  queue_.push_back(d);
  cmd_pushed_.notify(SC_ZERO_TIME);
}

void dma_channel::set_class(uint32_t value) {
  if (value > PCCX_DMA_CLASS_LAST) {
    err_ |= PCCX_DMA_ERR_CLASS;
    PCCX_LOG(log_, warning,
             "CLASS write of " << value << " ignored: classes are 0.." << PCCX_DMA_CLASS_LAST);
  } else {
    cls_ = static_cast<traffic_class>(value);
  }
}

void dma_channel::b_transport(tlm::tlm_generic_payload& tx, sc_time& delay) {
  bank_.transport(tx, &delay);
}

unsigned int dma_channel::transport_dbg(tlm::tlm_generic_payload& tx) {
  return bank_.transport(tx, nullptr) ? 4u : 0u;
}

std::string dma_channel::error_names(uint32_t bits) {
  static const char* const names[] = {"RANGE",     "ZERO_LENGTH", "ALIGN_ADDR",
                                      "ALIGN_LEN", "BUS",         "CLASS"};
  std::string out;
  for (unsigned b = 0; b < 6; ++b)
    if (bits & (1u << b)) out += (out.empty() ? "" : ", ") + std::string(names[b]);
  return out;
}

}  // namespace pccx::mem
