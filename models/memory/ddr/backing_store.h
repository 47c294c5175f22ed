// The bytes behind the DDR in functional mode: sparse 4 KiB pages, allocated
// on the first write that touches them. Reading memory never written returns
// zeros and allocates nothing. Offsets are relative to the DDR base.
#pragma once

#include <cstdint>
#include <memory>
#include <unordered_map>

namespace pccx::mem {

class backing_store {
 public:
  static constexpr uint64_t kPageBytes = 4096;

  explicit backing_store(uint64_t size_bytes);

  // Both require offset + length <= size() (the controller checks).
  void read(uint64_t offset, uint8_t* dst, uint64_t length) const;
  void write(uint64_t offset, const uint8_t* src, uint64_t length);
  // Writes only the bytes whose enable byte (repeating every be_length) is 0xFF.
  void write_enabled(uint64_t offset, const uint8_t* src, uint64_t length, const uint8_t* be,
                     uint64_t be_length);

  uint64_t size() const { return size_; }
  uint64_t allocated_pages() const { return pages_.size(); }
  uint64_t allocated_bytes() const { return pages_.size() * kPageBytes; }
  void clear() { pages_.clear(); }

 private:
  using page = std::unique_ptr<uint8_t[]>;
  uint8_t* page_for_write(uint64_t index);

  uint64_t size_;
  std::unordered_map<uint64_t, page> pages_;
};

}  // namespace pccx::mem
