// Where gRPC puts each ModelInfer call's request and response messages: both
// on one protobuf Arena whose first block lives inside the holder. Parsing the
// request (its tensors, shapes, names, parameters) and building the response
// then cost one allocation per call instead of one per field and string, and
// the end of the call frees them at once. Stateless, so thread-safe; must
// outlive the gRPC server (it is the service's member).
#ifndef INFERD_FRONTENDS_GRPC_INFER_MESSAGE_ALLOCATOR_H_
#define INFERD_FRONTENDS_GRPC_INFER_MESSAGE_ALLOCATOR_H_

#include <grpcpp/support/message_allocator.h>

#include "grpc_service.pb.h"

namespace inferd::grpc_frontend {

class InferMessageAllocator final
    : public grpc::MessageAllocator<inference::ModelInferRequest, inference::ModelInferResponse> {
 public:
  grpc::MessageHolder<inference::ModelInferRequest, inference::ModelInferResponse>*
  AllocateMessages() override;
};

}  // namespace inferd::grpc_frontend

#endif  // INFERD_FRONTENDS_GRPC_INFER_MESSAGE_ALLOCATOR_H_
