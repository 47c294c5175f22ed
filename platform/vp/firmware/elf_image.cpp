#include "platform/vp/firmware/elf_image.h"

#include <elf.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>

#include "infra/text/hex.h"
#include "platform/vp/firmware/firmware_loader.h"

namespace pccx::vp {

namespace {

// Executables beyond this are not firmware for a 2 MiB-stack A53 program.
constexpr uint64_t kMaxFileBytes = 256ull << 20;

std::string machine_name(uint16_t m) {
  switch (m) {
    case EM_X86_64: return "x86-64";
    case EM_386: return "i386";
    case EM_ARM: return "32-bit ARM";
    case EM_RISCV: return "RISC-V";
    case EM_AARCH64: return "AArch64";
    default: return "machine " + std::to_string(m);
  }
}

}  // namespace

elf_image::identity elf_image::identify(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  unsigned char h[20] = {};
  identity id;
  if (!f.read(reinterpret_cast<char*>(h), sizeof h) || std::memcmp(h, ELFMAG, SELFMAG) != 0)
    return id;
  id.elf = true;
  // e_type and e_machine (offsets 16 and 18), little endian as on both
  // machines that matter here.
  id.type = static_cast<uint16_t>(h[16] | h[17] << 8);
  id.machine = static_cast<uint16_t>(h[18] | h[19] << 8);
  return id;
}

elf_image elf_image::load(const std::string& path) {
  const auto fail = [&](const std::string& why) -> firmware_error {
    return firmware_error("--firmware " + path + ": " + why);
  };
  std::ifstream f(path, std::ios::binary | std::ios::ate);
  if (!f) throw fail("cannot open the file");
  const auto size = static_cast<uint64_t>(f.tellg());
  if (size > kMaxFileBytes)
    throw fail("the file is " + std::to_string(size) + " bytes, above the " +
               std::to_string(kMaxFileBytes >> 20) + " MiB an ELF firmware may have");
  f.seekg(0);
  std::vector<uint8_t> file(size);
  if (size && !f.read(reinterpret_cast<char*>(file.data()), static_cast<std::streamsize>(size)))
    throw fail("cannot read the file");
  const auto in_file = [&](uint64_t offset, uint64_t bytes) {
    return offset <= size && bytes <= size - offset;
  };

  Elf64_Ehdr eh{};
  if (size < EI_NIDENT || std::memcmp(file.data(), ELFMAG, SELFMAG) != 0)
    throw fail("not an ELF file");
  if (file[EI_CLASS] != ELFCLASS64) throw fail("a 32-bit ELF; the A53 firmware is ELF64 AArch64");
  if (file[EI_DATA] != ELFDATA2LSB) throw fail("a big-endian ELF; the A53 runs little endian");
  if (!in_file(0, sizeof eh)) throw fail("truncated ELF header");
  std::memcpy(&eh, file.data(), sizeof eh);
  if (eh.e_machine != EM_AARCH64)
    throw fail("an ELF for " + machine_name(eh.e_machine) + ", not AArch64");
  if (eh.e_type == ET_DYN)
    throw fail("a dynamic ELF (position-independent or shared); link the firmware -static "
               "-nostdlib as a bare-metal executable");
  if (eh.e_type != ET_EXEC) throw fail("not an executable ELF (e_type " + std::to_string(eh.e_type) + ")");
  if (eh.e_phentsize != sizeof(Elf64_Phdr) ||
      !in_file(eh.e_phoff, uint64_t{eh.e_phnum} * sizeof(Elf64_Phdr)))
    throw fail("truncated or malformed program header table");

  elf_image img;
  img.path_ = path;
  img.entry_ = eh.e_entry;
  for (uint16_t i = 0; i < eh.e_phnum; ++i) {
    Elf64_Phdr ph{};
    std::memcpy(&ph, file.data() + eh.e_phoff + uint64_t{i} * sizeof ph, sizeof ph);
    if (ph.p_type == PT_INTERP || ph.p_type == PT_DYNAMIC)
      throw fail("a dynamic ELF (it asks for a program interpreter or dynamic linking); link "
                 "the firmware -static -nostdlib as a bare-metal executable");
    if (ph.p_type != PT_LOAD || ph.p_memsz == 0) continue;
    const std::string which = "segment " + std::to_string(i) + " at " + text::hex(ph.p_vaddr, 8);
    if (ph.p_filesz > ph.p_memsz) throw fail(which + " has more file bytes than memory bytes");
    if (ph.p_filesz && !in_file(ph.p_offset, ph.p_filesz))  // .bss only: any offset
      throw fail(which + " lies past the end of the file");
    if (ph.p_vaddr + ph.p_memsz < ph.p_vaddr) throw fail(which + " wraps the address space");
    elf_segment s;
    s.address = ph.p_vaddr;
    s.memory_bytes = ph.p_memsz;
    if (ph.p_filesz)
      s.bytes.assign(file.begin() + static_cast<std::ptrdiff_t>(ph.p_offset),
                     file.begin() + static_cast<std::ptrdiff_t>(ph.p_offset + ph.p_filesz));
    s.executable = ph.p_flags & PF_X;
    s.writable = ph.p_flags & PF_W;
    img.segments_.push_back(std::move(s));
  }
  if (img.segments_.empty()) throw fail("no loadable segment");
  const bool entry_inside = std::any_of(img.segments_.begin(), img.segments_.end(), [&](const auto& s) {
    return s.executable && img.entry_ >= s.address && img.entry_ - s.address < s.memory_bytes;
  });
  if (!entry_inside)
    throw fail("the entry point " + text::hex(img.entry_, 8) + " is in no executable segment");

  // The symbol table, when the file keeps one (a stripped file runs too).
  if (eh.e_shentsize == sizeof(Elf64_Shdr) &&
      in_file(eh.e_shoff, uint64_t{eh.e_shnum} * sizeof(Elf64_Shdr))) {
    for (uint16_t i = 0; i < eh.e_shnum; ++i) {
      Elf64_Shdr sh{};
      std::memcpy(&sh, file.data() + eh.e_shoff + uint64_t{i} * sizeof sh, sizeof sh);
      if (sh.sh_type != SHT_SYMTAB || sh.sh_entsize != sizeof(Elf64_Sym) || sh.sh_link >= eh.e_shnum)
        continue;
      Elf64_Shdr strtab{};
      std::memcpy(&strtab, file.data() + eh.e_shoff + uint64_t{sh.sh_link} * sizeof strtab,
                  sizeof strtab);
      if (!in_file(sh.sh_offset, sh.sh_size) || !in_file(strtab.sh_offset, strtab.sh_size)) continue;
      for (uint64_t at = 0; at + sizeof(Elf64_Sym) <= sh.sh_size; at += sizeof(Elf64_Sym)) {
        Elf64_Sym sym{};
        std::memcpy(&sym, file.data() + sh.sh_offset + at, sizeof sym);
        const unsigned type = ELF64_ST_TYPE(sym.st_info);
        if ((type != STT_FUNC && type != STT_OBJECT && type != STT_NOTYPE) || sym.st_name == 0 ||
            sym.st_name >= strtab.sh_size || sym.st_shndx == SHN_UNDEF)
          continue;
        const char* name = reinterpret_cast<const char*>(file.data() + strtab.sh_offset + sym.st_name);
        const size_t len = strnlen(name, strtab.sh_size - sym.st_name);
        std::string n(name, len);
        if (n.empty() || n[0] == '$') continue;  // mapping symbols ($x, $d)
        img.symbols_.push_back({std::move(n), sym.st_value, sym.st_size, type == STT_FUNC});
      }
    }
  }
  std::stable_sort(img.symbols_.begin(), img.symbols_.end(),
                   [](const elf_symbol& a, const elf_symbol& b) { return a.address < b.address; });
  return img;
}

std::optional<elf_symbol> elf_image::symbol(const std::string& name) const {
  for (const auto& s : symbols_)
    if (s.name == name) return s;
  return std::nullopt;
}

std::string elf_image::describe(uint64_t address) const {
  // The last symbol at or below the address; functions win over labels.
  const elf_symbol* best = nullptr;
  for (const auto& s : symbols_) {
    if (s.address > address) break;
    if (!best || s.address > best->address || (s.function && !best->function)) best = &s;
  }
  if (!best) return "";
  if (best->size && address - best->address >= best->size && !best->function) return "";
  const uint64_t off = address - best->address;
  return off ? best->name + "+" + text::hex(off, 1) : best->name;
}

uint64_t elf_image::image_begin() const {
  uint64_t b = UINT64_MAX;
  for (const auto& s : segments_) b = std::min(b, s.address);
  return b;
}

uint64_t elf_image::image_end() const {
  uint64_t e = 0;
  for (const auto& s : segments_) e = std::max(e, s.address + s.memory_bytes);
  return e;
}

}  // namespace pccx::vp
