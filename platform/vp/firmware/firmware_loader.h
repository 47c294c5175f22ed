// Finds the firmware to run: a program built into pccx-vp, by name; a
// shared object built from the user's own driver code, by path (it must
// export `int pccx_firmware_main(void)` and leave the uca_hal_* symbols
// undefined: pccx-vp supplies them and nothing else); or a static AArch64
// ELF, the binary that goes onto the board, by path (elf_image.h).
#pragma once

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "platform/vp/cpu/firmware_cpu.h"
#include "platform/vp/firmware/elf_image.h"

namespace pccx::vp {

struct firmware_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct firmware_image {
  std::string name;    // program name or the file's path
  std::string origin;  // "built-in", "shared object" or "AArch64 ELF"
  firmware_entry entry = nullptr;
  std::shared_ptr<const elf_image> elf;  // an AArch64 ELF instead of host code
  std::shared_ptr<void> handle;  // keeps a loaded object mapped
  std::vector<std::string> warnings;
};

std::vector<std::string> builtin_firmware_names();
// A name without '/' and not ending in ".so" or ".elf" is a built-in program.
firmware_image load_firmware(const std::string& name_or_path);  // throws firmware_error

}  // namespace pccx::vp
