// throws_exception: a C++ firmware whose entry point lets an exception
// out: the run must end failed with the exception's text.
#include <stdexcept>

#include "pccx_firmware.h"

extern "C" int pccx_firmware_main(void) {
  throw std::runtime_error("the driver gave up on purpose");
}
