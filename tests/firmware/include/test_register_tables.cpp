// The register tables of the firmware headers (PCCX_NPU_REGISTERS,
// PCCX_DMA_REGISTERS) against the documentation: every register the driver
// and the models share appears in the docs' table with the same offset and
// access rule, and every row of the docs' table names a register of the
// header's table. The banks themselves are built from the same tables.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <map>
#include <sstream>

#include "infra/regs/register_bank.h"
#include "pccx_dma.h"
#include "pccx_npu_regs.h"

namespace {

using pccx::regs::register_info;

struct doc_row {
  uint32_t offset;
  std::string access;
  int line;
};

std::string trim(const std::string& s) {
  const size_t b = s.find_first_not_of(' ');
  const size_t e = s.find_last_not_of(' ');
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

std::vector<std::string> split(const std::string& s, const std::string& sep) {
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t at; (at = s.find(sep, start)) != std::string::npos; start = at + sep.size())
    out.push_back(trim(s.substr(start, at - start)));
  out.push_back(trim(s.substr(start)));
  return out;
}

// The rows of the first "| Offset | Name | Access |" table of `doc`, by
// register name: "0x24 / 0x28 | RETIRED_LO / HI" gives RETIRED_LO and
// RETIRED_HI. Rows whose offset is a formula (the counter array) are left out.
std::map<std::string, doc_row> documented(const std::string& doc) {
  std::ifstream in(std::string(PCCX_SOURCE_DIR) + "/" + doc);
  EXPECT_TRUE(in) << doc << " is missing";
  std::map<std::string, doc_row> rows;
  bool inside = false;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (line.rfind("| Offset | Name | Access |", 0) == 0) {
      if (!rows.empty()) break;
      inside = true;
      continue;
    }
    if (!inside) continue;
    if (line.rfind("|---", 0) == 0) continue;
    if (line.rfind("|", 0) != 0) break;
    const auto cells = split(line.substr(1), "|");
    if (cells.size() < 3 || cells[0].find('+') != std::string::npos) continue;
    const auto offsets = split(cells[0], " / ");
    auto names = split(cells[1], " / ");
    EXPECT_EQ(offsets.size(), names.size()) << doc << ":" << n << ": " << line;
    for (size_t i = 0; i < offsets.size() && i < names.size(); ++i) {
      // "RETIRED_LO / HI": the second name keeps the first one's prefix.
      if (i > 0 && names[i].find('_') == std::string::npos)
        names[i] = names[0].substr(0, names[0].rfind('_') + 1) + names[i];
      rows[names[i]] = {static_cast<uint32_t>(std::stoul(offsets[i], nullptr, 16)), cells[2], n};
    }
  }
  return rows;
}

void check(const std::string& doc, const register_info* table, size_t count) {
  auto rows = documented(doc);
  ASSERT_FALSE(rows.empty()) << doc << " has no register table";
  for (size_t i = 0; i < count; ++i) {
    const register_info& r = table[i];
    const auto it = rows.find(r.name);
    if (it == rows.end()) {
      ADD_FAILURE() << doc << " does not document register " << r.name;
      continue;
    }
    EXPECT_EQ(it->second.offset, r.offset)
        << doc << ":" << it->second.line << ": " << r.name << " is at offset 0x" << std::hex
        << r.offset << " in the header's table";
    EXPECT_EQ(it->second.access, pccx::regs::access_text(r.rule))
        << doc << ":" << it->second.line << ": " << r.name << " has access "
        << pccx::regs::access_text(r.rule) << " in the header's table";
    rows.erase(it);
  }
  for (const auto& [name, row] : rows)
    ADD_FAILURE() << doc << ":" << row.line << ": " << name
                  << " is not a register of the header's table";
}

const register_info kNpu[] = {PCCX_NPU_REGISTERS(PCCX_REGISTER_ROW)};
const register_info kDma[] = {PCCX_DMA_REGISTERS(PCCX_REGISTER_ROW)};

}  // namespace

TEST(RegisterTables, NpuRegistersMatchTheirDocumentation) {
  check("docs/reference/registers.md", kNpu, std::size(kNpu));
}

TEST(RegisterTables, DmaPageRegistersMatchTheirDocumentation) {
  check("docs/models/memory-dma-l2.md", kDma, std::size(kDma));
}

TEST(RegisterTables, TablesAreInOffsetOrderWithoutOverlap) {
  for (auto [table, count] : {std::pair{kNpu, std::size(kNpu)}, std::pair{kDma, std::size(kDma)}})
    for (size_t i = 1; i < count; ++i)
      EXPECT_LT(table[i - 1].offset, table[i].offset) << table[i].name;
  EXPECT_LT(kNpu[std::size(kNpu) - 1].offset, uint32_t{PCCX_REG_PERF_BASE});
}
