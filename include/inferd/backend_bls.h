// What a backend may call to send inference requests of its own (business
// logic scripting, as the Python backend's BLS): the server that owns its
// model, and the in-process inference API of server.h (inference.h:
// requests, their submission, responses). Nothing else of the server API.
// scripts/layers.json lets only the backends that need it include this.
#ifndef INFERD_BACKEND_BLS_H_
#define INFERD_BACKEND_BLS_H_

#include "inferd/backend.h"
#include "inferd/inference.h"

#ifdef __cplusplus
extern "C" {
#endif

// The server that owns the model; requests built on it with inference.h run
// any model it serves, as a frontend's would.
INFERD_EXPORT INFERD_Error* INFERD_ModelServer(INFERD_Model* model, INFERD_Server** server);

#ifdef __cplusplus
}  // extern "C"
#endif

#endif  // INFERD_BACKEND_BLS_H_
