// The system shared memory extension's HTTP endpoints: status, register and
// unregister of regions in the process's SharedMemoryRegistry. Thread-safe
// (the registry is).
#ifndef INFERD_FRONTENDS_HTTP_SHARED_MEMORY_ENDPOINTS_H_
#define INFERD_FRONTENDS_HTTP_SHARED_MEMORY_ENDPOINTS_H_

#include <string_view>

#include "common/shared_memory_registry.h"
#include "http/endpoints.h"
#include "http/router.h"
#include "inferd/base/status.h"

namespace inferd::http {

// Answers a kSharedMemory* route. `body` is the register request,
// {"key": string, "offset": integer, "byte_size": integer}. A null registry
// (the extension is off) is UNSUPPORTED (501).
StatusOr<EndpointResponse> HandleSharedMemoryEndpoint(SharedMemoryRegistry* registry,
                                                      const Route& route, std::string_view body);

}  // namespace inferd::http

#endif  // INFERD_FRONTENDS_HTTP_SHARED_MEMORY_ENDPOINTS_H_
