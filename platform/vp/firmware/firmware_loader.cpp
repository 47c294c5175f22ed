#include "platform/vp/firmware/firmware_loader.h"

#include <dlfcn.h>
#include <elf.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

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

// What a file that is neither a firmware object nor the board's ELF is,
// from its first bytes: what a user most likely passed by mistake.
std::string what_file_is(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::string head(4096, '\0');
  f.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<size_t>(f.gcount()));
  if (head.empty()) return "an empty file";
  if (head.rfind("!<arch>\n", 0) == 0)
    return "a static library (ar archive); build the firmware as a shared object (-shared -fPIC)";
  if (head.rfind("#!", 0) == 0) return "a script (it starts with #!)";
  const size_t first = head.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && (head[first] == '{' || head[first] == '['))
    return "a JSON file (a configuration goes to --config, DMA descriptors to replay --dma)";
  // A .memh: lines of 16 hex digits, comments allowed.
  bool hex_line = false, other = false;
  std::istringstream lines(head);
  for (std::string line; std::getline(lines, line) && !lines.eof();) {
    if (line.empty() || line[0] == '#' || line.rfind("//", 0) == 0) continue;
    if (line.size() >= 16 && line.find_first_not_of("0123456789abcdefABCDEF") >= 16)
      hex_line = true;
    else
      other = true;
  }
  if (hex_line && !other)
    return "an instruction stream (.memh); run it with pccx-vp replay " + path;
  const bool text = std::all_of(head.begin(), head.end(), [](char c) {
    return c == '\n' || c == '\r' || c == '\t' || (static_cast<unsigned char>(c) >= 0x20);
  });
  if (text) return "a text file, not a compiled program";
  char bytes[16];
  std::snprintf(bytes, sizeof bytes, "%02x %02x %02x %02x", static_cast<unsigned char>(head[0]),
                head.size() > 1 ? static_cast<unsigned char>(head[1]) : 0,
                head.size() > 2 ? static_cast<unsigned char>(head[2]) : 0,
                head.size() > 3 ? static_cast<unsigned char>(head[3]) : 0);
  return std::string("a binary file of unknown kind (it starts with bytes ") + bytes + ")";
}

std::string machine_of(const elf_image::identity& id) {
  return id.machine == EM_X86_64    ? "x86-64"
         : id.machine == EM_AARCH64 ? "AArch64"
         : id.machine == EM_ARM     ? "32-bit ARM"
                                    : "machine " + std::to_string(id.machine);
}

std::string elf_kind(const elf_image::identity& id) {
  const std::string machine = machine_of(id);
  switch (id.type) {
    case ET_REL:
      return "an " + machine +
             " object file (.o, not linked); link it into a shared object (-shared -fPIC) for the "
             "host or a static executable for the board";
    case ET_CORE: return "an " + machine + " core dump";
    default: return "an ELF for " + machine;
  }
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
  std::error_code ec;
  if (!std::filesystem::exists(name_or_path, ec))
    throw firmware_error("--firmware " + name_or_path + ": no such file");
  if (!std::filesystem::is_regular_file(name_or_path, ec))
    throw firmware_error("--firmware " + name_or_path + ": not a regular file (a folder?)");
  const elf_image::identity id = elf_image::identify(name_or_path);
  if (id.elf && (id.type == ET_REL || id.type == ET_CORE))
    throw firmware_error("--firmware " + name_or_path + ": " + elf_kind(id));
  if (id.elf && (id.machine == EM_AARCH64 || id.type == ET_EXEC)) {
    img.elf = std::make_shared<const elf_image>(elf_image::load(name_or_path));
    img.origin = "AArch64 ELF";
    return img;
  }
  if (!id.elf)
    throw firmware_error("--firmware " + name_or_path +
                         ": neither a firmware object (a shared object for this host) nor an "
                         "AArch64 ELF executable: " +
                         what_file_is(name_or_path));

  // RTLD_NOW reports unresolved symbols here rather than mid-run; RTLD_LOCAL
  // keeps one object's symbols from satisfying another's.
  // dlopen searches the library path for a name without '/'; a firmware
  // object named on the command line is a file relative to here.
  const std::string path =
      name_or_path.find('/') == std::string::npos ? "./" + name_or_path : name_or_path;
  dlerror();
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const std::string why = [] {
      const char* e = dlerror();
      return std::string(e ? e : "unknown dlopen error");
    }();
    if (why.find("position-independent executable") != std::string::npos)
      throw firmware_error("--firmware " + name_or_path + ": an " + machine_of(id) +
                           " executable (a program, not a firmware object); build the firmware "
                           "as a shared object (-shared -fPIC)");
    throw firmware_error("--firmware " + name_or_path + ": cannot load: " + why);
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
