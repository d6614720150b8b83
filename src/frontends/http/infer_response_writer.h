// Renders a server inference response as a KServe v2 HTTP response body: the
// JSON document {"model_name", "model_version", "id", "outputs": [...]}, then
// the bytes of every output returned as binary data, in output order. Binary
// outputs are not copied: the rendering borrows them from the response, which
// must live until they are written. Not thread-safe; one writer per session.
#ifndef INFERD_FRONTENDS_HTTP_INFER_RESPONSE_WRITER_H_
#define INFERD_FRONTENDS_HTTP_INFER_RESPONSE_WRITER_H_

#include <rapidjson/stringbuffer.h>

#include <string_view>
#include <vector>

#include "common/response_reader.h"
#include "http/infer_request_parser.h"
#include "http/tensor_json.h"
#include "inferd/base/status.h"
#include "inferd/server.h"

namespace inferd::http {

// How the outputs of one request are to be returned.
struct OutputFormat {
  std::vector<ParsedOutput> requested;  // outputs the request named, with their binary flag
  bool binary_by_default = false;       // for outputs it did not name
  bool any_shared_memory = false;       // whether some requested output is in shared memory
  // The requested output `name`, or null when the request did not name it.
  const ParsedOutput* Find(const char* name) const;
  // Whether output `name` is returned as binary data.
  bool IsBinary(const char* name) const;
};

// Renders `response` into *json (cleared first) and appends the binary output
// buffers to *binary. Outputs written into shared memory carry only their
// name, datatype and shape. The response's own error, if any, is returned as the
// status (and nothing is rendered); rendering failures are INTERNAL.
Status RenderInferResponse(INFERD_InferenceResponse* response, const OutputFormat& format,
                           rapidjson::StringBuffer* json, std::vector<std::string_view>* binary);

// Writes the keys that name the response: "model_name", "model_version"
// (a string) and "id" (only when it has one); /generate's object has them too.
void WriteResponseIdentity(const ResponseSummary& summary, JsonWriter* writer);

}  // namespace inferd::http

#endif  // INFERD_FRONTENDS_HTTP_INFER_RESPONSE_WRITER_H_
