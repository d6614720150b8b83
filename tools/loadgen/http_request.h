// The bytes of one KServe v2 HTTP/1.1 inference request: head and body, JSON
// tensors or the binary tensor data extension. Built once per run; every
// request on every connection writes the same bytes.
#ifndef INFERD_TOOLS_LOADGEN_HTTP_REQUEST_H_
#define INFERD_TOOLS_LOADGEN_HTTP_REQUEST_H_

#include <string>
#include <vector>

#include "loadgen/input_generator.h"

namespace inferd::loadgen {

// The request target: /v2/models/{model}[/versions/{version}]/{action},
// the names percent-encoded.
std::string ModelTarget(const std::string& model, const std::string& version,
                        const std::string& action);

// The body: JSON `{"inputs": [...]}` with `data` arrays, or with `binary`
// the JSON header (binary_data_size per input, binary_data_output) followed
// by the raw tensors. *header_length is the JSON part's size.
std::string InferRequestBody(const std::vector<GeneratedTensor>& inputs, bool binary,
                             size_t* header_length);

// A complete POST (request line, Host, Content-Type, Content-Length,
// Inference-Header-Content-Length when binary, then the body).
std::string InferHttpRequest(const std::string& host, const std::string& target,
                             const std::vector<GeneratedTensor>& inputs, bool binary);

}  // namespace inferd::loadgen

#endif  // INFERD_TOOLS_LOADGEN_HTTP_REQUEST_H_
