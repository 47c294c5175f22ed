// A byte stream FIFO between one producer thread and one consumer thread:
// the weight FIFOs behind the HP channels and the ACP CDC FIFOs.
//
// Bytes travel in time-stamped chunks. A chunk is pushed with the time its
// bytes become available (its ready time), which may lie in the future when
// the producer runs ahead of the kernel (temporal decoupling); the consumer
// never sees bytes before their ready time. In functional mode the FIFO also
// carries the bytes themselves; in timing mode it carries only counts.
//
// Space is counted in bytes: occupied + reserved never exceeds capacity. A
// producer that knows it will push later (a read in flight) may reserve
// first; push() uses the reservation, or waits for free space without one.
//
// Blocking calls wait in kernel time (sc_core::wait) and must come from a
// thread process; a decoupled caller synchronises its quantum first. The
// try_* calls never wait: a decoupled thread uses them with its local time
// and only blocks (after syncing) when they fail.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <systemc>
#include <vector>

#include "infra/container/ring_queue.h"

namespace pccx::mem {

class stream_fifo {
 public:
  struct stats {
    uint64_t bytes_pushed = 0;
    uint64_t bytes_popped = 0;
    sc_core::sc_time producer_stall;  // waiting for space
    sc_core::sc_time consumer_stall;  // waiting for bytes to arrive or become ready
    uint64_t max_level = 0;           // highest occupancy seen, bytes
  };

  // functional: carry the bytes (allocates `capacity_bytes`).
  stream_fifo(std::string name, uint64_t capacity_bytes, bool functional);
  stream_fifo(const stream_fifo&) = delete;
  stream_fifo& operator=(const stream_fifo&) = delete;

  const std::string& name() const { return name_; }
  uint64_t capacity() const { return capacity_; }
  bool functional() const { return functional_; }
  uint64_t level() const { return level_; }        // bytes pushed and not popped
  uint64_t reserved() const { return reserved_; }  // bytes reserved, not yet pushed
  uint64_t free_space() const { return capacity_ - level_ - reserved_; }
  // level() as a variable a waveform trace can follow.
  const uint64_t& level_variable() const { return level_; }
  // Bytes present and ready at time t (all present ones if t is far enough).
  uint64_t ready_bytes(const sc_core::sc_time& t) const;
  // Time at which the first `bytes` bytes are all ready; nullopt while fewer
  // than `bytes` are present.
  std::optional<sc_core::sc_time> ready_time(uint64_t bytes) const;

  // --- producer ---
  // Waits until `bytes` of free space exist, then holds them for a push.
  void reserve(uint64_t bytes);
  bool try_reserve(uint64_t bytes);
  // Gives back reserved space that will not be pushed (a failed read).
  void unreserve(uint64_t bytes);
  // Appends `bytes` (from `data`, or zeros if data is nullptr) that become
  // available at `ready`. Uses reserved space first; waits for free space
  // for the rest. Ready times should not decrease from chunk to chunk; a
  // later chunk never becomes available before an earlier one.
  void push(uint64_t bytes, const sc_core::sc_time& ready, const uint8_t* data);
  // As push() but never waits: false (nothing pushed) when space is short.
  bool try_push(uint64_t bytes, const sc_core::sc_time& ready, const uint8_t* data);

  // --- consumer ---
  // Waits until `bytes` are present and ready, then removes them into `out`
  // (nullptr: discard). Returns the kernel time at which they were taken.
  sc_core::sc_time pop(uint64_t bytes, uint8_t* out);
  // Decoupled pop for a consumer at local time `consumer_time`: if `bytes`
  // are present, removes them and returns max(consumer_time, their ready
  // time), counting the difference as consumer stall; nullopt otherwise.
  std::optional<sc_core::sc_time> try_pop(uint64_t bytes, uint8_t* out,
                                          const sc_core::sc_time& consumer_time) {
    const auto ready = try_pop_ready(bytes, out, consumer_time);
    if (ready && *ready < consumer_time) return consumer_time;
    return ready;
  }
  // As try_pop(), but returns the bytes' own ready time (the latest of their
  // chunks'), which may lie before consumer_time.
  std::optional<sc_core::sc_time> try_pop_ready(uint64_t bytes, uint8_t* out,
                                                const sc_core::sc_time& consumer_time) {
    if (bytes > level_) return std::nullopt;
    const sc_core::sc_time ready = remove(bytes, out);
    if (ready > consumer_time) stats_.consumer_stall += ready - consumer_time;
    return ready;
  }

  const stats& statistics() const { return stats_; }

 private:
  struct chunk {
    uint64_t bytes;
    sc_core::sc_time ready;
  };
  void append(uint64_t bytes, const sc_core::sc_time& ready, const uint8_t* data);
  // Removes `bytes` (<= level); returns the latest ready time among them.
  // Inline for the common case, bytes inside the oldest chunk and no data
  // to hand out: a GEMV pops millions of row records per decoded token.
  sc_core::sc_time remove(uint64_t bytes, uint8_t* out) {
    if (out || bytes == 0 || chunks_.front().bytes <= bytes) return remove_chunks(bytes, out);
    chunk& c = chunks_.front();
    c.bytes -= bytes;
    consumed(bytes);
    return c.ready;
  }
  sc_core::sc_time remove_chunks(uint64_t bytes, uint8_t* out);  // any case
  // The bookkeeping of `bytes` leaving: ring head, level, statistics, space.
  void consumed(uint64_t bytes) {
    if (functional_) {  // only the byte ring has a head to move
      head_ += bytes;   // bytes <= level <= capacity: one wrap at most
      if (head_ >= capacity_) head_ -= capacity_;
    }
    level_ -= bytes;
    stats_.bytes_popped += bytes;
    notify_space();
  }
  void wait_for_space(uint64_t bytes);
  // Wakes a producer waiting for space, if one is. A waiter re-checks the
  // space when it wakes, so a notification no one waits for is left out,
  // and so is any after the first of a wait: a consumer pops many records
  // before the waiter runs, and one notification wakes it.
  void notify_space() {
    if (space_waiters_ > 0 && !space_notified_) {
      space_notified_ = true;
      popped_.notify(sc_core::SC_ZERO_TIME);
    }
  }

  std::string name_;
  uint64_t capacity_;
  bool functional_;
  uint64_t level_ = 0;
  uint64_t reserved_ = 0;
  ring_queue<chunk> chunks_;
  std::vector<uint8_t> ring_;  // functional mode only
  uint64_t head_ = 0;          // ring index of the oldest byte (functional mode)
  // Only the FIFO's own blocking calls wait on these, and only while a
  // waiter exists are they notified: a decoupled consumer pops thousands of
  // records per quantum, and an event nobody waits for still costs a delta.
  sc_core::sc_event pushed_;
  sc_core::sc_event popped_;
  unsigned space_waiters_ = 0, data_waiters_ = 0;
  bool space_notified_ = false;  // popped_ notified since a waiter last waited
  stats stats_;
};

}  // namespace pccx::mem
