// What every RPC handler of the gRPC frontend shares: the server, the output
// allocator, the worker for blocking calls, how infer responses are
// compressed and the system shared memory regions. Constant while the service
// runs; thread-safe to read.
#ifndef INFERD_FRONTENDS_GRPC_SERVICE_CONTEXT_H_
#define INFERD_FRONTENDS_GRPC_SERVICE_CONTEXT_H_

#include <grpc/compression.h>

#include "common/api_restrictions.h"
#include "common/auth/access_control.h"
#include "common/shared_memory_registry.h"
#include "common/blocking_worker.h"
#include "common/header_forward.h"
#include "inferd/server.h"

namespace inferd::grpc_frontend {

class StreamRegistry;

struct ServiceContext {
  INFERD_Server* server = nullptr;                  // not owned
  INFERD_ResponseAllocator* allocator = nullptr;    // OutputAllocator<OutputDestination>
  BlockingWorker* worker = nullptr;                 // runs model loads and unloads
  grpc_compression_level infer_compression = GRPC_COMPRESS_LEVEL_NONE;
  SharedMemoryRegistry* shared_memory = nullptr;    // not owned; null: the extension is off
  // Metadata that infer calls forward as request parameters; not owned; null: none.
  const HeaderForwarder* header_forwarder = nullptr;
  ApiRestrictions restrictions;  // --grpc-restricted-protocol; empty: every RPC is open
  const auth::AccessControl* access = nullptr;  // --auth-file; not owned; null: no key needed
  StreamRegistry* streams = nullptr;  // the open ModelStreamInfer calls; not owned
};

}  // namespace inferd::grpc_frontend

#endif  // INFERD_FRONTENDS_GRPC_SERVICE_CONTEXT_H_
