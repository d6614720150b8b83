// Reading requests for a batched run (see request_batch.h).
#include "common/request_batch.h"

#include <algorithm>

#include "common/entry_points.h"
#include "common/shapes.h"

namespace inferd::backend_common {
namespace {

// Whether `b` may run in one batch with `a`: same shape of every input apart
// from dimension 0.
bool SameRowShape(const BatchedRequest& a, const BatchedRequest& b) {
  for (size_t i = 0; i < a.inputs.size(); ++i) {
    const RequestInput& x = a.inputs[i];
    const RequestInput& y = b.inputs[i];
    if (x.rank != y.rank || x.rank == 0) return false;
    if (!std::equal(x.shape + 1, x.shape + x.rank, y.shape + 1)) return false;
  }
  return true;
}

}  // namespace

int64_t Batch::rows() const {
  int64_t total = 0;
  for (const BatchedRequest& request : *this) total += request.rows;
  return total;
}

INFERD_Error* CheckDataSize(const TensorSpec& spec, const RequestInput& in) {
  const uint64_t want =
      static_cast<uint64_t>(ElementCount(in.shape, in.rank)) * spec.type->byte_size;
  if (in.byte_size == want) return nullptr;
  return MakeError(INFERD_ERROR_INVALID_ARG,
                   "input '" + spec.name + "' has " + std::to_string(in.byte_size) +
                       " bytes of data but its shape " + ShapeString(in.shape, in.rank) +
                       " needs " + std::to_string(want));
}

INFERD_Error* PrepareRequest(const ModelSettings& settings, INFERD_Request* request,
                             bool check_data_size, BatchedRequest* out) {
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
    if (check_data_size && spec.type->byte_size > 0) {
      if (INFERD_Error* err = CheckDataSize(spec, in)) return err;
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

void PrepareRequests(const ModelSettings& settings, INFERD_Request* const* requests,
                     size_t count, bool check_data_size, const std::string& error_prefix,
                     std::vector<BatchedRequest>* ready) {
  ready->reserve(count);
  for (size_t r = 0; r < count; ++r) {
    INFERD_Request* request = requests[r];
    BatchedRequest prepared;
    if (INFERD_Error* err = PrepareRequest(settings, request, check_data_size, &prepared)) {
      RespondWithError(request, err, error_prefix);
      INFERD_ErrorDelete(err);
      INFERD_ErrorDelete(INFERD_RequestRelease(request, INFERD_REQUEST_RELEASE_ALL));
      continue;
    }
    ready->push_back(std::move(prepared));
  }
}

size_t RunEnd(const ModelSettings& settings, const std::vector<BatchedRequest>& ready,
              size_t begin) {
  size_t end = begin + 1;
  if (settings.batching()) {
    while (end < ready.size() && SameRowShape(ready[begin], ready[end])) ++end;
  }
  return end;
}

void ReleaseRequests(const std::vector<BatchedRequest>& ready) {
  for (const BatchedRequest& request : ready) {
    INFERD_ErrorDelete(INFERD_RequestRelease(request.request, INFERD_REQUEST_RELEASE_ALL));
  }
}

std::vector<bool> RequestedOutputs(const ModelSettings& settings, Batch batch) {
  std::vector<bool> wanted(settings.outputs.size(), false);
  for (const BatchedRequest& request : batch) {
    uint32_t count = 0;
    if (INFERD_Error* err = INFERD_RequestOutputCount(request.request, &count)) {
      INFERD_ErrorDelete(err);
      continue;
    }
    for (uint32_t k = 0; k < count; ++k) {
      const char* name = nullptr;
      if (INFERD_Error* err = INFERD_RequestOutputName(request.request, k, &name)) {
        INFERD_ErrorDelete(err);
        continue;
      }
      for (size_t o = 0; o < settings.outputs.size(); ++o) {
        if (settings.outputs[o].name == name) wanted[o] = true;
      }
    }
  }
  return wanted;
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

}  // namespace inferd::backend_common
