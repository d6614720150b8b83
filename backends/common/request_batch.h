// The requests one execute call hands a compiled backend, read once: each
// request's inputs in configuration order with their shapes, and its row count
// when the model batches. Consecutive requests whose inputs agree on every
// dimension but the batch one share one run of the model. Also the errors
// that answer a request. Not thread-safe; lives inside one execute call.
// C++17 (the PyTorch backend's LibTorch files include it).
#ifndef INFERD_BACKENDS_COMMON_REQUEST_BATCH_H_
#define INFERD_BACKENDS_COMMON_REQUEST_BATCH_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/model_settings.h"
#include "inferd/backend.h"

namespace inferd::backend_common {

// One input of one request.
struct RequestInput {
  INFERD_Input* input = nullptr;
  const int64_t* shape = nullptr;  //!< batch dimension included when the model batches
  uint32_t rank = 0;
  uint64_t byte_size = 0;          //!< over all buffers
  uint32_t buffer_count = 0;
};

// One request, ready to join a run.
struct BatchedRequest {
  INFERD_Request* request = nullptr;
  std::vector<RequestInput> inputs;  //!< indexed like ModelSettings::inputs
  int64_t rows = 1;                  //!< dimension 0 when the model batches, else 1
};

// The requests of one run: consecutive prepared requests.
struct Batch {
  const BatchedRequest* first = nullptr;
  size_t count = 0;

  const BatchedRequest* begin() const { return first; }
  const BatchedRequest* end() const { return first + count; }
  size_t size() const { return count; }
  const BatchedRequest& operator[](size_t i) const { return first[i]; }
  int64_t rows() const;  //!< all requests' rows together
};

// Reads `request`'s inputs as `settings` lists them. Error (INVALID_ARG) when
// one is missing, has another datatype, the inputs disagree on the batch size
// or, with `check_data_size`, a numeric input's data does not fill its shape
// (CheckDataSize; else the backend checks that when it gathers).
INFERD_Error* PrepareRequest(const ModelSettings& settings, INFERD_Request* request,
                             bool check_data_size, BatchedRequest* out);

// Error (INVALID_ARG, naming the input) when numeric input `in` of `spec`
// has not the bytes its shape needs.
INFERD_Error* CheckDataSize(const TensorSpec& spec, const RequestInput& in);

// Prepares each of `requests` into `ready`; one that cannot run is answered
// with its error (after `error_prefix`) and released here.
void PrepareRequests(const ModelSettings& settings, INFERD_Request* const* requests,
                     size_t count, bool check_data_size, const std::string& error_prefix,
                     std::vector<BatchedRequest>* ready);

// Where the run that starts at ready[begin] ends: the requests after it whose
// rows have the same shape, when the model batches; else just the one.
size_t RunEnd(const ModelSettings& settings, const std::vector<BatchedRequest>& ready,
              size_t begin);

// Releases every request of `ready` (each answered already).
void ReleaseRequests(const std::vector<BatchedRequest>& ready);

// Which configured outputs any request of `batch` asks for, indexed like
// ModelSettings::outputs.
std::vector<bool> RequestedOutputs(const ModelSettings& settings, Batch batch);

// Sends `request` a FINAL response carrying a copy of `error`, prefixed (the
// caller keeps `error`).
void RespondWithError(INFERD_Request* request, INFERD_Error* error, const std::string& prefix);

}  // namespace inferd::backend_common

#endif  // INFERD_BACKENDS_COMMON_REQUEST_BATCH_H_
