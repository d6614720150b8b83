// An inference response: the object behind INFERD_Response (built by a
// backend) and INFERD_InferenceResponse (read by the client).
//
// Output memory comes from the client's allocator at the moment the backend
// asks for it, so outputs land directly in the client's buffers. A response
// outlives its request: it copies what it needs (ids, route) at creation.
// Not thread-safe: one backend thread builds it, then one client thread reads it.
#ifndef INFERD_CORE_INFER_INFERENCE_RESPONSE_H_
#define INFERD_CORE_INFER_INFERENCE_RESPONSE_H_

#include <memory>
#include <string>
#include <vector>

#include "inferd/base/status.h"
#include "core/infer/inference_request.h"
#include "core/infer/response_sender.h"
#include "core/trace/trace_context.h"
#include "inferd/server.h"

namespace inferd {

class InferenceResponse;

// One output tensor of a response.
struct OutputTensor {
  InferenceResponse* response = nullptr;  // the owner
  std::string name;
  INFERD_DataType datatype = INFERD_TYPE_INVALID;
  std::vector<int64_t> shape;
  void* buffer = nullptr;
  size_t byte_size = 0;
  INFERD_MemoryType memory_type = INFERD_MEMORY_CPU;
  int64_t memory_type_id = 0;
  void* buffer_userp = nullptr;
  // False for an output the client did not ask for: it is dropped when the
  // response is sent.
  bool requested = true;
  // The buffer is ours (malloc), not the client's allocator's: for outputs
  // nobody asked for and for outputs to classify.
  bool scratch = false;
  // The buffer is a sequence's state (StateSink): kept by the server, never
  // sent to the client nor freed here.
  bool state = false;
  // > 0: the client asked for this output's top classes instead of its data
  // (classification.h); the response replaces it when it is sent.
  uint32_t class_count = 0;
};

class InferenceResponse {
 public:
  // A response to `request`, which must be bound to its model.
  explicit InferenceResponse(const InferenceRequest& request);
  // A response carrying only an error.
  InferenceResponse(const InferenceRequest& request, Status error);
  ~InferenceResponse();
  InferenceResponse(const InferenceResponse&) = delete;
  InferenceResponse& operator=(const InferenceResponse&) = delete;

  // Adds an output; the pointer lives as long as the response.
  StatusOr<OutputTensor*> AddOutput(std::string name, INFERD_DataType datatype,
                                    const int64_t* shape, uint32_t dim_count);
  // Obtains `byte_size` bytes for `output` from the client's allocator.
  Status AllocateBuffer(OutputTensor* output, uint64_t byte_size,
                        INFERD_MemoryType* memory_type, int64_t* memory_type_id);

  // Sends the response: through its request's response sender when the
  // request has one (created before this response), else directly. An error,
  // and nothing delivered, after the request's final response. Consumes `self`.
  static Status Send(std::unique_ptr<InferenceResponse> self, uint32_t flags, Status error);

  // Delivers the response to the client, who then owns it. With an error the
  // outputs are dropped first. The request must not have ended; the caller
  // serializes deliveries of one request. Consumes `self`.
  static void Deliver(std::unique_ptr<InferenceResponse> self, uint32_t flags, Status error);
  // Delivers FINAL without a response to `request`'s client.
  static void DeliverFinalFlag(InferenceRequest& request);

  const Status& error() const { return error_; }
  const std::string& id() const { return id_; }
  const std::string& model_name() const { return model_name_; }
  int64_t model_version() const { return model_version_; }
  // The request's span as a W3C traceparent; "" unless traced in
  // opentelemetry mode.
  const Traceparent& traceparent() const { return traceparent_; }
  const std::vector<std::unique_ptr<OutputTensor>>& outputs() const { return outputs_; }
  uint64_t order_number() const { return order_number_; }
  const ResponseRoute& client_route() const { return client_route_; }
  // The C error handed out by INFERD_InferenceResponseError; owned here.
  INFERD_Error* c_error();

 private:
  // AllocateBuffer's ways besides a sequence state: scratch memory (an
  // output the client does not read), or from the client's allocator,
  // preferring `memory_type` and `memory_type_id`.
  Status AllocateScratch(OutputTensor* output, uint64_t byte_size);
  Status AllocateFromClient(OutputTensor* output, uint64_t byte_size,
                            INFERD_MemoryType memory_type, int64_t memory_type_id);
  void ReleaseBuffer(OutputTensor& output);
  // Replaces every output with a class count by its classification, in memory
  // from the client's allocator. Needs the request (its model's labels).
  Status ClassifyOutputs();
  void DropOutputs(bool only_unrequested);

  InferenceRequest* const request_;  // valid until the request's FINAL
  const ResponseRoute route_;
  const std::string id_;
  const std::string model_name_;
  const int64_t model_version_;
  Traceparent traceparent_;
  const std::shared_ptr<const std::vector<std::string>> wanted_outputs_;
  const uint64_t order_number_;
  const ResponseRoute client_route_;
  // The request's sender when it had one at creation: sends go through it.
  const std::shared_ptr<ResponseSender> sender_;
  uint64_t created_ns_ = 0;  // decoupled models only, for response statistics
  Status error_;
  INFERD_Error* c_error_ = nullptr;
  std::vector<std::unique_ptr<OutputTensor>> outputs_;
};

}  // namespace inferd

#endif  // INFERD_CORE_INFER_INFERENCE_RESPONSE_H_
