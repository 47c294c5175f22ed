// A vector of at most N elements, kept inline: no heap allocation, and a
// copy is a copy of N slots. For the short lists a hot path builds and
// copies once per item, such as the L2 ranges of every dispatched NPU
// instruction. Going past N is a logic error and throws.
#pragma once

#include <array>
#include <cstddef>
#include <initializer_list>
#include <stdexcept>
#include <string>

namespace pccx {

template <typename T, std::size_t N>
class bounded_vector {
 public:
  using value_type = T;
  using iterator = T*;
  using const_iterator = const T*;

  bounded_vector() = default;
  bounded_vector(std::initializer_list<T> items) {
    for (const T& item : items) push_back(item);
  }

  static constexpr std::size_t capacity() { return N; }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  void push_back(const T& item) {
    if (size_ == N)
      throw std::length_error("bounded_vector: more than " + std::to_string(N) + " elements");
    items_[size_++] = item;
  }
  void clear() { size_ = 0; }

  T& operator[](std::size_t i) { return items_[i]; }
  const T& operator[](std::size_t i) const { return items_[i]; }
  const T& at(std::size_t i) const {
    if (i >= size_)
      throw std::out_of_range("bounded_vector: element " + std::to_string(i) + " of " +
                              std::to_string(size_));
    return items_[i];
  }
  T& back() { return items_[size_ - 1]; }
  const T& back() const { return items_[size_ - 1]; }

  iterator begin() { return items_.data(); }
  iterator end() { return items_.data() + size_; }
  const_iterator begin() const { return items_.data(); }
  const_iterator end() const { return items_.data() + size_; }

 private:
  std::array<T, N> items_{};
  std::size_t size_ = 0;
};

}  // namespace pccx
