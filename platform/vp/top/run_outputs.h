// The run's trace outputs in output.dir, each switched by its key:
//   output.perfetto -> trace.perfetto.json (Chrome trace events, ui.perfetto.dev)
//   output.vcd      -> signals.vcd (engine busy, FIFO levels, DDR activity; GTKWave)
//   output.pccx     -> session.pccx (a pccx-lab session)
// Created after the platform is elaborated and before the simulation starts:
// it attaches to the models' hooks, streams what happens while the run goes
// (with the Perfetto flows from DMA descriptors to the instructions that
// took their FIFO bytes) and writes what is known only at the end (DDR
// bandwidth windows, markers and the token slices made of them, unit busy
// and FIFO level windows) in finish(). Nothing is attached, and nothing kept, for an output that is
// off. docs/reference/traces.md describes the files.
#pragma once

#include <memory>
#include <string>
#include <systemc>

#include "platform/config/platform_config.h"
#include "platform/vp/top/runtime_params.h"

namespace pccx::vp {

class platform_top;

class run_outputs {
 public:
  static constexpr const char* kPerfettoFile = "trace.perfetto.json";
  static constexpr const char* kVcdFile = "signals.vcd";
  static constexpr const char* kPccxFile = "session.pccx";

  // Throws input_error when a file cannot be created.
  run_outputs(const config::platform_config& cfg, const runtime_params& rt, platform_top& top);
  ~run_outputs();
  run_outputs(const run_outputs&) = delete;
  run_outputs& operator=(const run_outputs&) = delete;

  // After the simulation has ended: completes and closes every file.
  // Throws input_error when one cannot be written.
  void finish();

 private:
  struct perfetto;
  struct vcd;
  struct session;
  platform_top& top_;
  std::unique_ptr<perfetto> perfetto_;
  std::unique_ptr<vcd> vcd_;
  std::unique_ptr<session> session_;
};

}  // namespace pccx::vp
