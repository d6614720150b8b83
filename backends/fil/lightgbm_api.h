// The few functions of LightGBM's C API (c_api.h, documented at
// lightgbm.readthedocs.io "C API") that the fil backend calls, declared here
// because the PyPI wheel that ships lib_lightgbm.so ships no header.
// lib_lightgbm.so is opened on first use (dlopen): from the fil backend's own
// folder, where the build copies it, else by the dynamic loader's search path.
// Thread-safe.
#ifndef INFERD_BACKENDS_FIL_LIGHTGBM_API_H_
#define INFERD_BACKENDS_FIL_LIGHTGBM_API_H_

#include <cstdint>
#include <string>

namespace inferd::fil {

// LightGBM's constants used here (c_api.h).
inline constexpr int kLgbmDtypeFloat32 = 0;  //!< C_API_DTYPE_FLOAT32
inline constexpr int kLgbmPredictNormal = 0;  //!< C_API_PREDICT_NORMAL

struct LightgbmApi {
  using BoosterHandle = void*;
  // Each returns 0 on success, -1 on failure (reason: GetLastError).
  const char* (*GetLastError)();
  int (*BoosterCreateFromModelfile)(const char* filename, int* out_num_iterations,
                                    BoosterHandle* out);
  int (*BoosterFree)(BoosterHandle handle);
  int (*BoosterGetNumClasses)(BoosterHandle handle, int* out_len);
  int (*BoosterGetNumFeature)(BoosterHandle handle, int* out_len);
  int (*BoosterPredictForMat)(BoosterHandle handle, const void* data, int data_type,
                              int32_t nrow, int32_t ncol, int is_row_major, int predict_type,
                              int start_iteration, int num_iteration, const char* parameter,
                              int64_t* out_len, double* out_result);
};

// The API, opening lib_lightgbm.so the first time. Returns null and sets
// `*error` (why it could not be opened) when unavailable.
const LightgbmApi* GetLightgbmApi(std::string* error);

}  // namespace inferd::fil

#endif  // INFERD_BACKENDS_FIL_LIGHTGBM_API_H_
