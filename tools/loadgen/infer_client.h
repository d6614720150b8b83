// The seam between the load driver and a protocol: a client that learns the
// model, prepares one inference request from generated inputs, and then sends
// it again and again asynchronously. HttpClient and GrpcClient implement it.
#ifndef INFERD_TOOLS_LOADGEN_INFER_CLIENT_H_
#define INFERD_TOOLS_LOADGEN_INFER_CLIENT_H_

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "loadgen/input_generator.h"
#include "loadgen/model_info.h"
#include "loadgen/options.h"

namespace inferd::loadgen {

// Called once per inference: ok, or false with a message naming the failure.
using InferCallback = std::function<void(bool ok, std::string_view error)>;

class InferClient {
 public:
  virtual ~InferClient() = default;

  // Fetches the model's metadata and configuration (blocking). Returns "" or
  // an error naming the server and model.
  virtual std::string FetchModelInfo(ModelInfo* info) = 0;

  // Serializes the request every AsyncInfer sends. Call once, before AsyncInfer.
  virtual void PrepareRequest(const ModelInfo& info, const std::vector<GeneratedTensor>& inputs) = 0;

  // Sends the prepared request; `done` runs exactly once on a client thread,
  // never inside this call. Thread-safe.
  virtual void AsyncInfer(InferCallback done) = 0;

  // Connections opened so far (HTTP), or channels (gRPC).
  virtual size_t connection_count() const = 0;
};

// The client for options.protocol. Does not connect until used.
std::unique_ptr<InferClient> MakeHttpClient(const LoadgenOptions& options);
std::unique_ptr<InferClient> MakeGrpcClient(const LoadgenOptions& options);

}  // namespace inferd::loadgen

#endif  // INFERD_TOOLS_LOADGEN_INFER_CLIENT_H_
