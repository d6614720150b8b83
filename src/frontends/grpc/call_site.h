// Where the gRPC frontend's calls are served: the generated service that
// asks gRPC for calls of each method, the completion queue they come on,
// whether its thread falls behind, the count of calls alive and what every
// handler shares. Constant while the
// frontend runs; each call keeps a reference.
#ifndef INFERD_FRONTENDS_GRPC_CALL_SITE_H_
#define INFERD_FRONTENDS_GRPC_CALL_SITE_H_

#include <grpcpp/completion_queue.h>

#include "grpc/queue_call.h"
#include "grpc/service_context.h"
#include "grpc_service.grpc.pb.h"

namespace inferd::grpc_frontend {

struct CallSite {
  inference::GRPCInferenceService::AsyncService* service = nullptr;
  grpc::ServerCompletionQueue* queue = nullptr;
  LiveCalls* live = nullptr;
  const QueueLoad* load = nullptr;  // the queue's; never null
  const ServiceContext* context = nullptr;
};

}  // namespace inferd::grpc_frontend

#endif  // INFERD_FRONTENDS_GRPC_CALL_SITE_H_
