// The requests one execute call hands the backend, read once: each request's
// inputs in configuration order with their shapes, and its row count when the
// model batches. Consecutive requests whose inputs agree on every dimension
// but the batch one share one forward() call. Also the BYTES element layout
// (4-byte little-endian length, then the bytes) and the responses of errors.
// Not thread-safe; lives inside one execute call.
#ifndef INFERD_BACKENDS_PYTORCH_REQUEST_BATCH_H_
#define INFERD_BACKENDS_PYTORCH_REQUEST_BATCH_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "inferd/backend.h"
#include "model_settings.h"

namespace inferd::pytorch {

// One input of one request.
struct RequestInput {
  INFERD_Input* input = nullptr;
  const int64_t* shape = nullptr;  //!< batch dimension included when the model batches
  uint32_t rank = 0;
  uint64_t byte_size = 0;          //!< over all buffers
  uint32_t buffer_count = 0;
};

// One request, ready to join a forward() call.
struct BatchedRequest {
  INFERD_Request* request = nullptr;
  std::vector<RequestInput> inputs;  //!< indexed like ModelSettings::inputs
  int64_t rows = 1;                  //!< dimension 0 when the model batches, else 1
};

// Reads `request`'s inputs as `settings` lists them. Error (INVALID_ARG) when
// one is missing, has another datatype, its data does not fill its shape, or
// the inputs disagree on the batch size.
INFERD_Error* PrepareRequest(const ModelSettings& settings, INFERD_Request* request,
                             BatchedRequest* out);

// Whether `b` may run in one forward() call with `a`: same shape of every
// input apart from dimension 0.
bool SameRowShape(const BatchedRequest& a, const BatchedRequest& b);

// Elements in a shape (1 for a scalar).
int64_t ElementCount(const int64_t* dims, size_t rank);
// "[2,-1,3]".
std::string ShapeString(const int64_t* dims, size_t rank);

// Appends the BYTES elements serialized in `data` to `out`. Returns "" or
// what is malformed.
std::string SplitBytesElements(std::string_view data, std::vector<std::string_view>* out);
// Writes one BYTES element (length prefix and bytes) at `dst`; returns the end.
char* WriteBytesElement(char* dst, std::string_view element);

// A new error with `message`; the caller owns it.
INFERD_Error* MakeError(INFERD_Error_Code code, const std::string& message);
// Sends `request` a FINAL response carrying `prefix` + `error`'s message (the
// caller keeps `error`).
void RespondWithError(INFERD_Request* request, INFERD_Error* error, const std::string& prefix);

}  // namespace inferd::pytorch

#endif  // INFERD_BACKENDS_PYTORCH_REQUEST_BATCH_H_
