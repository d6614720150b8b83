// One infer request in flight (KServe v2 /infer, or the generate extension's
// /generate and /generate_stream): owns the request body (inputs point into
// it), the tensors decoded from JSON, the output format and the server
// request, and routes the server's callbacks back to the connection's strand.
//
// Lifetime: two references, one released by the server's request-release
// callback (which also frees the body and decoded tensors), one by the session
// once the FINAL response has been handled on its strand. The last one deletes
// the server request and the context. Its io_context work guard keeps the
// frontend's threads running until then. Thread-safe as described per member.
#ifndef INFERD_FRONTENDS_HTTP_INFER_CONTEXT_H_
#define INFERD_FRONTENDS_HTTP_INFER_CONTEXT_H_

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/strand.hpp>

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "common/header_forward.h"
#include "common/shared_memory_outputs.h"
#include "common/shared_memory_registry.h"
#include "http/infer_request_parser.h"
#include "http/infer_response_writer.h"
#include "http/model_inputs.h"
#include "http/router.h"
#include "inferd/base/status.h"
#include "inferd/server.h"

namespace inferd::http {

class HttpSession;

class InferContext {
 public:
  using Strand = boost::asio::strand<boost::asio::io_context::executor_type>;

  // How the client is answered: it decides how the body is read and what is
  // done with each response.
  enum class Reply {
    kInfer,           // one KServe v2 response
    kGenerate,        // one generate extension object
    kGenerateStream,  // one Server-Sent Event per response
    kOpenAi,          // a choice of an OpenAI API request (http/openai/)
  };

  // On the session's strand. Takes the (already inflated) request body.
  InferContext(std::shared_ptr<HttpSession> session, Strand strand, std::string body,
               Reply reply = Reply::kInfer);
  ~InferContext();
  InferContext(const InferContext&) = delete;
  InferContext& operator=(const InferContext&) = delete;

  // Parses the body (the first `json_size` bytes are JSON), locates tensors
  // in shared memory (`shared_memory` may be null: the extension is off),
  // builds the server request for `route` and submits it. On success the
  // server's callbacks now own this object (see the lifetime above): release
  // the unique_ptr. On error nothing is in flight and the caller deletes it.
  static Status Submit(std::unique_ptr<InferContext>& context, INFERD_Server* server,
                       INFERD_ResponseAllocator* allocator,
                       const SharedMemoryRegistry* shared_memory, const Route& route,
                       size_t json_size);

  // The generate extension's Submit: the body is a generate request whose
  // keys are mapped onto the model's `inputs` (from its metadata).
  static Status SubmitGenerate(std::unique_ptr<InferContext>& context, INFERD_Server* server,
                               INFERD_ResponseAllocator* allocator, const Route& route,
                               const std::vector<ModelInput>& inputs);

  // Headers to set as request parameters (--http-header-forward-pattern);
  // call before Submit or SubmitGenerate.
  void set_forwarded_headers(ForwardedHeaders headers) {
    forwarded_headers_ = std::move(headers);
  }
  // The caller's W3C trace context (traceparent and tracestate headers);
  // call before Submit or SubmitGenerate, only when a traceparent came.
  void set_trace_context(std::string traceparent, std::string tracestate) {
    traceparent_ = std::move(traceparent);
    tracestate_ = std::move(tracestate);
  }
  // Lets a short model execute this request on the calling I/O thread
  // (server.h INFERD_InferenceRequestSetExecuteOnCaller); /infer only.
  void set_execute_on_caller(bool allowed) { execute_on_caller_ = allowed; }
  // The priority of a request that names none (its API key's); 0: the model's default.
  void set_default_priority(uint32_t priority) { default_priority_ = priority; }

  // Asks the server to drop the request (best effort). On the strand, before
  // the session's Unref.
  void Cancel();

  // The session's reference, dropped once the FINAL response was handled.
  void Unref();

  // How to render outputs; constant after Submit.
  const OutputFormat& output_format() const { return output_format_; }

  Reply reply() const { return reply_; }

  // Whether the HTTP response was written (/infer); only on the strand.
  bool responded = false;
  // How many responses arrived (the generate extension counts them); only on
  // the strand.
  uint32_t response_count = 0;
  // The final response has arrived (its handling may still be queued on the
  // strand); any thread.
  bool answered() const { return answered_.load(std::memory_order_acquire); }

  // The OutputTarget half of the frontend's OutputAllocator (this context is
  // the request's allocator_userp): an output not bound for shared memory
  // gets plain heap memory, freed when the response is deleted.
  const SharedMemoryOutputs& shared_memory_outputs() const { return shared_memory_outputs_; }
  Status AllocateOutput(const char* name, size_t byte_size, void** buffer, void** buffer_userp);
  static void ReleaseOutput(void* buffer, void* buffer_userp);

 private:
  // Points every shared memory input and output at its region.
  Status LocateSharedMemory(const SharedMemoryRegistry* registry);
  // Sets the callbacks and the trace context, and queues the built request.
  Status Start(INFERD_Server* server, INFERD_ResponseAllocator* allocator);
  static void OnRelease(INFERD_InferenceRequest* request, uint32_t flags, void* userp);
  static void OnResponse(INFERD_InferenceResponse* response, uint32_t flags, void* userp);

  // Declared first so it is destroyed last: the io_context's threads keep
  // running until everything below, the session included, is gone.
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work_;
  std::shared_ptr<HttpSession> session_;  // the connection the response goes to
  Strand strand_;                          // that connection's strand
  const Reply reply_;
  // Freed by the release callback; untouched by anything else after Submit.
  std::string body_;
  ParsedInferRequest parsed_;
  ForwardedHeaders forwarded_headers_;
  std::string traceparent_;  // empty for almost all
  std::string tracestate_;
  bool execute_on_caller_ = false;
  uint32_t default_priority_ = 0;
  std::vector<SharedMemorySlice> input_slices_;  // keeps input regions mapped
  OutputFormat output_format_;
  SharedMemoryOutputs shared_memory_outputs_;  // constant after Submit
  INFERD_InferenceRequest* request_ = nullptr;  // deleted with the context
  std::atomic<int> refs_{2};
  std::atomic<bool> answered_{false};
};

}  // namespace inferd::http

#endif  // INFERD_FRONTENDS_HTTP_INFER_CONTEXT_H_
