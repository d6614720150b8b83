// Reading the outputs of a run (see run_output.h).
#include "run_output.h"

#include "common/shapes.h"
#include "ort_types.h"

namespace inferd::onnxruntime {
namespace {

using backend_common::ElementCount;
using backend_common::ShapeString;

std::string Where(const TensorSpec& spec) { return "output '" + spec.name + "'"; }

INFERD_Error* ReadStrings(const OrtValue* value, size_t elements, RunOutput* out) {
  const OrtApi& ort = Ort();
  const std::string where = Where(*out->spec);
  size_t total = 0;
  if (auto* err = OrtError(ort.GetStringTensorDataLength(value, &total), where)) return err;
  out->strings.resize(total);
  out->offsets.resize(elements + 1);
  if (elements > 0) {
    if (auto* err = OrtError(ort.GetStringTensorContent(value, out->strings.data(), total,
                                                         out->offsets.data(), elements),
                             where)) {
      return err;
    }
  }
  out->offsets[elements] = total;
  return nullptr;
}

}  // namespace

INFERD_Error* ReadRunOutput(const TensorSpec& spec, OrtValue* value, bool batching, int64_t rows,
                            RunOutput* out) {
  const OrtApi& ort = Ort();
  out->spec = &spec;
  OrtTensorTypeAndShapeInfo* raw_info = nullptr;
  if (auto* err = OrtError(ort.GetTensorTypeAndShape(value, &raw_info), Where(spec))) {
    return err;
  }
  OrtPtr<OrtTensorTypeAndShapeInfo> info(raw_info);
  ONNXTensorElementDataType type = ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
  size_t rank = 0;
  if (auto* err = OrtError(ort.GetTensorElementType(info.get(), &type), Where(spec))) return err;
  if (auto* err = OrtError(ort.GetDimensionsCount(info.get(), &rank), Where(spec))) return err;
  out->shape.resize(rank);
  if (auto* err = OrtError(ort.GetDimensions(info.get(), out->shape.data(), rank), Where(spec))) {
    return err;
  }
  if (type != OnnxType(*spec.type)) {
    return MakeError(INFERD_ERROR_INTERNAL, Where(spec) + " came out as " + OnnxTypeName(type) +
                                                " but the configuration says " +
                                                std::string(spec.type->config_name));
  }
  if (batching && (rank == 0 || out->shape[0] != rows)) {
    return MakeError(INFERD_ERROR_INTERNAL,
                     Where(spec) + " has shape " + ShapeString(out->shape) + " for a batch of " +
                         std::to_string(rows) + " rows; its first dimension must be the batch");
  }
  const auto elements = static_cast<size_t>(ElementCount(out->shape.data(), rank));
  if (spec.type->byte_size == 0) return ReadStrings(value, elements, out);
  void* data = nullptr;
  if (auto* err = OrtError(ort.GetTensorMutableData(value, &data), Where(spec))) {
    return err;
  }
  out->data = static_cast<const char*>(data);
  return nullptr;
}

}  // namespace inferd::onnxruntime
