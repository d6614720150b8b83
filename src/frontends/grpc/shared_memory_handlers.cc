// System shared memory status, register and unregister.
#include "grpc/shared_memory_handlers.h"

#include <memory>
#include <vector>

namespace inferd::grpc_frontend {
namespace {

Status Disabled() {
  return Status::Unsupported("system shared memory is not enabled on this server");
}

}  // namespace

Status SharedMemoryStatus(const SharedMemoryRegistry* registry,
                          const inference::SystemSharedMemoryStatusRequest& request,
                          inference::SystemSharedMemoryStatusResponse* response) {
  if (registry == nullptr) return Disabled();
  std::vector<std::shared_ptr<const SharedMemoryRegion>> regions;
  RETURN_IF_ERROR(registry->List(request.name(), &regions));
  auto& out = *response->mutable_regions();
  for (const auto& region : regions) {
    auto& status = out[region->name()];
    status.set_name(region->name());
    status.set_key(region->key());
    status.set_offset(region->offset());
    status.set_byte_size(region->byte_size());
  }
  return Status::Ok();
}

Status SharedMemoryRegister(SharedMemoryRegistry* registry,
                            const inference::SystemSharedMemoryRegisterRequest& request) {
  if (registry == nullptr) return Disabled();
  if (request.key().empty()) {
    return Status::InvalidArg("registering shared memory region '" + request.name() +
                              "': 'key' must not be empty");
  }
  return registry->Register(request.name(), request.key(), request.offset(), request.byte_size());
}

Status SharedMemoryUnregister(SharedMemoryRegistry* registry,
                              const inference::SystemSharedMemoryUnregisterRequest& request) {
  if (registry == nullptr) return Disabled();
  return registry->Unregister(request.name());
}

}  // namespace inferd::grpc_frontend
