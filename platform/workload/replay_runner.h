// `pccx-vp replay FILE.memh` (docs/guides/cli.md): a raw instruction stream
// written to CMD_IN through the firmware CPU by the replay program
// (firmware/programs/replay.c, pccx_replay.h), with the DMA descriptors and
// DDR preloads of a side file, then the wait for idle. Errors are reported
// against the .memh line of the word (the NPU's ERR_SEQ is the word's
// index in the stream) and the JSON pointer of the descriptor.
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "models/npu/isa/memh_reader.h"
#include "platform/config/platform_config.h"
#include "platform/vp/top/simulation.h"

namespace pccx::workload {

struct replay_descriptor {
  std::size_t index = 0;  // in the DMA file's order
  unsigned channel = 0, cls = 0, tag = 0;
  uint64_t addr = 0;
  uint32_t bytes = 0;
  std::size_t before_word = 0;  // submitted before this word (the number of words: after all)
  std::size_t before_line = 0;  // its .memh line, 0 when before the stream
  std::string pointer;          // where it is in the DMA file, e.g. /descriptors/2
};

struct replay_preload {
  uint64_t addr = 0;
  std::vector<uint8_t> bytes;
  std::string pointer;
};

struct replay_input {
  std::string file;  // the .memh, as given
  std::vector<isa::memh_word> words;
  std::string dma_file;                        // "" when none
  std::vector<replay_descriptor> descriptors;  // in submission order
  std::vector<replay_preload> preloads;
};

// The .memh file (isa::memh_error naming FILE:LINE on a malformed line)
// and the DMA file (config::config_error, every problem as
// "<file>: <JSON pointer>: <what>"); the preloads are checked against the
// DDR of `cfg`.
replay_input load_replay(const std::string& memh, const std::string& dma_file,
                         const config::platform_config& cfg);

struct replay_npu_error {
  std::size_t line = 0;  // of the word in the .memh file
  uint64_t seq = 0, word = 0;
  uint32_t code = 0;
  std::string name, detail, disasm;
};

struct replay_dma_problem {
  std::size_t descriptor = 0;  // in the DMA file's order
  std::string pointer, channel;
  uint32_t errors = 0;               // PCCX_DMA_ERR_* bits; 0 for a pending descriptor
  std::vector<std::string> reasons;  // their names, or "no status: never completed"
};

struct replay_report {
  std::string file, dma_file;
  std::size_t words = 0, descriptors = 0, preloads = 0;
  bool ok = false;
  std::string error;  // one line, unless ok
  uint64_t instructions_retired = 0;
  std::size_t words_sent = 0;  // written to CMD_IN (all of them unless the stream stopped)
  bool stopped = false;        // at an NPU error
  bool idle = false;           // the NPU went idle after the stream
  double sim_time_ns = 0, stream_ns = 0;  // stream: from its start to idle (0 unless idle)
  // When the stream did not complete: the first word that neither
  // completed nor faulted (line 0: none).
  std::size_t first_pending_line = 0;
  std::string first_pending;
  std::vector<replay_npu_error> npu_errors;
  std::vector<replay_dma_problem> dma_errors;
  // With trace.instructions: one record per instruction word the NPU took,
  // the trace's fields with "line" added.
  nlohmann::json instructions = nlohmann::json::array();
  vp::run_result run;
  std::string text() const;  // the report for people
};

// One run per process, like any platform run.
replay_report run_replay(const config::platform_config& cfg, const replay_input& in,
                         bool keep_going);

// The --json document: "status" (ok, failed, bad_input), "error" unless
// ok, and, when the run got that far, every field of the report.
nlohmann::json replay_document(const std::string& file, const std::string& dma_file,
                               const replay_report* report, const std::string& status,
                               const std::string& error);

}  // namespace pccx::workload
