// A first-in-first-out queue in one circular array that doubles when full.
// For the queues a stream pushes and pops at every step: a stream FIFO's
// time-stamped chunks, a DMA channel's blocks in flight. std::deque
// allocates and frees a node every few dozen elements as the queue moves
// along, and reaches an element through its node map; here the storage
// stays once grown and an element is one masked index away.
#pragma once

#include <cstddef>
#include <iterator>
#include <utility>
#include <vector>

namespace pccx {

template <typename T>
class ring_queue {
 public:
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  // i-th element from the front; i < size().
  T& operator[](std::size_t i) { return slots_[(head_ + i) & mask_]; }
  const T& operator[](std::size_t i) const { return slots_[(head_ + i) & mask_]; }
  T& front() { return slots_[head_]; }
  const T& front() const { return slots_[head_]; }
  T& back() { return (*this)[size_ - 1]; }
  const T& back() const { return (*this)[size_ - 1]; }

  void push_back(const T& item) {
    if (size_ == slots_.size()) grow();
    slots_[(head_ + size_) & mask_] = item;
    ++size_;
  }
  // Not empty.
  void pop_front() {
    head_ = (head_ + 1) & mask_;
    --size_;
  }
  void clear() {
    head_ = 0;
    size_ = 0;
  }

  // Front to back, read only: what the queues' users scan.
  class const_iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = T;
    using difference_type = std::ptrdiff_t;
    using pointer = const T*;
    using reference = const T&;
    const_iterator(const ring_queue* q, std::size_t i) : q_(q), i_(i) {}
    reference operator*() const { return (*q_)[i_]; }
    pointer operator->() const { return &(*q_)[i_]; }
    const_iterator& operator++() {
      ++i_;
      return *this;
    }
    bool operator==(const const_iterator& o) const { return i_ == o.i_; }
    bool operator!=(const const_iterator& o) const { return i_ != o.i_; }

   private:
    const ring_queue* q_;
    std::size_t i_;
  };
  const_iterator begin() const { return {this, 0}; }
  const_iterator end() const { return {this, size_}; }

 private:
  // Twice the slots (at least 16), the elements moved to the front in order.
  void grow() {
    std::vector<T> bigger(slots_.empty() ? 16 : 2 * slots_.size());
    for (std::size_t i = 0; i < size_; ++i) bigger[i] = std::move((*this)[i]);
    slots_ = std::move(bigger);
    head_ = 0;
    mask_ = slots_.size() - 1;
  }

  std::vector<T> slots_;  // a power of two of them, or none
  std::size_t head_ = 0;  // slot of the front element
  std::size_t size_ = 0;
  std::size_t mask_ = 0;  // slots_.size() - 1
};

}  // namespace pccx
