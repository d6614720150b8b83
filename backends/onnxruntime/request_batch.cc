// Reading requests for a batched run (see request_batch.h).
#include "request_batch.h"

#include <algorithm>
#include <string>

#include "ort_api.h"

namespace inferd::onnxruntime {

INFERD_Error* PrepareRequest(const ModelSettings& settings, INFERD_Request* request,
                             BatchedRequest* out) {
  out->request = request;
  out->inputs.assign(settings.inputs.size(), RequestInput{});
  for (size_t i = 0; i < settings.inputs.size(); ++i) {
    const TensorSpec& spec = settings.inputs[i];
    RequestInput& in = out->inputs[i];
    if (INFERD_Error* err = INFERD_RequestInput(request, spec.name.c_str(), &in.input)) {
      INFERD_ErrorDelete(err);
      return MakeError(INFERD_ERROR_INVALID_ARG, "the request lacks input '" + spec.name + "'");
    }
    INFERD_DataType datatype = INFERD_TYPE_INVALID;
    if (INFERD_Error* err = INFERD_InputProperties(in.input, nullptr, &datatype, &in.shape,
                                                   &in.rank, &in.byte_size, &in.buffer_count)) {
      return err;
    }
    if (datatype != spec.type->datatype) {
      return MakeError(INFERD_ERROR_INVALID_ARG,
                       "input '" + spec.name + "' is " + INFERD_DataTypeString(datatype) +
                           " but the model expects " + INFERD_DataTypeString(spec.type->datatype));
    }
    if (!settings.batching()) continue;
    if (in.rank == 0) {
      return MakeError(INFERD_ERROR_INVALID_ARG,
                       "input '" + spec.name + "' has no batch dimension");
    }
    if (i == 0) {
      out->rows = in.shape[0];
    } else if (in.shape[0] != out->rows) {
      return MakeError(INFERD_ERROR_INVALID_ARG,
                       "input '" + spec.name + "' has " + std::to_string(in.shape[0]) +
                           " rows but input '" + settings.inputs[0].name + "' has " +
                           std::to_string(out->rows));
    }
  }
  return nullptr;
}

bool SameRowShape(const BatchedRequest& a, const BatchedRequest& b) {
  for (size_t i = 0; i < a.inputs.size(); ++i) {
    const RequestInput& x = a.inputs[i];
    const RequestInput& y = b.inputs[i];
    if (x.rank != y.rank || x.rank == 0) return false;
    if (!std::equal(x.shape + 1, x.shape + x.rank, y.shape + 1)) return false;
  }
  return true;
}

}  // namespace inferd::onnxruntime
