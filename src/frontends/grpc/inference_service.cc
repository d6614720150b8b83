// Dispatch of every GRPCInferenceService RPC.
#include "grpc/inference_service.h"

#include <string>

#include "grpc/access_check.h"
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

// The call's refusal: UNAVAILABLE when its category is restricted and its
// metadata lack the header, an API key's refusal (access_check.h) with
// --auth-file; OK when it may run. Two tests when neither is on.
// A stream's opening (`stream`) is checked without being counted: its
// requests are, each as it comes.
grpc::Status Refusal(const ServiceContext& service, grpc::CallbackServerContext* context,
                     ApiCategory category, std::optional<std::string_view> model,
                     bool stream = false) {
  if (!service.restrictions.empty()) {
    grpc::Status status = CheckRestriction(service.restrictions, category, *context);
    if (!status.ok()) return status;
  }
  if (service.access == nullptr) return grpc::Status::OK;
  if (stream) return CheckStreamOpen(*service.access, category, *context);
  return CheckAccess(*service.access, category, model, *context);
}

// The call answered with its refusal, if any; null when it may run.
Unary* Refused(const ServiceContext& service, grpc::CallbackServerContext* context,
               ApiCategory category, std::optional<std::string_view> model = std::nullopt) {
  grpc::Status status = Refusal(service, context, category, model);
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
  constexpr ApiCategory kCategory = CategoryOfMethod("ServerLive");
  if (Unary* refused = Refused(context_, context, kCategory)) return refused;
  return Answer(context, grpc_frontend::ServerLive(context_.server, response));
}

Unary* InferenceService::ServerReady(Context* context, const inference::ServerReadyRequest*,
                                     inference::ServerReadyResponse* response) {
  constexpr ApiCategory kCategory = CategoryOfMethod("ServerReady");
  if (Unary* refused = Refused(context_, context, kCategory)) return refused;
  return Answer(context, grpc_frontend::ServerReady(context_.server, response));
}

Unary* InferenceService::ModelReady(Context* context, const inference::ModelReadyRequest* request,
                                    inference::ModelReadyResponse* response) {
  constexpr ApiCategory kCategory = CategoryOfMethod("ModelReady");
  if (Unary* refused = Refused(context_, context, kCategory)) return refused;
  return Answer(context, grpc_frontend::ModelReady(context_.server, *request, response));
}

Unary* InferenceService::ServerMetadata(Context* context, const inference::ServerMetadataRequest*,
                                        inference::ServerMetadataResponse* response) {
  constexpr ApiCategory kCategory = CategoryOfMethod("ServerMetadata");
  if (Unary* refused = Refused(context_, context, kCategory)) return refused;
  return Answer(context, grpc_frontend::ServerMetadata(context_.server, response));
}

Unary* InferenceService::ModelMetadata(Context* context,
                                       const inference::ModelMetadataRequest* request,
                                       inference::ModelMetadataResponse* response) {
  constexpr ApiCategory kCategory = CategoryOfMethod("ModelMetadata");
  if (Unary* refused = Refused(context_, context, kCategory)) return refused;
  return Answer(context, grpc_frontend::ModelMetadata(context_.server, *request, response));
}

Unary* InferenceService::ModelInfer(Context* context, const inference::ModelInferRequest* request,
                                    inference::ModelInferResponse* response) {
  constexpr ApiCategory kCategory = CategoryOfMethod("ModelInfer");
  if (Unary* refused = Refused(context_, context, kCategory, request->model_name())) {
    return refused;
  }
  return InferReactor::Start(context_, context, request, response);
}

grpc::ServerBidiReactor<inference::ModelInferRequest, inference::ModelStreamInferResponse>*
InferenceService::ModelStreamInfer(Context* context) {
  constexpr ApiCategory kCategory = CategoryOfMethod("ModelStreamInfer");
  // Each request of the stream is checked against the key's models as it comes.
  if (grpc::Status status = Refusal(context_, context, kCategory, std::nullopt, /*stream=*/true);
      !status.ok()) {
    return new RefusedStream(std::move(status));
  }
  return new StreamReactor(context_, context);
}

Unary* InferenceService::ModelConfig(Context* context, const inference::ModelConfigRequest* request,
                                     inference::ModelConfigResponse* response) {
  constexpr ApiCategory kCategory = CategoryOfMethod("ModelConfig");
  if (Unary* refused = Refused(context_, context, kCategory)) return refused;
  return Answer(context, grpc_frontend::ModelConfig(context_.server, *request, response));
}

Unary* InferenceService::ModelStatistics(Context* context,
                                         const inference::ModelStatisticsRequest* request,
                                         inference::ModelStatisticsResponse* response) {
  constexpr ApiCategory kCategory = CategoryOfMethod("ModelStatistics");
  if (Unary* refused = Refused(context_, context, kCategory)) return refused;
  return Answer(context, grpc_frontend::ModelStatistics(context_.server, *request, response));
}

Unary* InferenceService::RepositoryIndex(Context* context,
                                         const inference::RepositoryIndexRequest* request,
                                         inference::RepositoryIndexResponse* response) {
  constexpr ApiCategory kCategory = CategoryOfMethod("RepositoryIndex");
  if (Unary* refused = Refused(context_, context, kCategory)) return refused;
  return Answer(context, grpc_frontend::RepositoryIndex(context_.server, *request, response));
}

Unary* InferenceService::RepositoryModelLoad(Context* context,
                                             const inference::RepositoryModelLoadRequest* request,
                                             inference::RepositoryModelLoadResponse*) {
  constexpr ApiCategory kCategory = CategoryOfMethod("RepositoryModelLoad");
  if (Unary* refused = Refused(context_, context, kCategory)) return refused;
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
  constexpr ApiCategory kCategory = CategoryOfMethod("RepositoryModelUnload");
  if (Unary* refused = Refused(context_, context, kCategory)) return refused;
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
  constexpr ApiCategory kCategory = CategoryOfMethod("SystemSharedMemoryStatus");
  if (Unary* refused = Refused(context_, context, kCategory)) return refused;
  return Answer(context, SharedMemoryStatus(context_.shared_memory, *request, response));
}

Unary* InferenceService::SystemSharedMemoryRegister(
    Context* context, const inference::SystemSharedMemoryRegisterRequest* request,
    inference::SystemSharedMemoryRegisterResponse*) {
  constexpr ApiCategory kCategory = CategoryOfMethod("SystemSharedMemoryRegister");
  if (Unary* refused = Refused(context_, context, kCategory)) return refused;
  return Answer(context, SharedMemoryRegister(context_.shared_memory, *request));
}

Unary* InferenceService::SystemSharedMemoryUnregister(
    Context* context, const inference::SystemSharedMemoryUnregisterRequest* request,
    inference::SystemSharedMemoryUnregisterResponse*) {
  constexpr ApiCategory kCategory = CategoryOfMethod("SystemSharedMemoryUnregister");
  if (Unary* refused = Refused(context_, context, kCategory)) return refused;
  return Answer(context, SharedMemoryUnregister(context_.shared_memory, *request));
}

Unary* InferenceService::CudaSharedMemoryStatus(Context* context,
                                                const inference::CudaSharedMemoryStatusRequest*,
                                                inference::CudaSharedMemoryStatusResponse*) {
  constexpr ApiCategory kCategory = CategoryOfMethod("CudaSharedMemoryStatus");
  if (Unary* refused = Refused(context_, context, kCategory)) return refused;
  return NoGpu(context);
}

Unary* InferenceService::CudaSharedMemoryRegister(
    Context* context, const inference::CudaSharedMemoryRegisterRequest*,
    inference::CudaSharedMemoryRegisterResponse*) {
  constexpr ApiCategory kCategory = CategoryOfMethod("CudaSharedMemoryRegister");
  if (Unary* refused = Refused(context_, context, kCategory)) return refused;
  return NoGpu(context);
}

Unary* InferenceService::CudaSharedMemoryUnregister(
    Context* context, const inference::CudaSharedMemoryUnregisterRequest*,
    inference::CudaSharedMemoryUnregisterResponse*) {
  constexpr ApiCategory kCategory = CategoryOfMethod("CudaSharedMemoryUnregister");
  if (Unary* refused = Refused(context_, context, kCategory)) return refused;
  return NoGpu(context);
}

Unary* InferenceService::TraceSetting(Context* context,
                                      const inference::TraceSettingRequest* request,
                                      inference::TraceSettingResponse* response) {
  constexpr ApiCategory kCategory = CategoryOfMethod("TraceSetting");
  if (Unary* refused = Refused(context_, context, kCategory)) return refused;
  return Answer(context, grpc_frontend::TraceSetting(context_.server, *request, response));
}

Unary* InferenceService::LogSettings(Context* context, const inference::LogSettingsRequest* request,
                                     inference::LogSettingsResponse* response) {
  constexpr ApiCategory kCategory = CategoryOfMethod("LogSettings");
  if (Unary* refused = Refused(context_, context, kCategory)) return refused;
  return Answer(context, grpc_frontend::LogSettings(context_.server, *request, response));
}

}  // namespace inferd::grpc_frontend
