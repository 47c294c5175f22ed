// Base for execution units that run one instruction at a time in their own
// SC_THREAD: the derived unit implements execute(), which may wait() for as
// long as the work takes and returns an error code (PCCX_ERR_NONE on success).
#pragma once

#include <optional>
#include <string>
#include <systemc>

#include "models/npu/core/execution_unit.h"

namespace pccx::npu {

class threaded_unit : public sc_core::sc_module, public execution_unit_if {
 public:
  SC_HAS_PROCESS(threaded_unit);
  explicit threaded_unit(sc_core::sc_module_name name);

  const char* unit_name() const override { return name(); }
  void start(const dispatched_instruction& d, completion_if& done) override;

 protected:
  struct result {
    uint32_t err = PCCX_ERR_NONE;
    std::string detail;
  };
  virtual result execute(const dispatched_instruction& d) = 0;

 private:
  void run();

  std::optional<dispatched_instruction> pending_;
  completion_if* done_ = nullptr;
  sc_core::sc_event start_event_;
};

}  // namespace pccx::npu
