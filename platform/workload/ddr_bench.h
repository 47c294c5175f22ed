// The memory system on its own, driven by traffic generators (pccx-vp
// ddr-bench): one generator per stream, each on its DDR port, issuing
// sequential, strided or random transactions (seeded, over a span) of one
// size with a read/write mix, an optional rate limit and a number of
// outstanding requests; or replaying a file of requests. Reports the
// delivered bandwidth, its share of the peak, where the DRAM's time went,
// row hits, latency and energy, as text and JSON. This is how the DDR
// model is checked and how its documentation's figures are made.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "models/memory/common/traffic.h"
#include "platform/config/platform_config.h"

namespace pccx::workload {

enum class access_pattern { sequential, strided, random };

struct ddr_bench_stream {
  mem::ddr_port port = mem::ddr_port::hp0;
  access_pattern pattern = access_pattern::sequential;
  mem::traffic_class cls = mem::traffic_class::weights;
  uint64_t base = 0;               // first address (offset into DDR)
  uint64_t span = 1ull << 32;      // addresses stay in [base, base + span)
  uint64_t stride = 8192;          // strided: bytes between transactions
  uint32_t size = 64;              // bytes per transaction
  uint64_t bytes = 64ull << 20;    // total the stream moves
  double reads = 1.0;              // share of transactions that read
  double rate_gbps = 0;            // 0 = as fast as the memory allows
  uint32_t outstanding = 16;       // requests in flight
  uint64_t seed = 1;
};

// "port=hp0,pattern=random,size=64,bytes=64MiB,span=4GiB,reads=1,
//  rate=0,outstanding=16,seed=1,stride=8192,base=0,class=weights";
// every key optional. Throws std::invalid_argument naming the bad part.
ddr_bench_stream parse_stream(const std::string& spec);

// One request of a replay file: "TIME_NS PORT ADDRESS BYTES R|W" per line,
// '#' starts a comment; ADDRESS may be hex (0x...).
struct ddr_request {
  double time_ns = 0;
  mem::ddr_port port = mem::ddr_port::hp0;
  uint64_t address = 0;
  uint32_t bytes = 0;
  bool write = false;
};
// Throws std::invalid_argument naming the file, line and what is wrong.
std::vector<ddr_request> read_requests(const std::string& path);

struct ddr_bench_options {
  std::vector<ddr_bench_stream> streams;
  std::vector<ddr_request> requests;  // replayed (on top of the streams)
  uint32_t replay_outstanding = 16;   // per port, for replayed requests
};

struct ddr_bench_result {
  nlohmann::ordered_json json;  // streams, totals, the DDR summary
  std::string text() const;
};

// Runs the generators against the DDR model the configuration describes
// (ddr.*, memory_map.ddr_*, clocks.axi_mhz, simulation.mode and quantum).
// One SystemC elaboration per process. Throws std::invalid_argument for
// streams that do not fit the DDR.
ddr_bench_result run_ddr_bench(const config::platform_config& cfg, const ddr_bench_options& o);

}  // namespace pccx::workload
