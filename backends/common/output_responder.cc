// Scattering run outputs into per-request responses (see output_responder.h).
#include "common/output_responder.h"

#include <string_view>

#include "common/bytes_elements.h"
#include "common/entry_points.h"
#include "common/shapes.h"

namespace inferd::backend_common {
namespace {

bool AllFixed(const std::vector<int64_t>& dims) {
  for (int64_t dim : dims) {
    if (dim < 0) return false;
  }
  return true;
}

// The shape the client sees for `rows` rows of `output`: the model's, or the
// configured dims when the output is reshaped and its dims are fixed. Built
// in place: one allocation per output of each response.
std::vector<int64_t> ClientShape(const RunOutput& output, bool batching, int64_t rows) {
  const size_t skip = batching ? 1 : 0;
  const int64_t* model_dims = output.shape.data() + skip;
  const size_t model_rank = output.shape.size() - skip;
  const TensorSpec& spec = *output.spec;
  const bool configured = spec.reshape && AllFixed(spec.dims) &&
                          ElementCount(spec.dims) == ElementCount(model_dims, model_rank);
  std::vector<int64_t> shape;
  shape.reserve(skip + (configured ? spec.dims.size() : model_rank));
  if (batching) shape.push_back(rows);
  if (configured) {
    shape.insert(shape.end(), spec.dims.begin(), spec.dims.end());
  } else {
    shape.insert(shape.end(), model_dims, model_dims + model_rank);
  }
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
                           int64_t row, const RunOutput* outputs, size_t output_count,
                           INFERD_Response* response, std::vector<INFERD_MemoryCopy>* copies) {
  uint32_t requested = 0;
  if (auto* err = INFERD_RequestOutputCount(request.request, &requested)) return err;
  for (uint32_t k = 0; k < requested; ++k) {
    const char* name = nullptr;
    if (auto* err = INFERD_RequestOutputName(request.request, k, &name)) return err;
    const RunOutput* output = nullptr;
    for (size_t o = 0; o < output_count; ++o) {
      if (outputs[o].spec != nullptr && outputs[o].spec->name == name) output = &outputs[o];
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

void ScatterOutputs(INFERD_ModelInstance* instance, const ModelSettings& settings, Batch batch,
                    const RunOutput* outputs, size_t output_count,
                    const std::string& error_prefix) {
  // Fill every response, make the copies in one call (split across the
  // server's buffer-manager threads when large), then send.
  struct Filled {
    INFERD_Response* response;
    INFERD_Error* error;
  };
  std::vector<Filled> filled;
  filled.reserve(batch.size());
  std::vector<INFERD_MemoryCopy> copies;
  int64_t row = 0;
  for (const BatchedRequest& request : batch) {
    INFERD_Response* response = nullptr;
    if (INFERD_Error* err = INFERD_ResponseNew(&response, request.request)) {
      INFERD_ErrorDelete(err);  // nothing can carry it; the release still happens
      row += request.rows;
      continue;
    }
    const size_t copies_before = copies.size();
    INFERD_Error* error =
        FillResponse(settings, request, row, outputs, output_count, response, &copies);
    if (error != nullptr) {
      copies.resize(copies_before);  // the response carries the error, not those outputs
      INFERD_Error* prefixed = PrefixedError(error, error_prefix);
      INFERD_ErrorDelete(error);
      error = prefixed;
    }
    filled.push_back({response, error});
    row += request.rows;
  }
  INFERD_Error* copied = INFERD_ModelInstanceCopyBuffers(instance, copies.data(),
                                                         static_cast<uint32_t>(copies.size()));
  for (Filled& f : filled) {
    INFERD_Error* error = f.error;
    if (error == nullptr && copied != nullptr) error = PrefixedError(copied, error_prefix);
    INFERD_ErrorDelete(INFERD_ResponseSend(f.response, INFERD_RESPONSE_COMPLETE_FINAL, error));
  }
  INFERD_ErrorDelete(copied);
}

void RespondAllWithError(Batch batch, INFERD_Error* error, const std::string& error_prefix) {
  for (const BatchedRequest& request : batch) {
    RespondWithError(request.request, error, error_prefix);
  }
}

}  // namespace inferd::backend_common
