// The system shared memory RPCs: SystemSharedMemoryStatus, Register and
// Unregister over the process's SharedMemoryRegistry (the one the HTTP
// frontend uses too). A null registry is UNSUPPORTED. Thread-safe (the
// registry is).
#ifndef INFERD_FRONTENDS_GRPC_SHARED_MEMORY_HANDLERS_H_
#define INFERD_FRONTENDS_GRPC_SHARED_MEMORY_HANDLERS_H_

#include "common/shared_memory_registry.h"
#include "grpc_service.pb.h"
#include "inferd/base/status.h"

namespace inferd::grpc_frontend {

Status SharedMemoryStatus(const SharedMemoryRegistry* registry,
                          const inference::SystemSharedMemoryStatusRequest& request,
                          inference::SystemSharedMemoryStatusResponse* response);
Status SharedMemoryRegister(SharedMemoryRegistry* registry,
                            const inference::SystemSharedMemoryRegisterRequest& request);
Status SharedMemoryUnregister(SharedMemoryRegistry* registry,
                              const inference::SystemSharedMemoryUnregisterRequest& request);

}  // namespace inferd::grpc_frontend

#endif  // INFERD_FRONTENDS_GRPC_SHARED_MEMORY_HANDLERS_H_
