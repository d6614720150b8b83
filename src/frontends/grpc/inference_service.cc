// Every GRPCInferenceService method: its Request<Method>, its category and
// how it is served.
#include "grpc/inference_service.h"

#include "grpc/grpc_status.h"
#include "grpc/infer_reactor.h"
#include "grpc/log_settings_handler.h"
#include "grpc/method_call.h"
#include "grpc/method_category.h"
#include "grpc/metadata_handlers.h"
#include "grpc/repository_handlers.h"
#include "grpc/shared_memory_handlers.h"
#include "grpc/stream_reactor.h"
#include "grpc/trace_handlers.h"

namespace inferd::grpc_frontend {
namespace {

using Service = inference::GRPCInferenceService::AsyncService;

// Awaits calls of the unary method `request` (a member of one of the
// generated service's bases) served by `serve`, a function or a captureless
// lambda taking (const ServiceContext&, MethodCall<Request, Response>&).
template <class Base, class Request, class Response, class Serve>
void AwaitUnary(const CallSite& site,
                void (Base::*request)(grpc::ServerContext*, Request*,
                                      grpc::ServerAsyncResponseWriter<Response>*,
                                      grpc::CompletionQueue*, grpc::ServerCompletionQueue*, void*),
                ApiCategory category, Serve serve) {
  using Call = MethodCall<Request, Response>;
  const typename Call::ServeFn serve_fn = serve;
  Call::Await(site, {request, category, serve_fn});
}

void AwaitHealthAndMetadata(const CallSite& site) {
  AwaitUnary(site, &Service::RequestServerLive, CategoryOfMethod("ServerLive"),
             [](const ServiceContext& s, auto& call) {
               call.Finish(ToGrpcStatus(ServerLive(s.server, call.response())));
             });
  AwaitUnary(site, &Service::RequestServerReady, CategoryOfMethod("ServerReady"),
             [](const ServiceContext& s, auto& call) {
               call.Finish(ToGrpcStatus(ServerReady(s.server, call.response())));
             });
  AwaitUnary(site, &Service::RequestModelReady, CategoryOfMethod("ModelReady"),
             [](const ServiceContext& s, auto& call) {
               call.Finish(ToGrpcStatus(ModelReady(s.server, call.request(), call.response())));
             });
  AwaitUnary(site, &Service::RequestServerMetadata, CategoryOfMethod("ServerMetadata"),
             [](const ServiceContext& s, auto& call) {
               call.Finish(ToGrpcStatus(ServerMetadata(s.server, call.response())));
             });
  AwaitUnary(site, &Service::RequestModelMetadata, CategoryOfMethod("ModelMetadata"),
             [](const ServiceContext& s, auto& call) {
               call.Finish(ToGrpcStatus(ModelMetadata(s.server, call.request(), call.response())));
             });
  AwaitUnary(site, &Service::RequestModelConfig, CategoryOfMethod("ModelConfig"),
             [](const ServiceContext& s, auto& call) {
               call.Finish(ToGrpcStatus(ModelConfig(s.server, call.request(), call.response())));
             });
  AwaitUnary(site, &Service::RequestModelStatistics, CategoryOfMethod("ModelStatistics"),
             [](const ServiceContext& s, auto& call) {
               call.Finish(
                   ToGrpcStatus(ModelStatistics(s.server, call.request(), call.response())));
             });
}

void AwaitRepository(const CallSite& site) {
  AwaitUnary(site, &Service::RequestRepositoryIndex, CategoryOfMethod("RepositoryIndex"),
             [](const ServiceContext& s, auto& call) {
               call.Finish(
                   ToGrpcStatus(RepositoryIndex(s.server, call.request(), call.response())));
             });
  // A load or unload blocks, so it runs on the worker; the call finishes there.
  AwaitUnary(site, &Service::RequestRepositoryModelLoad, CategoryOfMethod("RepositoryModelLoad"),
             [](const ServiceContext& s, auto& call) {
               s.worker->Post([server = s.server, call = &call] {
                 call->Finish(ToGrpcStatus(LoadModel(server, call->request())));
               });
             });
  AwaitUnary(site, &Service::RequestRepositoryModelUnload,
             CategoryOfMethod("RepositoryModelUnload"), [](const ServiceContext& s, auto& call) {
               s.worker->Post([server = s.server, call = &call] {
                 call->Finish(ToGrpcStatus(UnloadModel(server, call->request())));
               });
             });
}

void AwaitSharedMemory(const CallSite& site) {
  AwaitUnary(site, &Service::RequestSystemSharedMemoryStatus,
             CategoryOfMethod("SystemSharedMemoryStatus"), [](const ServiceContext& s, auto& call) {
               call.Finish(ToGrpcStatus(
                   SharedMemoryStatus(s.shared_memory, call.request(), call.response())));
             });
  AwaitUnary(site, &Service::RequestSystemSharedMemoryRegister,
             CategoryOfMethod("SystemSharedMemoryRegister"),
             [](const ServiceContext& s, auto& call) {
               call.Finish(ToGrpcStatus(SharedMemoryRegister(s.shared_memory, call.request())));
             });
  AwaitUnary(site, &Service::RequestSystemSharedMemoryUnregister,
             CategoryOfMethod("SystemSharedMemoryUnregister"),
             [](const ServiceContext& s, auto& call) {
               call.Finish(ToGrpcStatus(SharedMemoryUnregister(s.shared_memory, call.request())));
             });
  constexpr auto no_gpu = [](const ServiceContext&, auto& call) {
    call.Finish(ToGrpcStatus(
        Status::Unsupported("CUDA shared memory: no GPU support on this server")));
  };
  AwaitUnary(site, &Service::RequestCudaSharedMemoryStatus,
             CategoryOfMethod("CudaSharedMemoryStatus"), no_gpu);
  AwaitUnary(site, &Service::RequestCudaSharedMemoryRegister,
             CategoryOfMethod("CudaSharedMemoryRegister"), no_gpu);
  AwaitUnary(site, &Service::RequestCudaSharedMemoryUnregister,
             CategoryOfMethod("CudaSharedMemoryUnregister"), no_gpu);
}

void AwaitSettings(const CallSite& site) {
  AwaitUnary(site, &Service::RequestTraceSetting, CategoryOfMethod("TraceSetting"),
             [](const ServiceContext& s, auto& call) {
               call.Finish(ToGrpcStatus(TraceSetting(s.server, call.request(), call.response())));
             });
  AwaitUnary(site, &Service::RequestLogSettings, CategoryOfMethod("LogSettings"),
             [](const ServiceContext& s, auto& call) {
               call.Finish(ToGrpcStatus(LogSettings(s.server, call.request(), call.response())));
             });
}

// ModelInfer calls awaited at once on each queue: a call that arrives while
// none is awaited waits inside gRPC until the next is.
constexpr int kAwaitedInferCalls = 8;

}  // namespace

void InferenceService::AwaitCalls(grpc::ServerCompletionQueue* queue, const QueueLoad* load,
                                  LiveCalls* live) {
  const CallSite& site = sites_.emplace_back(CallSite{&service_, queue, live, load, &context_});
  for (int i = 0; i < kAwaitedInferCalls; ++i) InferReactor::Await(site);
  StreamReactor::Await(site);
  AwaitHealthAndMetadata(site);
  AwaitRepository(site);
  AwaitSharedMemory(site);
  AwaitSettings(site);
}

}  // namespace inferd::grpc_frontend
