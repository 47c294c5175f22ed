#include "models/memory/ddr/backing_store.h"

#include <algorithm>
#include <cstring>

namespace pccx::mem {

backing_store::backing_store(uint64_t size_bytes) : size_(size_bytes) {}

uint8_t* backing_store::page_for_write(uint64_t index) {
  auto it = pages_.find(index);
  if (it != pages_.end()) return it->second.get();
  page p(new uint8_t[kPageBytes]());  // value-initialised: zeros
  uint8_t* raw = p.get();
  pages_.emplace(index, std::move(p));
  return raw;
}

void backing_store::read(uint64_t offset, uint8_t* dst, uint64_t length) const {
  while (length > 0) {
    const uint64_t index = offset / kPageBytes;
    const uint64_t in_page = offset % kPageBytes;
    const uint64_t n = std::min(length, kPageBytes - in_page);
    auto it = pages_.find(index);
    if (it == pages_.end())
      std::memset(dst, 0, n);
    else
      std::memcpy(dst, it->second.get() + in_page, n);
    dst += n;
    offset += n;
    length -= n;
  }
}

void backing_store::write(uint64_t offset, const uint8_t* src, uint64_t length) {
  while (length > 0) {
    const uint64_t in_page = offset % kPageBytes;
    const uint64_t n = std::min(length, kPageBytes - in_page);
    std::memcpy(page_for_write(offset / kPageBytes) + in_page, src, n);
    src += n;
    offset += n;
    length -= n;
  }
}

void backing_store::write_enabled(uint64_t offset, const uint8_t* src, uint64_t length,
                                  const uint8_t* be, uint64_t be_length) {
  for (uint64_t i = 0; i < length; ++i) {
    if (be[i % be_length] != 0xFF) continue;
    const uint64_t at = offset + i;
    page_for_write(at / kPageBytes)[at % kPageBytes] = src[i];
  }
}

}  // namespace pccx::mem
