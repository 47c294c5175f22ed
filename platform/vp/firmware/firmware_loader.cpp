#include "platform/vp/firmware/firmware_loader.h"

#include <dlfcn.h>
#include <elf.h>

#include <algorithm>
#include <fstream>

#include "uCA_v1_hal.h"

extern "C" {
#define PCCX_BUILTIN_FIRMWARE(name) int pccx_fw_##name(void);
#include "builtin_programs.inc"
#undef PCCX_BUILTIN_FIRMWARE
}

namespace pccx::vp {

namespace {

struct builtin {
  const char* name;
  firmware_entry entry;
};

const std::vector<builtin>& builtins() {
  static const std::vector<builtin> list = {
#define PCCX_BUILTIN_FIRMWARE(name) {#name, &pccx_fw_##name},
#include "builtin_programs.inc"
#undef PCCX_BUILTIN_FIRMWARE
  };
  return list;
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() > suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool looks_like_path(const std::string& s) {
  return s.find('/') != std::string::npos || ends_with(s, ".so") || ends_with(s, ".elf");
}

}  // namespace

std::vector<std::string> builtin_firmware_names() {
  std::vector<std::string> names;
  for (const auto& b : builtins()) names.emplace_back(b.name);
  return names;
}

firmware_image load_firmware(const std::string& name_or_path) {
  firmware_image img;
  img.name = name_or_path;
  if (!looks_like_path(name_or_path)) {
    for (const auto& b : builtins()) {
      if (name_or_path == b.name) {
        img.origin = "built-in";
        img.entry = b.entry;
        return img;
      }
    }
    std::string known;
    for (const auto& n : builtin_firmware_names()) known += (known.empty() ? "" : ", ") + n;
    throw firmware_error("--firmware " + name_or_path +
                         ": no built-in program of that name (built in: " + known +
                         "; a file needs a path containing '/' or ending in .so or .elf)");
  }

  // The board's binary: an AArch64 ELF (a shared object for the host is
  // ELF too, and goes to dlopen below).
  const elf_image::identity id = elf_image::identify(name_or_path);
  if (id.elf && (id.machine == EM_AARCH64 || id.type == ET_EXEC)) {
    img.elf = std::make_shared<const elf_image>(elf_image::load(name_or_path));
    img.origin = "AArch64 ELF";
    return img;
  }
  if (!id.elf) {
    std::ifstream probe(name_or_path);
    if (probe)
      throw firmware_error("--firmware " + name_or_path +
                           ": neither an AArch64 ELF executable nor a shared object (no ELF "
                           "header)");
  }

  // RTLD_NOW reports unresolved symbols here rather than mid-run; RTLD_LOCAL
  // keeps one object's symbols from satisfying another's.
  // dlopen searches the library path for a name without '/'; a firmware
  // object named on the command line is a file relative to here.
  const std::string path =
      name_or_path.find('/') == std::string::npos ? "./" + name_or_path : name_or_path;
  dlerror();
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* why = dlerror();
    throw firmware_error("--firmware " + name_or_path +
                         ": cannot load: " + (why ? why : "unknown dlopen error"));
  }
  img.handle = std::shared_ptr<void>(handle, [](void* h) { dlclose(h); });
  img.origin = "shared object";
  void* sym = dlsym(handle, "pccx_firmware_main");
  if (!sym)
    throw firmware_error("--firmware " + name_or_path +
                         ": does not export pccx_firmware_main, the firmware entry point "
                         "(int pccx_firmware_main(void))");
  img.entry = reinterpret_cast<firmware_entry>(sym);

  // A HAL inside the object is ignored (the executable's definitions win the
  // symbol lookup), which is worth saying: it usually means the KV260 HAL
  // was linked in by mistake.
  const std::pair<const char*, void*> hal[] = {
      {"uca_hal_write32", reinterpret_cast<void*>(&uca_hal_write32)},
      {"uca_hal_read32", reinterpret_cast<void*>(&uca_hal_read32)}};
  for (const auto& [symbol, ours] : hal) {
    void* theirs = dlsym(handle, symbol);
    if (theirs && theirs != ours)
      img.warnings.push_back(std::string("firmware object defines its own ") + symbol +
                             "; the platform's HAL is used instead");
  }
  return img;
}

}  // namespace pccx::vp
