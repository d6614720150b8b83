// An inference request: the object behind both INFERD_InferenceRequest (the
// client's view, server.h) and INFERD_Request (the backend's view, backend.h).
//
// The client fills it, then submits it; from submission until release the
// server owns it (it never deletes it: the client does, after the release
// callback). Input data is borrowed, never copied. Not thread-safe while being
// built; after submission only the scheduler and then one backend touch it,
// except Cancel(), which any thread may call.
#ifndef INFERD_CORE_INFER_INFERENCE_REQUEST_H_
#define INFERD_CORE_INFER_INFERENCE_REQUEST_H_

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "core/infer/admission_marks.h"
#include "inferd/base/status.h"
#include "inferd/server.h"

namespace inferd {

class BoundModel;
class ComputeTally;
struct CacheMiss;
class ExpiringQueue;
class QueueSweeper;
class RequestRescheduler;
class RequestTrace;
struct TraceContext;
class ResponseSender;

// One borrowed piece of an input's data.
struct InputBuffer {
  const void* base = nullptr;
  size_t byte_size = 0;
  INFERD_MemoryType memory_type = INFERD_MEMORY_CPU;
  int64_t memory_type_id = 0;
};

// An input tensor: metadata plus the buffers that hold its data, in order.
struct InputTensor {
  std::string name;
  INFERD_DataType datatype = INFERD_TYPE_INVALID;
  // The shape the client sent (batch dimension first when the model batches).
  std::vector<int64_t> original_shape;
  // The shape the backend sees: original_shape after the config's reshape.
  std::vector<int64_t> shape;
  std::vector<InputBuffer> buffers;
  uint64_t byte_size = 0;  // sum over buffers
};

// A custom request parameter.
struct RequestParameter {
  std::string name;
  std::variant<std::string, int64_t, bool, double> value;
};

// An output the server keeps instead of sending it to the client: a
// sequence's implicit state, written by the backend into `target` (which
// outlives the request's execution), `bytes` long.
struct StateSink {
  std::string output_name;
  std::string* target = nullptr;
  uint64_t bytes = 0;
};

// Where the client wants its responses and how to get output memory.
struct ResponseRoute {
  INFERD_ResponseAllocator* allocator = nullptr;
  void* allocator_userp = nullptr;
  INFERD_InferenceResponseCompleteFn response_fn = nullptr;
  void* response_userp = nullptr;
};

class InferenceRequest {
 public:
  // For `model_version` of `model_name` (-1: the highest READY). Which
  // server it goes to is the submitter's business: the request does not hold
  // one.
  InferenceRequest(std::string model_name, int64_t model_version);
  ~InferenceRequest();
  InferenceRequest(const InferenceRequest&) = delete;
  InferenceRequest& operator=(const InferenceRequest&) = delete;

  // --- Built by the client.
  const std::string& model_name() const { return model_name_; }
  int64_t requested_version() const { return requested_version_; }

  std::string id;
  // The repository of model_name() (--model-namespacing): set for an
  // ensemble's steps so they run the model of the ensemble's own repository.
  std::string model_namespace;
  uint32_t flags = 0;  // INFERD_REQUEST_FLAG_*
  uint64_t correlation_id = 0;
  std::string correlation_id_string;  // set when the client used a string id
  uint32_t priority = 0;
  uint64_t timeout_us = 0;
  // The client can carry one response only (HTTP /infer, gRPC ModelInfer):
  // a decoupled model refuses the request.
  bool single_response = false;
  // The submitting thread may execute the request itself when the model's
  // scheduler finds an instance idle (scheduler/caller_execution.h): set for
  // clients' unary calls, whose frontends take the response on any thread.
  bool may_execute_on_caller = false;
  std::vector<RequestParameter> parameters;
  std::vector<std::string> requested_outputs;
  // Requested outputs to classify (the classification extension): output name
  // and class count. Almost always empty.
  std::vector<std::pair<std::string, uint32_t>> classifications;
  ResponseRoute route;
  INFERD_InferenceRequestReleaseFn release_fn = nullptr;
  void* release_userp = nullptr;

  Status AddInput(std::string name, INFERD_DataType datatype, const int64_t* shape,
                  uint64_t dim_count);
  Status AppendInputData(const std::string& name, InputBuffer buffer);
  // Adds an input whose data the request itself owns (a control input or a
  // state the scheduler fills in). The data's address stays put.
  Status AddOwnedInput(std::string name, INFERD_DataType datatype, std::vector<int64_t> shape,
                       std::string data);
  // Removes every input added by AddOwnedInput, and frees their data.
  void RemoveOwnedInputs();
  InputTensor* FindInput(std::string_view name);
  std::vector<InputTensor>& inputs() { return inputs_; }
  const std::vector<InputTensor>& inputs() const { return inputs_; }

  // --- Set at submission by the server.

  // Binds the request to the loaded version that will run it; the request
  // keeps it alive until release.
  void Bind(std::shared_ptr<BoundModel> model);
  BoundModel* model() const { return model_.get(); }
  // The same, shared: for what outlives the request (an ensemble's statistics).
  const std::shared_ptr<BoundModel>& shared_model() const { return model_; }
  // Outputs the backend must produce: the requested ones, or all configured
  // (then shared with the model, so most requests allocate nothing for it).
  std::shared_ptr<const std::vector<std::string>> outputs;
  // Rows in the batch dimension; 0 when the model does not batch.
  uint64_t batch_size = 0;
  // When the request entered the scheduler queue, and when the execution
  // that holds it began (the model's clock, ns; 0 before).
  uint64_t queue_start_ns = 0;
  uint64_t execute_start_ns = 0;
  // When a rescheduled request re-entered its queue (0: never): its queue
  // time and queue delay count from there; its timeout and latency still
  // count from queue_start_ns.
  uint64_t requeue_ns = 0;
  uint64_t QueuedSinceNs() const { return requeue_ns != 0 ? requeue_ns : queue_start_ns; }
  // Set by a scheduler that lets the backend reschedule the request (an
  // iterative sequence); null for almost all. Reset when the request ends.
  RequestRescheduler* rescheduler = nullptr;
  // Records the queue the request now waits in (a dynamic batcher) and the
  // sweeper that sweeps it, for Cancel. The queue pointer may go stale once
  // the request left it, which the sweeper tolerates; the sweeper (the
  // server's) outlives every request.
  void WaitIn(QueueSweeper* sweeper, ExpiringQueue* queue) {
    sweeper_ = sweeper;
    queue_.store(queue, std::memory_order_release);
  }
  // Outputs kept as the sequence's state (sequence batcher); usually empty.
  std::vector<StateSink> state_sinks;
  // Set when the request was sampled for tracing; null for almost all.
  std::shared_ptr<RequestTrace> trace;
  // The caller's W3C trace context (traceparent header or metadata); null
  // for almost all.
  std::shared_ptr<const TraceContext> trace_context;
  // Set by whoever made this request for a traced one (an ensemble for its
  // steps): the request is traced as its child instead of sampled.
  std::shared_ptr<RequestTrace> parent_trace;
  // False for internal requests (warmup) that statistics must not count.
  bool counts_in_stats = true;
  // Set by an ensemble on its step requests: each execution that runs the
  // request adds its compute times there. Null for almost all.
  std::shared_ptr<ComputeTally> compute_tally;
  // Set when the request missed its model's response cache: its complete,
  // successful response is stored there. Null for almost all; reset at release.
  std::unique_ptr<CacheMiss> cache_miss;
  // preserve_ordering: the request's place in its model's queue order, and the
  // client's own route while `route` points at the orderer.
  uint64_t order_number = 0;
  ResponseRoute client_route;
  // The admission counters it is counted in (queued, in flight).
  AdmissionMarks admission;

  // Marks the request cancelled and, when it waits in a queue, asks for that
  // queue to be swept now. Any thread; safe even as the request completes.
  void Cancel();
  bool cancelled() const { return cancelled_.load(std::memory_order_relaxed); }
  // What a backend asks: cancelled, or past the deadline its timeout set.
  // Any thread while the request is bound.
  bool IsCancelled() const;

  // The request's response sender, created on first use and kept by the
  // model's registry while the request is open (backend.h
  // INFERD_ResponseSenderNew). Only the backend that owns the request calls it.
  std::shared_ptr<ResponseSender> OpenSender();
  const std::shared_ptr<ResponseSender>& sender() const { return sender_; }

  // A response (null: a FINAL flag alone) was delivered, with `error` (null:
  // none); `created_ns` is when the response was created (0: unknown).
  // Counted in the model's per-response statistics when it is decoupled.
  // Deliveries of one request are serialized by the caller.
  void NoteResponseSent(uint64_t created_ns, const Status* error);
  // Records that the FINAL flag was delivered, and the request's outcome (an
  // error if any of its responses carried one) in its model's statistics.
  void MarkFinalSent();
  bool final_sent() const { return final_sent_; }
  // One of its responses carried an error (final once FINAL was sent).
  bool failed() const { return failed_; }

  // Sends a FINAL response carrying only `status` (an error) to the client.
  void RespondWithError(const Status& status);

  // The backend is done with the request (INFERD_RequestRelease with ALL):
  // released now, or at FINAL when a response sender is still open to send
  // it. With RESCHEDULE: queued again for another execution (counted as one
  // successful inference, as Triton counts each execution); an error, and the
  // backend still owns the request, when its scheduler does not reschedule.
  Status ReleaseFromBackend(uint32_t flags);

  // Ends the server's ownership: drops the model reference and calls the
  // client's release callback. The request must not be touched afterwards.
  void Release();

 private:
  Status Reschedule();

  const std::string model_name_;
  const int64_t requested_version_;
  std::vector<InputTensor> inputs_;
  std::deque<std::string> owned_data_;  // a deque: data never moves once added
  std::shared_ptr<BoundModel> model_;
  std::atomic<bool> cancelled_{false};
  QueueSweeper* sweeper_ = nullptr;  // written before queue_ (release)
  std::atomic<ExpiringQueue*> queue_{nullptr};
  bool final_sent_ = false;
  bool failed_ = false;  // a response carried an error
  uint32_t responses_sent_ = 0;
  uint64_t last_response_ns_ = 0;
  std::shared_ptr<ResponseSender> sender_;
};

}  // namespace inferd

#endif  // INFERD_CORE_INFER_INFERENCE_REQUEST_H_

