#include "models/npu/core/execution_unit.h"

namespace pccx::npu {

const char* unit_kind_name(unit_kind k) {
  switch (k) {
    case unit_kind::gemv: return "gemv";
    case unit_kind::gemm: return "gemm";
    case unit_kind::sfu: return "sfu";
    case unit_kind::dma: return "dma";
    case unit_kind::count: break;
  }
  return "?";
}

}  // namespace pccx::npu
