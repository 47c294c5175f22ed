// A static AArch64 executable as the board would boot it: its loadable
// segments, its entry point and its symbol table (for fault reports, the
// debugger and the few symbols the platform looks for). Read once, checked
// whole; anything else is a clear error naming the file and what is wrong.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace pccx::vp {

struct elf_segment {
  uint64_t address = 0;       // p_vaddr (the MMU is off: physical)
  uint64_t memory_bytes = 0;  // p_memsz; past the file bytes it is zero (.bss)
  std::vector<uint8_t> bytes; // p_filesz bytes from the file
  bool executable = false, writable = false;
};

struct elf_symbol {
  std::string name;
  uint64_t address = 0;
  uint64_t size = 0;
  bool function = false;
};

class elf_image {
 public:
  // What a file's first bytes say: whether it is ELF, for which machine
  // (e_machine) and of which type (e_type), without reading the rest.
  struct identity {
    bool elf = false;
    uint16_t machine = 0, type = 0;
  };
  static identity identify(const std::string& path);
  // Reads and checks `path`; throws firmware_error naming it.
  static elf_image load(const std::string& path);

  const std::string& path() const { return path_; }
  uint64_t entry() const { return entry_; }
  const std::vector<elf_segment>& segments() const { return segments_; }
  const std::vector<elf_symbol>& symbols() const { return symbols_; }
  std::optional<elf_symbol> symbol(const std::string& name) const;
  // "name+0x1c" for the symbol that holds (or precedes) `address`, or "".
  std::string describe(uint64_t address) const;
  // Lowest and one past the highest byte the segments occupy.
  uint64_t image_begin() const;
  uint64_t image_end() const;

 private:
  std::string path_;
  uint64_t entry_ = 0;
  std::vector<elf_segment> segments_;
  std::vector<elf_symbol> symbols_;  // sorted by address
};

}  // namespace pccx::vp
