// inferd in-process server API: a stable C ABI.
//
// Everything a frontend (HTTP, gRPC) or an embedding application needs: create
// and stop a server, ask for health and metadata, read model configuration and
// the repository index, and run inference asynchronously.
//
// The API is split by concept into the headers included below; include this
// one. Their conventions (errors, ownership, threads, no exceptions) are
// stated once in abi_common.h, which backend.h shares.
#ifndef INFERD_SERVER_H_
#define INFERD_SERVER_H_

#include "inferd/abi_common.h"
#include "inferd/inference.h"
#include "inferd/server_control.h"
#include "inferd/server_options.h"

#ifdef __cplusplus
extern "C" {
#endif

// A change of MAJOR breaks compatibility; MINOR only adds functions.
#define INFERD_API_VERSION_MAJOR 0
#define INFERD_API_VERSION_MINOR 14

// Reports the API version this library implements.
INFERD_EXPORT INFERD_Error* INFERD_ApiVersion(uint32_t* major, uint32_t* minor);

// For an INFERD_ERROR_RESOURCE_EXHAUSTED error (admission control): after how
// many milliseconds the client may try again (HTTP Retry-After); 0 for any
// other error or without advice. Since 0.14.
INFERD_EXPORT uint64_t INFERD_ErrorRetryAfterMs(INFERD_Error* error);

#ifdef __cplusplus
}  // extern "C"
#endif

#endif  // INFERD_SERVER_H_
