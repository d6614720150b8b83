// FIL's output semantics over a forest's predictions (see output_transform.h).
#include "output_transform.h"

#include <algorithm>
#include <cstring>

namespace inferd::fil {

std::string CheckOutputWidth(const FilSettings& settings, int64_t model_width) {
  const std::string dims = "output '" + settings.output_name + "' has dims [ " +
                           std::to_string(settings.output_width) + " ] but the model predicts " +
                           std::to_string(model_width) + " value" +
                           (model_width == 1 ? "" : "s") + " per row";
  if (!settings.output_class) {
    if (model_width != 1) return dims + " (a regressor must predict one; set output_class)";
    return "";
  }
  if (!settings.predict_proba) return "";  // a class id; ParseFilSettings checked dims [ 1 ]
  if (model_width == 1) {
    if (settings.output_width == 1 || settings.output_width == 2) return "";
    return dims + " (a binary classifier's probabilities need dims [ 2 ] or [ 1 ])";
  }
  if (settings.output_width != model_width) return dims + " (one probability per class)";
  return "";
}

void TransformOutput(const FilSettings& settings, int64_t model_width, const float* predictions,
                     int64_t rows, float* out) {
  const bool binary = model_width == 1;
  if (!settings.output_class ||
      (settings.predict_proba && settings.output_width == model_width)) {
    std::memcpy(out, predictions, sizeof(float) * static_cast<size_t>(rows * model_width));
    return;
  }
  for (int64_t r = 0; r < rows; ++r) {
    const float* row = predictions + r * model_width;
    if (settings.predict_proba) {  // binary, two columns
      out[2 * r] = 1.0f - row[0];
      out[2 * r + 1] = row[0];
    } else if (binary) {
      out[r] = row[0] > settings.threshold ? 1.0f : 0.0f;
    } else {
      out[r] = static_cast<float>(std::max_element(row, row + model_width) - row);
    }
  }
}

}  // namespace inferd::fil
