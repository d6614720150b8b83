// Parses a request of Triton's generate extension (POST .../generate and
// .../generate_stream) into the ParsedInferRequest the /infer path builds
// server requests from. The body is one JSON object (empty means {}):
//  - a key that names a model input is that input, its value a plain JSON
//    value (a scalar, or an array, flat or nested) whose datatype and shape
//    come from the model (see GenerateInputShape);
//  - "parameters", an object, holds more keys of the same two kinds;
//  - "id", a string, is the request id;
//  - every other key is a request parameter (a string, boolean or number).
// Knows nothing of the server API beyond datatypes, so it can be tested alone.
// Not thread-safe; one per request.
#ifndef INFERD_FRONTENDS_HTTP_GENERATE_REQUEST_H_
#define INFERD_FRONTENDS_HTTP_GENERATE_REQUEST_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "http/infer_request_parser.h"
#include "http/model_inputs.h"
#include "inferd/base/status.h"

namespace inferd::http {

// Parses `body`, `body_size` bytes followed by a NUL (std::string provides
// it), rewriting it in place: names and strings in *out point into it, so it
// must outlive *out. Errors are INVALID_ARG naming the key: malformed JSON, a
// value that does not fit its input's datatype or shape, an input given
// twice, a parameter of another type than string, boolean or number.
Status ParseGenerateRequest(char* body, size_t body_size, const std::vector<ModelInput>& inputs,
                            ParsedInferRequest* out);

// The shape a value of `element_count` elements takes for `input`, by Triton's
// rule: the fixed dimensions are kept, the innermost -1 takes what is left
// and every other -1 (a batching model's batch dimension) is 1. INVALID_ARG
// naming the input when the count does not divide into the fixed dimensions.
Status GenerateInputShape(const ModelInput& input, uint64_t element_count,
                          std::vector<int64_t>* shape);

}  // namespace inferd::http

#endif  // INFERD_FRONTENDS_HTTP_GENERATE_REQUEST_H_
