// Register objects (infra/regs): access rules, callbacks, the LO/HI latch,
// the bus responses, and the checks a bank makes of its own table.
#include <gtest/gtest.h>

#include "infra/regs/register_bank.h"

using pccx::regs::access;
using pccx::regs::register_bank;

namespace {

struct bus {
  tlm::tlm_generic_payload tx;
  uint32_t data = 0;
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;

  tlm::tlm_response_status access(register_bank& b, tlm::tlm_command cmd, uint64_t addr,
                                  bool debug = false, unsigned length = 4) {
    tx.set_command(cmd);
    tx.set_address(addr);
    tx.set_data_ptr(reinterpret_cast<unsigned char*>(&data));
    tx.set_data_length(length);
    tx.set_byte_enable_ptr(nullptr);
    tx.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    b.transport(tx, debug ? nullptr : &delay);
    return tx.get_response_status();
  }
  uint32_t read(register_bank& b, uint64_t addr, bool debug = false) {
    EXPECT_EQ(access(b, tlm::TLM_READ_COMMAND, addr, debug), tlm::TLM_OK_RESPONSE);
    return data;
  }
  void write(register_bank& b, uint64_t addr, uint32_t v) {
    data = v;
    EXPECT_EQ(access(b, tlm::TLM_WRITE_COMMAND, addr), tlm::TLM_OK_RESPONSE);
  }
};

const pccx::regs::register_info kTable[] = {
    {"CTRL", 0x0, access::read_write},
    {"GO", 0x4, access::write_only},
    {"STAT", 0x8, access::read_only},
    {"ERR", 0xC, access::read_write_1_to_clear},
};

}  // namespace

TEST(RegisterBank, ReadWriteStoresAndResetValueShows) {
  register_bank b("bank", 0x100);
  b.add({"CTRL", 0x0, access::read_write}, 0x55);
  bus m;
  EXPECT_EQ(m.read(b, 0x0), 0x55u);
  m.write(b, 0x0, 0x1234);
  EXPECT_EQ(m.read(b, 0x0), 0x1234u);
  b["CTRL"].reset();
  EXPECT_EQ(m.read(b, 0x0), 0x55u);
}

TEST(RegisterBank, AccessRulesRefuseTheWrongDirection) {
  register_bank b("bank", 0x100);
  b.add_table(kTable, 4);
  b["STAT"].on_read([](bool) { return 7u; });
  bus m;
  m.data = 1;
  EXPECT_EQ(m.access(b, tlm::TLM_WRITE_COMMAND, 0x8), tlm::TLM_COMMAND_ERROR_RESPONSE);
  EXPECT_EQ(m.access(b, tlm::TLM_READ_COMMAND, 0x4), tlm::TLM_COMMAND_ERROR_RESPONSE);
  EXPECT_EQ(m.access(b, tlm::TLM_READ_COMMAND, 0x10), tlm::TLM_ADDRESS_ERROR_RESPONSE);
  EXPECT_EQ(m.access(b, tlm::TLM_READ_COMMAND, 0x2), tlm::TLM_BURST_ERROR_RESPONSE);
  EXPECT_EQ(m.access(b, tlm::TLM_READ_COMMAND, 0x0, false, 8), tlm::TLM_BURST_ERROR_RESPONSE);
  // A debug write has no effect and is refused.
  EXPECT_EQ(m.access(b, tlm::TLM_WRITE_COMMAND, 0x0, true), tlm::TLM_COMMAND_ERROR_RESPONSE);
  EXPECT_EQ(m.read(b, 0x0, true), 0u);
  EXPECT_EQ(m.read(b, 0x8), 7u);
}

TEST(RegisterBank, WriteOneToClearClearsOnlyTheBitsWritten) {
  register_bank b("bank", 0x100);
  b.add_table(kTable, 4);
  b["STAT"].on_read([](bool) { return 0u; });
  b["ERR"].set(0b1011);
  bus m;
  m.write(b, 0xC, 0b0010);
  EXPECT_EQ(m.read(b, 0xC), 0b1001u);
}

TEST(RegisterBank, WriteCallbackSeesTheValueAndTheCallersTime) {
  register_bank b("bank", 0x100);
  b.add_table(kTable, 4);
  b["STAT"].on_read([](bool) { return 0u; });
  uint32_t seen = 0;
  sc_core::sc_time when;
  b["GO"].on_write([&](uint32_t v, sc_core::sc_time& d) {
    seen = v;
    when = d;
  });
  bus m;
  m.delay = sc_core::sc_time(5, sc_core::SC_NS);
  m.write(b, 0x4, 0xABCD);
  EXPECT_EQ(seen, 0xABCDu);
  EXPECT_EQ(when, sc_core::sc_time(5, sc_core::SC_NS));
}

TEST(RegisterBank, ReadingLoLatchesHiForThePair) {
  register_bank b("bank", 0x100);
  uint64_t counter = 0x1111222233334444ull;
  b.add_counter64("CNT_LO", "CNT_HI", 0x20, [&] { return counter; });
  bus m;
  EXPECT_EQ(m.read(b, 0x20), 0x33334444u);
  counter = 0x9999888877776666ull;
  EXPECT_EQ(m.read(b, 0x24), 0x11112222u);        // the latched half
  EXPECT_EQ(m.read(b, 0x24, true), 0x99998888u);  // debug: live, no latch
  EXPECT_EQ(b.name_of(0x24), "CNT_HI");
}

TEST(RegisterBank, ATableRowWithoutBehaviourOrAMissingNameIsAnElaborationError) {
  register_bank b("top.npu.regs", 0x100);
  b.add_table(kTable, 4);
  try {
    b.check_behaviour();
    FAIL() << "no error";
  } catch (const std::logic_error& e) {
    EXPECT_STREQ(e.what(), "top.npu.regs: read-only register STAT has no read behaviour");
  }
  try {
    b["NOPE"];
    FAIL() << "no error";
  } catch (const std::logic_error& e) {
    EXPECT_STREQ(e.what(), "top.npu.regs: no register NOPE in the bank's table");
  }
  EXPECT_THROW(b.add({"TWICE", 0x0, access::read_only}), std::logic_error);
  EXPECT_THROW(b.add({"ODD", 0x3, access::read_only}), std::logic_error);
}

TEST(RegisterBank, AccessTextIsTheDocsNotation) {
  EXPECT_STREQ(pccx::regs::access_text(access::read_only), "R");
  EXPECT_STREQ(pccx::regs::access_text(access::write_only), "W");
  EXPECT_STREQ(pccx::regs::access_text(access::read_write), "RW");
  EXPECT_STREQ(pccx::regs::access_text(access::read_write_1_to_clear), "R / W1C");
}
