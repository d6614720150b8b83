// Completes a ModelInferResponse from a server response whose outputs were
// allocated into that same message by OutputAllocator: model name, version,
// id, each output's name, datatype and shape, and raw_output_contents put in
// output order (entries are swapped, never copied; an output held elsewhere is
// copied in); an output written into shared memory is described by its
// shared_memory_* parameters and an empty raw entry. Thread-safe (no shared
// state).
#ifndef INFERD_FRONTENDS_GRPC_INFER_RESPONSE_BUILDER_H_
#define INFERD_FRONTENDS_GRPC_INFER_RESPONSE_BUILDER_H_

#include "grpc/output_destination.h"
#include "grpc_service.pb.h"
#include "inferd/base/status.h"
#include "inferd/server.h"

namespace inferd::grpc_frontend {

// Fills *destination.message from `response` (which the caller still owns and
// deletes). The error the response carries, if any, is returned and the
// message cleared.
Status BuildInferResponse(INFERD_InferenceResponse* response,
                          const OutputDestination& destination);

}  // namespace inferd::grpc_frontend

#endif  // INFERD_FRONTENDS_GRPC_INFER_RESPONSE_BUILDER_H_
