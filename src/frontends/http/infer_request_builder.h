// Turns a ParsedInferRequest into a server request (INFERD_InferenceRequest):
// inputs are appended as borrowed memory, so the parsed request and the body it
// points into must outlive the server request. Thread-safe (no shared state).
#ifndef INFERD_FRONTENDS_HTTP_INFER_REQUEST_BUILDER_H_
#define INFERD_FRONTENDS_HTTP_INFER_REQUEST_BUILDER_H_

#include <cstdint>
#include <string>

#include "http/infer_request_parser.h"
#include "inferd/base/status.h"
#include "inferd/server.h"

namespace inferd::http {

// Creates *request for `model_name` / `model_version` (-1: latest) from
// `parsed`. On success the caller owns *request; on error nothing is left to
// free and the status is the server's error (or INVALID_ARG).
Status BuildInferRequest(INFERD_Server* server, const std::string& model_name,
                         int64_t model_version, const ParsedInferRequest& parsed,
                         INFERD_InferenceRequest** request);

}  // namespace inferd::http

#endif  // INFERD_FRONTENDS_HTTP_INFER_REQUEST_BUILDER_H_
