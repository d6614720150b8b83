// Dispatch of every GRPCInferenceService RPC.
#include "grpc/inference_service.h"

#include <string>

#include "grpc/grpc_status.h"
#include "grpc/infer_reactor.h"
#include "grpc/log_settings_handler.h"
#include "grpc/method_category.h"
#include "grpc/metadata_handlers.h"
#include "grpc/repository_handlers.h"
#include "grpc/shared_memory_handlers.h"
#include "grpc/stream_reactor.h"
#include "grpc/trace_handlers.h"

namespace inferd::grpc_frontend {
namespace {

using Unary = InferenceService::Unary;

// Finishes a call whose answer is ready now.
Unary* Answer(grpc::CallbackServerContext* context, const Status& status) {
  Unary* reactor = context->DefaultReactor();
  reactor->Finish(ToGrpcStatus(status));
  return reactor;
}

// The call answered UNAVAILABLE when its category is restricted and its
// metadata lack the key; null when it may run. One test when nothing is
// restricted.
Unary* Refused(const ServiceContext& service, grpc::CallbackServerContext* context,
               ApiCategory category) {
  if (service.restrictions.empty()) return nullptr;
  grpc::Status status = CheckRestriction(service.restrictions, category, *context);
  if (status.ok()) return nullptr;
  Unary* reactor = context->DefaultReactor();
  reactor->Finish(std::move(status));
  return reactor;
}

// A stream refused before its first message.
class RefusedStream final
    : public grpc::ServerBidiReactor<inference::ModelInferRequest,
                                     inference::ModelStreamInferResponse> {
 public:
  explicit RefusedStream(grpc::Status status) { Finish(std::move(status)); }
  void OnDone() override { delete this; }
};

Unary* NoGpu(grpc::CallbackServerContext* context) {
  return Answer(context, Status::Unsupported("CUDA shared memory: no GPU support on this server"));
}

}  // namespace

Unary* InferenceService::ServerLive(Context* context, const inference::ServerLiveRequest*,
                                    inference::ServerLiveResponse* response) {
  if (Unary* refused = Refused(context_, context, CategoryOfMethod("ServerLive"))) return refused;
  return Answer(context, grpc_frontend::ServerLive(context_.server, response));
}

Unary* InferenceService::ServerReady(Context* context, const inference::ServerReadyRequest*,
                                     inference::ServerReadyResponse* response) {
  if (Unary* refused = Refused(context_, context, CategoryOfMethod("ServerReady"))) return refused;
  return Answer(context, grpc_frontend::ServerReady(context_.server, response));
}

Unary* InferenceService::ModelReady(Context* context, const inference::ModelReadyRequest* request,
                                    inference::ModelReadyResponse* response) {
  if (Unary* refused = Refused(context_, context, CategoryOfMethod("ModelReady"))) return refused;
  return Answer(context, grpc_frontend::ModelReady(context_.server, *request, response));
}

Unary* InferenceService::ServerMetadata(Context* context, const inference::ServerMetadataRequest*,
                                        inference::ServerMetadataResponse* response) {
  if (Unary* refused = Refused(context_, context, CategoryOfMethod("ServerMetadata"))) return refused;
  return Answer(context, grpc_frontend::ServerMetadata(context_.server, response));
}

Unary* InferenceService::ModelMetadata(Context* context,
                                       const inference::ModelMetadataRequest* request,
                                       inference::ModelMetadataResponse* response) {
  if (Unary* refused = Refused(context_, context, CategoryOfMethod("ModelMetadata"))) return refused;
  return Answer(context, grpc_frontend::ModelMetadata(context_.server, *request, response));
}

Unary* InferenceService::ModelInfer(Context* context, const inference::ModelInferRequest* request,
                                    inference::ModelInferResponse* response) {
  if (Unary* refused = Refused(context_, context, CategoryOfMethod("ModelInfer"))) return refused;
  return InferReactor::Start(context_, context, request, response);
}

grpc::ServerBidiReactor<inference::ModelInferRequest, inference::ModelStreamInferResponse>*
InferenceService::ModelStreamInfer(Context* context) {
  if (!context_.restrictions.empty()) {
    grpc::Status status = CheckRestriction(context_.restrictions,
                                           CategoryOfMethod("ModelStreamInfer"), *context);
    if (!status.ok()) return new RefusedStream(std::move(status));
  }
  return new StreamReactor(context_, context);
}

Unary* InferenceService::ModelConfig(Context* context, const inference::ModelConfigRequest* request,
                                     inference::ModelConfigResponse* response) {
  if (Unary* refused = Refused(context_, context, CategoryOfMethod("ModelConfig"))) return refused;
  return Answer(context, grpc_frontend::ModelConfig(context_.server, *request, response));
}

Unary* InferenceService::ModelStatistics(Context* context,
                                         const inference::ModelStatisticsRequest* request,
                                         inference::ModelStatisticsResponse* response) {
  if (Unary* refused = Refused(context_, context, CategoryOfMethod("ModelStatistics"))) return refused;
  return Answer(context, grpc_frontend::ModelStatistics(context_.server, *request, response));
}

Unary* InferenceService::RepositoryIndex(Context* context,
                                         const inference::RepositoryIndexRequest* request,
                                         inference::RepositoryIndexResponse* response) {
  if (Unary* refused = Refused(context_, context, CategoryOfMethod("RepositoryIndex"))) return refused;
  return Answer(context, grpc_frontend::RepositoryIndex(context_.server, *request, response));
}

Unary* InferenceService::RepositoryModelLoad(Context* context,
                                             const inference::RepositoryModelLoadRequest* request,
                                             inference::RepositoryModelLoadResponse*) {
  if (Unary* refused = Refused(context_, context, CategoryOfMethod("RepositoryModelLoad"))) return refused;
  Unary* reactor = context->DefaultReactor();
  INFERD_Server* server = context_.server;
  // The request lives until Finish; the load blocks, so it runs on the worker.
  context_.worker->Post([server, request, reactor] {
    reactor->Finish(ToGrpcStatus(LoadModel(server, *request)));
  });
  return reactor;
}

Unary* InferenceService::RepositoryModelUnload(
    Context* context, const inference::RepositoryModelUnloadRequest* request,
    inference::RepositoryModelUnloadResponse*) {
  if (Unary* refused = Refused(context_, context, CategoryOfMethod("RepositoryModelUnload"))) return refused;
  Unary* reactor = context->DefaultReactor();
  INFERD_Server* server = context_.server;
  context_.worker->Post([server, request, reactor] {
    reactor->Finish(ToGrpcStatus(UnloadModel(server, *request)));
  });
  return reactor;
}

Unary* InferenceService::SystemSharedMemoryStatus(
    Context* context, const inference::SystemSharedMemoryStatusRequest* request,
    inference::SystemSharedMemoryStatusResponse* response) {
  if (Unary* refused = Refused(context_, context, CategoryOfMethod("SystemSharedMemoryStatus"))) return refused;
  return Answer(context, SharedMemoryStatus(context_.shared_memory, *request, response));
}

Unary* InferenceService::SystemSharedMemoryRegister(
    Context* context, const inference::SystemSharedMemoryRegisterRequest* request,
    inference::SystemSharedMemoryRegisterResponse*) {
  if (Unary* refused = Refused(context_, context, CategoryOfMethod("SystemSharedMemoryRegister"))) return refused;
  return Answer(context, SharedMemoryRegister(context_.shared_memory, *request));
}

Unary* InferenceService::SystemSharedMemoryUnregister(
    Context* context, const inference::SystemSharedMemoryUnregisterRequest* request,
    inference::SystemSharedMemoryUnregisterResponse*) {
  if (Unary* refused = Refused(context_, context, CategoryOfMethod("SystemSharedMemoryUnregister"))) return refused;
  return Answer(context, SharedMemoryUnregister(context_.shared_memory, *request));
}

Unary* InferenceService::CudaSharedMemoryStatus(Context* context,
                                                const inference::CudaSharedMemoryStatusRequest*,
                                                inference::CudaSharedMemoryStatusResponse*) {
  if (Unary* refused = Refused(context_, context, CategoryOfMethod("CudaSharedMemoryStatus"))) return refused;
  return NoGpu(context);
}

Unary* InferenceService::CudaSharedMemoryRegister(
    Context* context, const inference::CudaSharedMemoryRegisterRequest*,
    inference::CudaSharedMemoryRegisterResponse*) {
  if (Unary* refused = Refused(context_, context, CategoryOfMethod("CudaSharedMemoryRegister"))) return refused;
  return NoGpu(context);
}

Unary* InferenceService::CudaSharedMemoryUnregister(
    Context* context, const inference::CudaSharedMemoryUnregisterRequest*,
    inference::CudaSharedMemoryUnregisterResponse*) {
  if (Unary* refused = Refused(context_, context, CategoryOfMethod("CudaSharedMemoryUnregister"))) return refused;
  return NoGpu(context);
}

Unary* InferenceService::TraceSetting(Context* context,
                                      const inference::TraceSettingRequest* request,
                                      inference::TraceSettingResponse* response) {
  if (Unary* refused = Refused(context_, context, CategoryOfMethod("TraceSetting"))) return refused;
  return Answer(context, grpc_frontend::TraceSetting(context_.server, *request, response));
}

Unary* InferenceService::LogSettings(Context* context, const inference::LogSettingsRequest* request,
                                     inference::LogSettingsResponse* response) {
  if (Unary* refused = Refused(context_, context, CategoryOfMethod("LogSettings"))) return refused;
  return Answer(context, grpc_frontend::LogSettings(context_.server, *request, response));
}

}  // namespace inferd::grpc_frontend
