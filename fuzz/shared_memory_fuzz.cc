// Fuzz target: the system shared memory extension's request fields, from
// both frontends, on a real registry holding real regions:
//   - the HTTP endpoints (status, register, unregister: the route and the
//     JSON register body, {"key", "offset", "byte_size"}),
//   - the gRPC SystemSharedMemory{Status,Register,Unregister} messages,
//   - the shared_memory_region / _offset / _byte_size parameters of an HTTP
//     infer body, located in the registry as the session does and built
//     into a server request for a real model,
//   - the registry's Slice directly, with offsets and sizes around the
//     bounds of a region (and past them, to overflow).
// Every slice the registry hands out is checked to lie inside its region and
// both its ends are read, so a bounds check that lets one through crashes.
// Each input runs on a fresh registry with two registered regions.
// (The gRPC infer parameters against regions: grpc_infer_fuzz.)
#include <fuzzer/FuzzedDataProvider.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cctype>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include "common/server_error.h"
#include "fuzz/fuzz_server.h"
#include "fuzz/request_text.h"
#include "grpc/shared_memory_handlers.h"
#include "grpc_service.pb.h"
#include "http/infer_request_builder.h"
#include "http/infer_request_parser.h"
#include "http/router.h"
#include "http/shared_memory_endpoints.h"

namespace {

using inferd::SharedMemoryRegistry;
using inferd::SharedMemorySlice;
using inferd::fuzz::FuzzServer;
using inferd::fuzz::JsonString;
using inferd::fuzz::UrlEscape;
using inferd::fuzz::kRegionBytes;

FuzzServer& Server() {
  static FuzzServer* server = [] {
    inferd::fuzz::FuzzServerOptions options;
    options.models = {{"fp32", inferd::fuzz::IdentityConfig("fp32", "TYPE_FP32", 8)},
                      {"bytes", inferd::fuzz::IdentityConfig("bytes", "TYPE_STRING", 0)}};
    return inferd::fuzz::StartFuzzServer(options, 2);
  }();
  return *server;
}

[[noreturn]] void Fail(const std::string& what) {
  std::fprintf(stderr, "shared_memory_fuzz: %s\n", what.c_str());
  std::abort();
}

// The registry's promise: a slice lies inside its region. Reads both ends.
void CheckSlice(const SharedMemorySlice& slice, uint64_t offset, uint64_t byte_size) {
  const inferd::SharedMemoryRegion& region = *slice.region;
  const char* begin = region.data();
  if (slice.data != begin + offset || slice.byte_size != byte_size || offset > region.byte_size() ||
      byte_size > region.byte_size() - offset) {
    Fail("slice [" + std::to_string(offset) + ", +" + std::to_string(byte_size) +
         ") handed out of region '" + region.name() + "' of " +
         std::to_string(region.byte_size()) + " bytes");
  }
  if (byte_size > 0) {
    volatile char first = slice.data[0];
    volatile char last = slice.data[byte_size - 1];
    (void)first;
    (void)last;
  }
}

uint64_t EdgyNumber(FuzzedDataProvider& in) {
  switch (in.ConsumeIntegralInRange<int>(0, 4)) {
    case 0: return in.ConsumeIntegralInRange<uint64_t>(0, 16);
    case 1: return kRegionBytes - in.ConsumeIntegralInRange<uint64_t>(0, 8) +
                   in.ConsumeIntegralInRange<uint64_t>(0, 8);
    case 2: return std::numeric_limits<uint64_t>::max() - in.ConsumeIntegralInRange<uint64_t>(0, 8);
    case 3: return uint64_t{1} << in.ConsumeIntegralInRange<int>(0, 63);
    default: return in.ConsumeIntegral<uint64_t>();
  }
}

std::string RegionName(FuzzedDataProvider& in) {
  switch (in.ConsumeIntegralInRange<int>(0, 4)) {
    case 0: return "region0";
    case 1: return "region1";
    case 2: return "fresh";
    case 3: return "";
    default: return in.ConsumeRandomLengthString(12);
  }
}

std::string Key(FuzzedDataProvider& in) {
  const FuzzServer& server = Server();
  switch (in.ConsumeIntegralInRange<int>(0, 5)) {
    case 0: return server.region_keys[0];
    case 1: return server.region_keys[1];
    case 2: return "";
    case 3: return "/";
    case 4: return "/inferd-fuzz-no-such-key";
    default: return in.ConsumeRandomLengthString(24);
  }
}

// A JSON number as the client may write it, or something else.
std::string JsonNumber(FuzzedDataProvider& in) {
  switch (in.ConsumeIntegralInRange<int>(0, 5)) {
    case 0: return "-" + std::to_string(in.ConsumeIntegral<uint32_t>());
    case 1: return std::to_string(EdgyNumber(in)) + ".0";
    case 2: return "\"" + std::to_string(EdgyNumber(in)) + "\"";
    case 3: return "18446744073709551616";  // 2^64
    default: return std::to_string(EdgyNumber(in));
  }
}

void HttpEndpoint(FuzzedDataProvider& in, SharedMemoryRegistry& registry) {
  const std::string region = RegionName(in);
  std::string target;
  switch (in.ConsumeIntegralInRange<int>(0, 5)) {
    case 0: target = "/v2/systemsharedmemory/status"; break;
    case 1: target = "/v2/systemsharedmemory/unregister"; break;
    case 2: target = "/v2/systemsharedmemory/region/" + UrlEscape(region) + "/status"; break;
    case 3: target = "/v2/systemsharedmemory/region/" + UrlEscape(region) + "/unregister"; break;
    case 4: target = "/v2/systemsharedmemory/region/" + UrlEscape(region) + "/register"; break;
    default: target = in.ConsumeRandomLengthString(48); break;
  }
  std::string body;
  if (in.ConsumeIntegralInRange<int>(0, 3) == 0) {
    body = in.ConsumeRandomLengthString(64);
  } else {
    body = "{\"key\":" + JsonString(Key(in));
    if (in.ConsumeBool()) body += ",\"offset\":" + JsonNumber(in);
    if (in.ConsumeIntegralInRange<int>(0, 7) != 0) body += ",\"byte_size\":" + JsonNumber(in);
    body += "}";
  }
  const inferd::http::Method method =
      in.ConsumeBool() ? inferd::http::Method::kPost : inferd::http::Method::kGet;
  inferd::http::Route route;
  if (!inferd::http::MatchRoute(method, target, &route).ok()) return;
  if (!inferd::http::IsSharedMemoryEndpoint(route.endpoint)) return;
  (void)inferd::http::HandleSharedMemoryEndpoint(&registry, route, body);
}

void GrpcMessages(FuzzedDataProvider& in, SharedMemoryRegistry& registry) {
  namespace grpc = inferd::grpc_frontend;
  switch (in.ConsumeIntegralInRange<int>(0, 3)) {
    case 0: {
      inference::SystemSharedMemoryRegisterRequest request;
      if (in.ConsumeIntegralInRange<int>(0, 3) == 0) {
        const std::string bytes = in.ConsumeRandomLengthString(64);
        if (!request.ParseFromString(bytes)) return;
      } else {
        request.set_name(RegionName(in));
        request.set_key(Key(in));
        request.set_offset(EdgyNumber(in));
        request.set_byte_size(EdgyNumber(in));
      }
      (void)grpc::SharedMemoryRegister(&registry, request);
      return;
    }
    case 1: {
      inference::SystemSharedMemoryStatusRequest request;
      request.set_name(RegionName(in));
      inference::SystemSharedMemoryStatusResponse response;
      (void)grpc::SharedMemoryStatus(&registry, request, &response);
      return;
    }
    default: {
      inference::SystemSharedMemoryUnregisterRequest request;
      request.set_name(RegionName(in));
      (void)grpc::SharedMemoryUnregister(&registry, request);
      return;
    }
  }
}

void DirectSlice(FuzzedDataProvider& in, const SharedMemoryRegistry& registry) {
  const std::string name = RegionName(in);
  const uint64_t offset = EdgyNumber(in);
  const uint64_t byte_size = EdgyNumber(in);
  SharedMemorySlice slice;
  if (registry.Slice(name, offset, byte_size, "input 'x'", &slice).ok()) {
    CheckSlice(slice, offset, byte_size);
  }
}

// The JSON of one tensor's shared_memory_* parameters.
std::string SharedMemoryParameters(FuzzedDataProvider& in) {
  std::string json = "{";
  if (in.ConsumeIntegralInRange<int>(0, 7) != 0) {
    json += "\"shared_memory_region\":" + JsonString(RegionName(in));
  }
  if (in.ConsumeIntegralInRange<int>(0, 7) != 0) {
    json += std::string(json.size() > 1 ? "," : "") + "\"shared_memory_byte_size\":" + JsonNumber(in);
  }
  if (in.ConsumeBool()) {
    json += std::string(json.size() > 1 ? "," : "") + "\"shared_memory_offset\":" + JsonNumber(in);
  }
  return json + "}";
}

// An infer body whose tensors are in shared memory, through the parser, the
// session's lookup of each region and the request builder.
void HttpInfer(FuzzedDataProvider& in, const SharedMemoryRegistry& registry) {
  std::string body;
  const bool fp32 = in.ConsumeBool();
  if (in.ConsumeIntegralInRange<int>(0, 3) == 0) {
    body = in.ConsumeRandomLengthString(256);
  } else {
    body = "{\"inputs\":[{\"name\":\"INPUT0\",\"datatype\":\"" +
           std::string(fp32 ? "FP32" : "BYTES") + "\",\"shape\":[" +
           (fp32 ? "1," : "") + std::to_string(in.ConsumeIntegralInRange<int>(0, 2048)) +
           "],\"parameters\":" + SharedMemoryParameters(in) + "}]";
    if (in.ConsumeBool()) {
      body += ",\"outputs\":[{\"name\":\"OUTPUT0\",\"parameters\":" +
              SharedMemoryParameters(in) + "}]";
    }
    body += "}";
  }
  inferd::http::ParsedInferRequest parsed;
  if (!inferd::http::ParseInferRequest(body.data(), body.size(), body.size(), &parsed).ok()) return;
  std::vector<SharedMemorySlice> slices;
  for (inferd::http::ParsedInput& input : parsed.inputs) {
    const inferd::http::SharedMemoryRef& ref = input.shared_memory;
    if (ref.region.empty()) continue;
    SharedMemorySlice& slice = slices.emplace_back();
    if (!registry.Slice(ref.region, ref.offset, ref.byte_size, "input", &slice).ok()) return;
    CheckSlice(slice, ref.offset, ref.byte_size);
    input.data = slice.data;
  }
  for (const inferd::http::ParsedOutput& output : parsed.outputs) {
    const inferd::http::SharedMemoryRef& ref = output.shared_memory;
    if (ref.region.empty()) continue;
    SharedMemorySlice slice;
    if (!registry.Slice(ref.region, ref.offset, ref.byte_size, "output", &slice).ok()) return;
    CheckSlice(slice, ref.offset, ref.byte_size);
  }
  INFERD_InferenceRequest* request = nullptr;
  if (inferd::http::BuildInferRequest(Server().server, fp32 ? "fp32" : "bytes", -1, parsed,
                                      &request)
          .ok()) {
    inferd::DiscardServerError(INFERD_InferenceRequestDelete(request));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const FuzzServer& server = Server();
  SharedMemoryRegistry registry;
  for (int i = 0; i < 2; ++i) {
    if (!registry.Register("region" + std::to_string(i), server.region_keys[i], 0, kRegionBytes)
             .ok()) {
      Fail("cannot register region" + std::to_string(i));
    }
  }
  FuzzedDataProvider in(data, size);
  for (int step = 0; step < 8 && in.remaining_bytes() > 0; ++step) {
    switch (in.ConsumeIntegralInRange<int>(0, 3)) {
      case 0: HttpEndpoint(in, registry); break;
      case 1: GrpcMessages(in, registry); break;
      case 2: DirectSlice(in, registry); break;
      default: HttpInfer(in, registry); break;
    }
  }
  return 0;
}
