// A prefill plan (llm::plan_prefill) on a platform configuration, as the
// `pccx-vp prefill-plan` command reports it: the chunk length and what
// bounds it, the weight passes, GEMM instructions, bytes per traffic class,
// MACs and the bound at the configuration's DDR bandwidth and GEMM peak;
// per matrix its K-parts, first group and stream. docs/models/prefill.md.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "platform/config/platform_config.h"
#include "platform/workload/decode_runner.h"
#include "platform/workload/llm/ddr_plan.h"
#include "platform/workload/llm/model_config.h"
#include "platform/workload/llm/prefill_plan.h"
#include "platform/workload/llm/roofline.h"

namespace pccx::workload {

// A chunk's GEMM work per kind of layer (the entry's matrices apart): its
// weight stream against its MACs, each at the DDR's effective bandwidth and
// the GEMM array's peak.
struct layer_kind_share {
  std::string kind;  // "entry", "local", "global", "local KV-sharing", ...
  uint32_t layers = 0;
  uint64_t stream_bytes = 0, macs = 0;
  double memory_s = 0, compute_s = 0;
};

struct prefill_plan_report {
  llm::prefill_plan plan;
  llm::ddr_plan ddr;  // the model with the prefill's rings (window rings + chunk - 1)
  llm::roofline bound;
  double ddr_bytes_per_second = 0;
  double gemm_macs_per_second = 0;
  uint32_t program_chunk_limit = 0;  // prefill_chunk_limit: what the decode program takes
  std::vector<prefill_query_tile> query_tiles;  // the last whole chunk's, per ring group
  std::vector<layer_kind_share> layer_kinds;    // a chunk's GEMMs per kind of layer

  // The summary, then the entry matrices and one layer of each storing kind.
  std::string text(const llm::model_config& m) const;
  nlohmann::json json(const llm::model_config& m) const;
};

// Plans the prefill of `m` on `cfg` (its npu.gemm buffers, npu.kv formats,
// DDR bandwidth and core clock) and lays the model out in DDR with the
// rings the prefill needs. std::invalid_argument (llm::prefill_plan_error
// among them) for what the plan refuses; llm::ddr_plan_error when the
// model and its rings do not fit.
prefill_plan_report plan_prefill_on(const config::platform_config& cfg, const llm::model_config& m,
                                    const llm::prefill_options& o);

}  // namespace pccx::workload
