// Fuzz target: a LightGBM text model's header check (backends/fil), which
// reads the lines before the first tree for its "version=vN" record before
// LightGBM loads the file.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "fil/lightgbm_model_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  (void)inferd::fil::CheckLightgbmModelHeader(in);
  return 0;
}
