// The system shared memory RPCs: SystemSharedMemoryStatus, Register and
// Unregister over the process's SharedMemoryRegistry (the one the HTTP
// frontend uses too). A null registry answers UNIMPLEMENTED. Thread-safe (the
// registry is).
#ifndef INFERD_FRONTENDS_GRPC_SHARED_MEMORY_HANDLERS_H_
#define INFERD_FRONTENDS_GRPC_SHARED_MEMORY_HANDLERS_H_

#include <grpcpp/support/status.h>

#include "common/shared_memory_registry.h"
#include "grpc_service.pb.h"

namespace inferd::grpc_frontend {

grpc::Status SharedMemoryStatus(const SharedMemoryRegistry* registry,
                                const inference::SystemSharedMemoryStatusRequest& request,
                                inference::SystemSharedMemoryStatusResponse* response);
grpc::Status SharedMemoryRegister(SharedMemoryRegistry* registry,
                                  const inference::SystemSharedMemoryRegisterRequest& request);
grpc::Status SharedMemoryUnregister(SharedMemoryRegistry* registry,
                                    const inference::SystemSharedMemoryUnregisterRequest& request);

}  // namespace inferd::grpc_frontend

#endif  // INFERD_FRONTENDS_GRPC_SHARED_MEMORY_HANDLERS_H_
