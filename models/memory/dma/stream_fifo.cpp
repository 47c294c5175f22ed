#include "models/memory/dma/stream_fifo.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "infra/time/kernel_time.h"

namespace pccx::mem {

using sc_core::sc_time;

stream_fifo::stream_fifo(std::string name, uint64_t capacity_bytes, bool functional)
    : name_(std::move(name)), capacity_(capacity_bytes), functional_(functional) {
  if (capacity_ == 0) throw std::invalid_argument(name_ + ": stream FIFO capacity 0");
  if (functional_) ring_.assign(capacity_, 0);
}

uint64_t stream_fifo::ready_bytes(const sc_time& t) const {
  uint64_t n = 0;
  for (const chunk& c : chunks_) {
    if (c.ready > t) break;
    n += c.bytes;
  }
  return n;
}

std::optional<sc_time> stream_fifo::ready_time(uint64_t bytes) const {
  if (bytes > level_) return std::nullopt;
  sc_time latest = sc_core::SC_ZERO_TIME;
  uint64_t covered = 0;
  for (const chunk& c : chunks_) {
    if (covered >= bytes) break;
    latest = std::max(latest, c.ready);
    covered += c.bytes;
  }
  return latest;
}

void stream_fifo::wait_for_space(uint64_t bytes) {
  if (bytes > capacity_)
    throw std::invalid_argument(name_ + ": " + std::to_string(bytes) +
                                " bytes can never fit a FIFO of " + std::to_string(capacity_));
  if (free_space() >= bytes) return;
  const sc_time t0 = kernel_time();
  ++space_waiters_;
  while (free_space() < bytes) {
    space_notified_ = false;  // the next pop wakes this wait
    sc_core::wait(popped_);
  }
  --space_waiters_;
  stats_.producer_stall += kernel_time() - t0;
}

void stream_fifo::reserve(uint64_t bytes) {
  wait_for_space(bytes);
  reserved_ += bytes;
}

bool stream_fifo::try_reserve(uint64_t bytes) {
  if (free_space() < bytes) return false;
  reserved_ += bytes;
  return true;
}

void stream_fifo::unreserve(uint64_t bytes) {
  reserved_ -= std::min(bytes, reserved_);
  notify_space();
}

void stream_fifo::append(uint64_t bytes, const sc_time& ready, const uint8_t* data) {
  if (bytes == 0) return;
  if (functional_) {
    uint64_t tail = (head_ + level_) % capacity_;
    const uint64_t first = std::min(bytes, capacity_ - tail);
    if (data) {
      std::memcpy(&ring_[tail], data, first);
      std::memcpy(&ring_[0], data + first, bytes - first);
    } else {
      std::memset(&ring_[tail], 0, first);
      std::memset(&ring_[0], 0, bytes - first);
    }
  }
  // Chunks never become available before an earlier one: bytes ready no
  // later than the last chunk join it (they become available with it).
  if (!chunks_.empty() && chunks_.back().ready >= ready)
    chunks_.back().bytes += bytes;
  else
    chunks_.push_back({bytes, ready});
  level_ += bytes;
  stats_.bytes_pushed += bytes;
  stats_.max_level = std::max(stats_.max_level, level_);
  if (data_waiters_ > 0) pushed_.notify(sc_core::SC_ZERO_TIME);
}

void stream_fifo::push(uint64_t bytes, const sc_time& ready, const uint8_t* data) {
  const uint64_t use = std::min(bytes, reserved_);
  reserved_ -= use;
  if (free_space() < bytes) wait_for_space(bytes);  // room already held or free: no call
  append(bytes, ready, data);
}

bool stream_fifo::try_push(uint64_t bytes, const sc_time& ready, const uint8_t* data) {
  const uint64_t use = std::min(bytes, reserved_);
  if (free_space() + use < bytes) return false;
  reserved_ -= use;
  append(bytes, ready, data);
  return true;
}

sc_time stream_fifo::remove_chunks(uint64_t bytes, uint8_t* out) {
  // Ready times never decrease along the chunks (append keeps them so):
  // the latest among those removed is the last one's.
  sc_time latest = sc_core::SC_ZERO_TIME;
  uint64_t left = bytes;
  while (left > 0) {
    chunk& c = chunks_.front();
    latest = c.ready;
    if (c.bytes > left) {
      c.bytes -= left;
      break;
    }
    left -= c.bytes;
    chunks_.pop_front();
  }
  if (functional_ && out) {
    const uint64_t first = std::min(bytes, capacity_ - head_);
    std::memcpy(out, &ring_[head_], first);
    std::memcpy(out + first, &ring_[0], bytes - first);
  }
  if (!functional_ && out) std::memset(out, 0, bytes);  // timing mode carries no data
  consumed(bytes);
  return latest;
}

sc_time stream_fifo::pop(uint64_t bytes, uint8_t* out) {
  if (bytes > capacity_)
    throw std::invalid_argument(name_ + ": a pop of " + std::to_string(bytes) +
                                " bytes can never be served by a FIFO of " +
                                std::to_string(capacity_));
  const sc_time t0 = kernel_time();
  for (;;) {
    const auto rt = ready_time(bytes);
    if (!rt) {
      ++data_waiters_;
      sc_core::wait(pushed_);
      --data_waiters_;
      continue;
    }
    const sc_time now = kernel_time();
    if (*rt > now) {
      sc_core::wait(*rt - now);  // present, not yet arrived
      continue;
    }
    break;
  }
  stats_.consumer_stall += kernel_time() - t0;
  remove(bytes, out);
  return kernel_time();
}

}  // namespace pccx::mem
