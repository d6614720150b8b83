// A Frontend that can also serve connections someone else accepted. The
// binary's lazy gRPC listener (src/main/lazy_grpc_frontend.h) owns the
// listening socket and loads the gRPC module only when the first client
// connects; from then on it hands each accepted connection to the module's
// frontend through this interface.
#ifndef INFERD_FRONTENDS_COMMON_CONNECTION_FRONTEND_H_
#define INFERD_FRONTENDS_COMMON_CONNECTION_FRONTEND_H_

#include "common/frontend.h"

namespace inferd {

class ConnectionFrontend : public Frontend {
 public:
  // Serves the accepted, connected socket `fd` (non-blocking) as if the
  // frontend had accepted it; takes ownership of fd either way. Only after a
  // successful Start and before Stop; any one thread at a time.
  virtual void ServeConnection(int fd) = 0;
};

}  // namespace inferd

#endif  // INFERD_FRONTENDS_COMMON_CONNECTION_FRONTEND_H_
