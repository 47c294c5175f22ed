// A decode_report (decode_runner.h) as JSON: the document `pccx-vp decode
// --json FILE` writes and `pccx-vp decode-table` reads back, one per cell.
// Every field of the report has its one line in to_json(), so a new field
// is added there and nowhere else. docs/guides/decode-table.md lists the keys.
#pragma once

#include <nlohmann/json.hpp>

#include "platform/workload/decode_runner.h"
#include "platform/workload/llm/roofline.h"

namespace pccx::workload {

nlohmann::json to_json(const llm::roofline& r);
nlohmann::json to_json(const engine_time& e);
// Every field of the report; the firmware's printed lines only when the
// run failed (they carry the firmware's error lines).
nlohmann::json to_json(const decode_report& r);
nlohmann::json to_json(const decode_options& o);
// A run's outcome: "outcome", "exit_code", "message", "sim_time_ns",
// "instructions_retired", "counters", and "printed" when it failed.
nlohmann::json run_json(const vp::run_result& r);

// The document `pccx-vp decode --json` writes: the report's fields (when
// the run got that far, else none), "status" (ok, does_not_fit, failed,
// bad_input), "error" (the reason, unless ok) and "options" (what was
// asked for, with the model file).
nlohmann::json decode_document(const std::string& model_file, const decode_options& o,
                               const decode_report* report, const std::string& status,
                               const std::string& error);

}  // namespace pccx::workload
