// How a forest's predictions become the fil backend's output, as Triton FIL
// defines it: a regressor's value; a classifier's class id (a binary one's
// probability against `threshold`, else the most probable class), as FP32; or
// with `predict_proba` each class's probability (a binary classifier gives
// [1 - p, p] when the output has two columns, p alone when it has one). Pure.
#ifndef INFERD_BACKENDS_FIL_OUTPUT_TRANSFORM_H_
#define INFERD_BACKENDS_FIL_OUTPUT_TRANSFORM_H_

#include <cstdint>
#include <string>

#include "fil_settings.h"

namespace inferd::fil {

// Whether a forest predicting `model_width` values per row (1 for a regressor
// or binary classifier, the class count otherwise) can fill the configured
// output. Returns "" or what does not fit, naming the output and its dims.
std::string CheckOutputWidth(const FilSettings& settings, int64_t model_width);

// Writes `rows` rows of settings.output_width values at `out` from `rows` x
// `model_width` predictions at `predictions`. REQUIRES: CheckOutputWidth
// accepted `model_width`.
void TransformOutput(const FilSettings& settings, int64_t model_width, const float* predictions,
                     int64_t rows, float* out);

}  // namespace inferd::fil

#endif  // INFERD_BACKENDS_FIL_OUTPUT_TRANSFORM_H_
