// One execute call of the fil backend: reads each request's FP32 input
// [rows, features], gathers all requests' rows into one batch (a single
// request's single aligned buffer is used in place, without a copy), predicts the
// whole batch with one library call, and answers each request with its rows
// of the output (output_transform.h). A request whose input is wrong gets its
// own error; the others run. Reports the prediction as the compute time.
#ifndef INFERD_BACKENDS_FIL_BATCH_RUNNER_H_
#define INFERD_BACKENDS_FIL_BATCH_RUNNER_H_

#include <cstdint>
#include <string>

#include "fil_settings.h"
#include "forest.h"
#include "inferd/backend.h"

namespace inferd::fil {

// Answers and releases every request in `requests`. `error_prefix` ("model
// 'm' version 1: ") starts every error sent.
void ExecuteBatch(const FilSettings& settings, Forest& forest, const std::string& error_prefix,
                  INFERD_ModelInstance* instance, INFERD_Request** requests, uint32_t count);

}  // namespace inferd::fil

#endif  // INFERD_BACKENDS_FIL_BATCH_RUNNER_H_
