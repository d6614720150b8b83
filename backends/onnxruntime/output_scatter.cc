// Scattering run outputs into per-request responses (see output_scatter.h).
#include "output_scatter.h"

#include <cstring>

#include "bytes_codec.h"
#include "ort_types.h"
#include "shapes.h"

namespace inferd::onnxruntime {
namespace {

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

// The shape the client sees for `rows` rows of `output`: the model's, or the
// configured dims when the output is reshaped and its dims are fixed.
std::vector<int64_t> ClientShape(const RunOutput& output, bool batching, int64_t rows) {
  const size_t skip = batching ? 1 : 0;
  std::vector<int64_t> shape(output.shape.begin() + skip, output.shape.end());
  const TensorSpec& spec = *output.spec;
  if (spec.reshape) {
    bool fixed = true;
    for (int64_t dim : spec.dims) fixed = fixed && dim >= 0;
    if (fixed && ElementCount(spec.dims) == ElementCount(shape)) {
      shape = spec.dims;
    }
  }
  if (batching) shape.insert(shape.begin(), rows);
  return shape;
}

// Adds `output`'s elements [first, first + count) to `response`; numeric
// elements are left to `copies`, made once every response is filled.
INFERD_Error* AddOutput(INFERD_Response* response, const RunOutput& output,
                        const std::vector<int64_t>& shape, size_t first, size_t count,
                        std::vector<INFERD_MemoryCopy>* copies) {
  const TensorSpec& spec = *output.spec;
  INFERD_Output* out = nullptr;
  if (auto* err = INFERD_ResponseOutput(response, &out, spec.name.c_str(), spec.type->datatype,
                                        shape.data(), static_cast<uint32_t>(shape.size()))) {
    return err;
  }
  const bool strings = spec.type->byte_size == 0;
  const size_t bytes =
      strings ? SerializedBytesSize(count, output.offsets[first + count] - output.offsets[first])
              : count * spec.type->byte_size;
  void* buffer = nullptr;
  INFERD_MemoryType memory_type = INFERD_MEMORY_CPU;
  int64_t memory_type_id = 0;
  if (auto* err = INFERD_OutputBuffer(out, &buffer, bytes, &memory_type, &memory_type_id)) {
    return err;
  }
  if (bytes == 0) return nullptr;
  if (!strings) {
    copies->push_back({buffer, output.data + first * spec.type->byte_size, bytes});
    return nullptr;
  }
  char* cursor = static_cast<char*>(buffer);
  for (size_t e = first; e < first + count; ++e) {
    const size_t begin = output.offsets[e];
    cursor = WriteBytesElement(
        cursor, std::string_view(output.strings.data() + begin, output.offsets[e + 1] - begin));
  }
  return nullptr;
}

// Fills `response` for the request whose rows start at `row`.
INFERD_Error* FillResponse(const ModelSettings& settings, const BatchedRequest& request,
                           int64_t row, std::span<const RunOutput> outputs,
                           INFERD_Response* response, std::vector<INFERD_MemoryCopy>* copies) {
  uint32_t requested = 0;
  if (auto* err = INFERD_RequestOutputCount(request.request, &requested)) return err;
  for (uint32_t k = 0; k < requested; ++k) {
    const char* name = nullptr;
    if (auto* err = INFERD_RequestOutputName(request.request, k, &name)) return err;
    const RunOutput* output = nullptr;
    for (const RunOutput& candidate : outputs) {
      if (candidate.spec->name == name) output = &candidate;
    }
    if (output == nullptr) {
      return MakeError(INFERD_ERROR_INVALID_ARG,
                       "the request asks for output '" + std::string(name) +
                           "', which the model's configuration does not list");
    }
    const int64_t all = ElementCount(output->shape);
    const int64_t total_rows = settings.batching() ? output->shape[0] : 1;
    const int64_t per_row = total_rows > 0 ? all / total_rows : 0;
    const int64_t rows = settings.batching() ? request.rows : 1;
    const std::vector<int64_t> shape = ClientShape(*output, settings.batching(), rows);
    if (auto* err = AddOutput(response, *output, shape, static_cast<size_t>(row * per_row),
                              static_cast<size_t>(rows * per_row), copies)) {
      return err;
    }
  }
  return nullptr;
}

}  // namespace

INFERD_Error* ReadRunOutput(const TensorSpec& spec, OrtPtr<OrtValue> value, bool batching,
                            int64_t rows, RunOutput* out) {
  const OrtApi& ort = Ort();
  out->spec = &spec;
  out->value = std::move(value);
  OrtTensorTypeAndShapeInfo* raw_info = nullptr;
  if (auto* err = OrtError(ort.GetTensorTypeAndShape(out->value.get(), &raw_info), Where(spec))) {
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
  if (type != spec.type->onnx) {
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
  if (spec.type->byte_size == 0) return ReadStrings(out->value.get(), elements, out);
  void* data = nullptr;
  if (auto* err = OrtError(ort.GetTensorMutableData(out->value.get(), &data), Where(spec))) {
    return err;
  }
  out->data = static_cast<const char*>(data);
  return nullptr;
}

void ScatterOutputs(INFERD_ModelInstance* instance, const ModelSettings& settings,
                    std::span<const BatchedRequest> requests, std::span<const RunOutput> outputs,
                    const std::string& error_prefix) {
  // Fill every response, make the copies in one call (split across the
  // server's buffer-manager threads when large), then send.
  struct Filled {
    INFERD_Response* response;
    INFERD_Error* error;
  };
  std::vector<Filled> filled;
  filled.reserve(requests.size());
  std::vector<INFERD_MemoryCopy> copies;
  int64_t row = 0;
  for (const BatchedRequest& request : requests) {
    INFERD_Response* response = nullptr;
    if (INFERD_Error* err = INFERD_ResponseNew(&response, request.request)) {
      INFERD_ErrorDelete(err);  // nothing can carry it; the release still happens
      row += request.rows;
      continue;
    }
    const size_t copies_before = copies.size();
    INFERD_Error* error = FillResponse(settings, request, row, outputs, response, &copies);
    if (error != nullptr) {
      copies.resize(copies_before);  // the response carries the error, not those outputs
      INFERD_Error* prefixed = PrefixedError(error, error_prefix);
      INFERD_ErrorDelete(error);
      error = prefixed;
    }
    filled.push_back({response, error});
    row += request.rows;
  }
  INFERD_Error* copied =
      INFERD_ModelInstanceCopyBuffers(instance, copies.data(), static_cast<uint32_t>(copies.size()));
  for (Filled& f : filled) {
    INFERD_Error* error = f.error;
    if (error == nullptr && copied != nullptr) error = PrefixedError(copied, error_prefix);
    INFERD_ErrorDelete(INFERD_ResponseSend(f.response, INFERD_RESPONSE_COMPLETE_FINAL, error));
  }
  INFERD_ErrorDelete(copied);
}

void RespondWithError(INFERD_Request* request, INFERD_Error* error, const std::string& prefix) {
  INFERD_Response* response = nullptr;
  if (INFERD_Error* err = INFERD_ResponseNew(&response, request)) {
    INFERD_ErrorDelete(err);
    return;
  }
  INFERD_ErrorDelete(
      INFERD_ResponseSend(response, INFERD_RESPONSE_COMPLETE_FINAL, PrefixedError(error, prefix)));
}

}  // namespace inferd::onnxruntime
