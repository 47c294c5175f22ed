#include "platform/app/prefill_plan_command.h"

#include <iostream>
#include <stdexcept>

#include "infra/io/output_file.h"
#include "platform/vp/top/simulation.h"
#include "platform/workload/llm/model_config.h"
#include "platform/workload/prefill_plan_report.h"

namespace pccx::app {

llm::prefill_options prefill_options_of(const cli_options& opts) {
  llm::prefill_options o;
  o.prompt = opts.prompt_tokens;
  o.chunk = opts.chunk;
  o.generated = opts.decode_tokens;
  o.ring_cap = opts.ring_cap;
  o.sinks = opts.sinks;
  o.evict = opts.evict;
  return o;
}

int run_prefill_plan_command(const config::platform_config& cfg, const cli_options& opts) {
  const llm::model_config m = llm::load_model(opts.model);
  workload::prefill_plan_report r;
  try {
    r = workload::plan_prefill_on(cfg, m, prefill_options_of(opts));
  } catch (const std::invalid_argument& e) {
    throw vp::input_error(std::string("prefill-plan: ") + e.what());
  } catch (const llm::ddr_plan_error& e) {
    throw vp::input_error(std::string("prefill-plan: ") + e.what());
  }
  std::cout << r.text(m);
  if (!opts.json_file.empty())
    io::write_output(opts.json_file, r.json(m).dump(2) + "\n", "the --json report");
  return 0;
}

}  // namespace pccx::app
