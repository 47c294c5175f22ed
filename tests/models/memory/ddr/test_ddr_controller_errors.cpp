// Transactions the controller refuses: outside DDR, without the traffic
// extension, on the wrong socket, without data in functional mode.
#include <gtest/gtest.h>

#include <sstream>

#include "ddr_test_bench.h"
#include "infra/log/logger.h"

namespace pccx::test {
namespace {

using mem::ddr_port;

class captured_log {
 public:
  captured_log() { log::log_config::instance().set_stream(&out_); }
  ~captured_log() { log::log_config::instance().set_stream(nullptr); }
  std::string text() const { return out_.str(); }

 private:
  std::ostringstream out_;
};

TEST(DdrErrors, OutOfRangeAddressesAreAddressErrors) {
  ddr_system sys({"memory_map.ddr_base=0x10000000", "memory_map.ddr_size=0x1000000"});
  captured_log log;
  std::vector<uint8_t> buf(256);
  const uint64_t base = 0x10000000, end = base + 0x1000000;
  EXPECT_EQ(access(*sys.ddr, ddr_port::hp0, false, base - 16, buf.data(), 16),
            tlm::TLM_ADDRESS_ERROR_RESPONSE);
  EXPECT_EQ(access(*sys.ddr, ddr_port::hp0, false, end, buf.data(), 16),
            tlm::TLM_ADDRESS_ERROR_RESPONSE);
  EXPECT_EQ(access(*sys.ddr, ddr_port::hp0, true, end - 128, buf.data(), 256),  // straddles
            tlm::TLM_ADDRESS_ERROR_RESPONSE);
  EXPECT_EQ(access(*sys.ddr, ddr_port::hp0, true, end - 256, buf.data(), 256),
            tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(access(*sys.ddr, ddr_port::hp0, false, base, buf.data(), 256), tlm::TLM_OK_RESPONSE);
  EXPECT_NE(log.text().find("outside DDR [0x10000000, 0x11000000)"), std::string::npos)
      << log.text();
  // Rejected transactions are not counted.
  EXPECT_EQ(sys.ddr->recorder().total().transactions, 2u);
}

TEST(DdrErrors, MissingExtensionIsAGenericError) {
  ddr_system sys;
  captured_log log;
  std::vector<uint8_t> buf(64);
  sc_time delay(10, SC_NS);
  EXPECT_EQ(access(*sys.ddr, ddr_port::hp2, false, 0, buf.data(), 64, &delay, false),
            tlm::TLM_GENERIC_ERROR_RESPONSE);
  EXPECT_EQ(delay, sc_time(10, SC_NS));  // no time taken
  EXPECT_NE(log.text().find("hp2: read of 64 bytes at 0x0 rejected: no ddr_traffic extension"),
            std::string::npos)
      << log.text();
  EXPECT_EQ(sys.ddr->recorder().total().transactions, 0u);
}

TEST(DdrErrors, ExtensionNamingAnotherPortIsAGenericError) {
  ddr_system sys;
  captured_log log;
  tlm::tlm_generic_payload tr;
  tr.set_extension(new mem::ddr_traffic(ddr_port::hp0, mem::traffic_class::weights));
  std::vector<uint8_t> buf(64);
  tr.set_command(tlm::TLM_READ_COMMAND);
  tr.set_address(0);
  tr.set_data_ptr(buf.data());
  tr.set_data_length(64);
  tr.set_streaming_width(64);
  sc_time delay;
  sys.ddr->port(ddr_port::hp3).get_base_export()->b_transport(tr, delay);
  EXPECT_EQ(tr.get_response_status(), tlm::TLM_GENERIC_ERROR_RESPONSE);
  EXPECT_NE(log.text().find("names port hp0 but arrived on socket hp3"), std::string::npos);
}

TEST(DdrErrors, FunctionalModeNeedsData) {
  ddr_system sys;
  captured_log log;
  EXPECT_EQ(access(*sys.ddr, ddr_port::hp0, true, 0, nullptr, 64), tlm::TLM_GENERIC_ERROR_RESPONSE);
  EXPECT_NE(log.text().find("no data pointer in functional mode"), std::string::npos);
}

TEST(DdrErrors, BadParametersAreRejectedAtConstruction) {
  mem::ddr_params p;
  p.arbitration = "lottery";
  EXPECT_THROW(mem::ddr_controller("bad_policy", p), std::invalid_argument);
  p = mem::ddr_params{};
  p.size = 0;
  EXPECT_THROW(mem::ddr_controller("bad_size", p), std::invalid_argument);
}

}  // namespace
}  // namespace pccx::test
