// GET .../status, POST .../register and .../unregister of system shared memory.
#include "http/shared_memory_endpoints.h"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <memory>
#include <string>
#include <vector>

namespace inferd::http {
namespace {

using Answer = StatusOr<EndpointResponse>;

// 200 with no body once `status` is OK.
Answer Done(Status status) {
  if (!status.ok()) return status;
  return EndpointResponse{200, std::string()};
}

// [{"name", "key", "offset", "byte_size"}, ...]
Answer RegionStatus(const SharedMemoryRegistry& registry, const std::string& name) {
  std::vector<std::shared_ptr<const SharedMemoryRegion>> regions;
  RETURN_IF_ERROR(registry.List(name, &regions));
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
  w.StartArray();
  for (const auto& region : regions) {
    w.StartObject();
    w.Key("name");
    w.String(region->name().c_str(), static_cast<rapidjson::SizeType>(region->name().size()));
    w.Key("key");
    w.String(region->key().c_str(), static_cast<rapidjson::SizeType>(region->key().size()));
    w.Key("offset");
    w.Uint64(region->offset());
    w.Key("byte_size");
    w.Uint64(region->byte_size());
    w.EndObject();
  }
  w.EndArray();
  return EndpointResponse{200, std::string(buffer.GetString(), buffer.GetSize())};
}

Answer Register(SharedMemoryRegistry& registry, const std::string& name, std::string_view body) {
  const std::string what = "registering shared memory region '" + name + "': ";
  rapidjson::Document request;
  request.Parse(body.data(), body.size());
  if (request.HasParseError() || !request.IsObject()) {
    return Status::InvalidArg(what + "the body must be a JSON object");
  }
  const auto key = request.FindMember("key");
  if (key == request.MemberEnd() || !key->value.IsString() || key->value.GetStringLength() == 0) {
    return Status::InvalidArg(what + "'key' must be a non-empty string");
  }
  const auto byte_size = request.FindMember("byte_size");
  if (byte_size == request.MemberEnd() || !byte_size->value.IsUint64()) {
    return Status::InvalidArg(what + "'byte_size' must be a non-negative integer");
  }
  uint64_t offset = 0;
  if (const auto found = request.FindMember("offset"); found != request.MemberEnd()) {
    if (!found->value.IsUint64()) {
      return Status::InvalidArg(what + "'offset' must be a non-negative integer");
    }
    offset = found->value.GetUint64();
  }
  return Done(
      registry.Register(name, key->value.GetString(), offset, byte_size->value.GetUint64()));
}

}  // namespace

StatusOr<EndpointResponse> HandleSharedMemoryEndpoint(SharedMemoryRegistry* registry,
                                                      const Route& route, std::string_view body) {
  if (registry == nullptr) {
    return Status::Unsupported("system shared memory is not enabled on this server");
  }
  switch (route.endpoint) {
    case Endpoint::kSharedMemoryStatus:
      return RegionStatus(*registry, route.region);
    case Endpoint::kSharedMemoryRegister:
      return Register(*registry, route.region, body);
    case Endpoint::kSharedMemoryUnregister:
      return Done(registry->Unregister(route.region));
    default:
      return Status::Internal("not a shared memory endpoint");
  }
}

}  // namespace inferd::http
