// inference.GRPCInferenceService on gRPC's completion-queue API
// (queue_call.h says why): every method's calls come on the frontend's
// queue, each served by its handler (metadata_handlers.h,
// repository_handlers.h on the BlockingWorker, shared_memory_handlers.h,
// trace_handlers.h, log_settings_handler.h, InferReactor, StreamReactor);
// CUDA shared memory answers UNIMPLEMENTED (no GPU support). No thread per
// call. Thread-safe (its state is a constant ServiceContext).
#ifndef INFERD_FRONTENDS_GRPC_INFERENCE_SERVICE_H_
#define INFERD_FRONTENDS_GRPC_INFERENCE_SERVICE_H_

#include <grpcpp/completion_queue.h>

#include <deque>

#include "grpc/call_site.h"
#include "grpc/queue_call.h"
#include "grpc/service_context.h"
#include "grpc_service.grpc.pb.h"

namespace inferd::grpc_frontend {

class InferenceService {
 public:
  // `context` must outlive the service.
  explicit InferenceService(const ServiceContext& context) : context_(context) {}

  // What the server builder registers.
  grpc::Service* grpc_service() { return &service_; }

  // Asks gRPC for the first call of every method on `queue` (of the server
  // this service is registered with, after it started); each call asks for
  // the next as it arrives, until the server shuts down. `queue`, `load`
  // (the queue's, PollQueue's) and `live` must outlive every call: the frontend shuts the queue down once `live`
  // counts none. From the controlling thread.
  void AwaitCalls(grpc::ServerCompletionQueue* queue, const QueueLoad* load, LiveCalls* live);

 private:
  const ServiceContext& context_;
  inference::GRPCInferenceService::AsyncService service_;
  std::deque<CallSite> sites_;  // one per queue; calls hold references
};

}  // namespace inferd::grpc_frontend

#endif  // INFERD_FRONTENDS_GRPC_INFERENCE_SERVICE_H_
