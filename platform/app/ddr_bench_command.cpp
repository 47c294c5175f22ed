#include "platform/app/ddr_bench_command.h"

#include <fstream>
#include <iostream>
#include <stdexcept>

#include "infra/io/output_file.h"
#include "platform/vp/top/simulation.h"
#include "platform/workload/ddr_bench.h"

namespace pccx::app {

workload::ddr_bench_options ddr_bench_input(const cli_options& opts) {
  workload::ddr_bench_options o;
  try {
    for (const std::string& spec : opts.streams) o.streams.push_back(workload::parse_stream(spec));
    if (!opts.requests_file.empty()) o.requests = workload::read_requests(opts.requests_file);
    if (o.streams.empty() && o.requests.empty()) o.streams.push_back(workload::ddr_bench_stream{});
  } catch (const std::invalid_argument& e) {
    throw vp::input_error(e.what());
  }
  return o;
}

int run_ddr_bench_command(const config::platform_config& cfg, const cli_options& opts) {
  const workload::ddr_bench_options o = ddr_bench_input(opts);
  workload::ddr_bench_result r;
  try {
    r = workload::run_ddr_bench(cfg, o);
  } catch (const std::invalid_argument& e) {
    throw vp::input_error(e.what());
  }
  std::cout << r.text();
  if (!opts.json_file.empty()) {
    io::write_output(opts.json_file, r.json.dump(2) + "\n", "the --json report");
  }
  return 0;
}

}  // namespace pccx::app
