// System shared memory status, register and unregister.
#include "grpc/shared_memory_handlers.h"

#include <memory>
#include <vector>

#include "grpc/grpc_status.h"

namespace inferd::grpc_frontend {
namespace {

grpc::Status Disabled() {
  return Unimplemented("system shared memory is not enabled on this server");
}

}  // namespace

grpc::Status SharedMemoryStatus(const SharedMemoryRegistry* registry,
                                const inference::SystemSharedMemoryStatusRequest& request,
                                inference::SystemSharedMemoryStatusResponse* response) {
  if (registry == nullptr) return Disabled();
  std::vector<std::shared_ptr<const SharedMemoryRegion>> regions;
  if (grpc::Status s = StatusFromServerError(registry->List(request.name(), &regions)); !s.ok()) {
    return s;
  }
  auto& out = *response->mutable_regions();
  for (const auto& region : regions) {
    auto& status = out[region->name()];
    status.set_name(region->name());
    status.set_key(region->key());
    status.set_offset(region->offset());
    status.set_byte_size(region->byte_size());
  }
  return grpc::Status::OK;
}

grpc::Status SharedMemoryRegister(SharedMemoryRegistry* registry,
                                  const inference::SystemSharedMemoryRegisterRequest& request) {
  if (registry == nullptr) return Disabled();
  if (request.key().empty()) {
    return InvalidArgument("registering shared memory region '" + request.name() +
                           "': 'key' must not be empty");
  }
  return StatusFromServerError(
      registry->Register(request.name(), request.key(), request.offset(), request.byte_size()));
}

grpc::Status SharedMemoryUnregister(SharedMemoryRegistry* registry,
                                    const inference::SystemSharedMemoryUnregisterRequest& request) {
  if (registry == nullptr) return Disabled();
  return StatusFromServerError(registry->Unregister(request.name()));
}

}  // namespace inferd::grpc_frontend
