// Renders a server inference response as a generate extension response: one
// JSON object {"model_name", "model_version", ["id",] <output>: <value>, ...}
// with every output under its own name as a plain JSON value, as Triton
// writes it: a tensor of one element as that bare value, any other as a flat
// array; BYTES elements as strings. Not thread-safe; one writer per response.
#ifndef INFERD_FRONTENDS_HTTP_GENERATE_RESPONSE_H_
#define INFERD_FRONTENDS_HTTP_GENERATE_RESPONSE_H_

#include <string_view>

#include "http/tensor_json.h"
#include "inferd/base/status.h"
#include "inferd/server.h"

namespace inferd::http {

// Writes `response` as one JSON object. The response's own error is returned
// (and nothing is written); so is a rendering failure (INTERNAL, or
// UNSUPPORTED for an output in GPU memory), which may leave the writer
// incomplete: the caller then renders the error instead.
Status RenderGenerateResponse(INFERD_InferenceResponse* response, JsonWriter* writer);

// Writes {"error": "<message>"}, the generate extension's error object.
void RenderGenerateError(std::string_view message, JsonWriter* writer);

}  // namespace inferd::http

#endif  // INFERD_FRONTENDS_HTTP_GENERATE_RESPONSE_H_
