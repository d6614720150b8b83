// inference.GRPCInferenceService on gRPC's callback API: one method per RPC,
// each handing the call to its handler (metadata_handlers.h,
// repository_handlers.h on the BlockingWorker, shared_memory_handlers.h,
// trace_handlers.h, log_settings_handler.h, InferReactor, StreamReactor);
// CUDA shared memory answers UNIMPLEMENTED (no GPU support). No thread
// per call: unary calls return a reactor, streams run as StreamReactor.
// Thread-safe (its state is a constant ServiceContext).
#ifndef INFERD_FRONTENDS_GRPC_INFERENCE_SERVICE_H_
#define INFERD_FRONTENDS_GRPC_INFERENCE_SERVICE_H_

#include "grpc/infer_message_allocator.h"
#include "grpc/service_context.h"
#include "grpc_service.grpc.pb.h"

namespace inferd::grpc_frontend {

class InferenceService final : public inference::GRPCInferenceService::CallbackService {
 public:
  // `context` must outlive the service.
  explicit InferenceService(const ServiceContext& context) : context_(context) {
    SetMessageAllocatorFor_ModelInfer(&infer_messages_);
  }

  using Unary = grpc::ServerUnaryReactor;
  using Context = grpc::CallbackServerContext;

  Unary* ServerLive(Context* context, const inference::ServerLiveRequest* request,
                    inference::ServerLiveResponse* response) override;
  Unary* ServerReady(Context* context, const inference::ServerReadyRequest* request,
                     inference::ServerReadyResponse* response) override;
  Unary* ModelReady(Context* context, const inference::ModelReadyRequest* request,
                    inference::ModelReadyResponse* response) override;
  Unary* ServerMetadata(Context* context, const inference::ServerMetadataRequest* request,
                        inference::ServerMetadataResponse* response) override;
  Unary* ModelMetadata(Context* context, const inference::ModelMetadataRequest* request,
                       inference::ModelMetadataResponse* response) override;
  Unary* ModelInfer(Context* context, const inference::ModelInferRequest* request,
                    inference::ModelInferResponse* response) override;
  grpc::ServerBidiReactor<inference::ModelInferRequest, inference::ModelStreamInferResponse>*
  ModelStreamInfer(Context* context) override;
  Unary* ModelConfig(Context* context, const inference::ModelConfigRequest* request,
                     inference::ModelConfigResponse* response) override;
  Unary* ModelStatistics(Context* context, const inference::ModelStatisticsRequest* request,
                         inference::ModelStatisticsResponse* response) override;
  Unary* RepositoryIndex(Context* context, const inference::RepositoryIndexRequest* request,
                         inference::RepositoryIndexResponse* response) override;
  Unary* RepositoryModelLoad(Context* context,
                             const inference::RepositoryModelLoadRequest* request,
                             inference::RepositoryModelLoadResponse* response) override;
  Unary* RepositoryModelUnload(Context* context,
                               const inference::RepositoryModelUnloadRequest* request,
                               inference::RepositoryModelUnloadResponse* response) override;
  Unary* SystemSharedMemoryStatus(Context* context,
                                  const inference::SystemSharedMemoryStatusRequest* request,
                                  inference::SystemSharedMemoryStatusResponse* response) override;
  Unary* SystemSharedMemoryRegister(
      Context* context, const inference::SystemSharedMemoryRegisterRequest* request,
      inference::SystemSharedMemoryRegisterResponse* response) override;
  Unary* SystemSharedMemoryUnregister(
      Context* context, const inference::SystemSharedMemoryUnregisterRequest* request,
      inference::SystemSharedMemoryUnregisterResponse* response) override;
  Unary* CudaSharedMemoryStatus(Context* context,
                                const inference::CudaSharedMemoryStatusRequest* request,
                                inference::CudaSharedMemoryStatusResponse* response) override;
  Unary* CudaSharedMemoryRegister(Context* context,
                                  const inference::CudaSharedMemoryRegisterRequest* request,
                                  inference::CudaSharedMemoryRegisterResponse* response) override;
  Unary* CudaSharedMemoryUnregister(
      Context* context, const inference::CudaSharedMemoryUnregisterRequest* request,
      inference::CudaSharedMemoryUnregisterResponse* response) override;
  Unary* TraceSetting(Context* context, const inference::TraceSettingRequest* request,
                      inference::TraceSettingResponse* response) override;
  Unary* LogSettings(Context* context, const inference::LogSettingsRequest* request,
                     inference::LogSettingsResponse* response) override;

 private:
  const ServiceContext& context_;
  InferMessageAllocator infer_messages_;  // ModelInfer's request and response, per call
};

}  // namespace inferd::grpc_frontend

#endif  // INFERD_FRONTENDS_GRPC_INFERENCE_SERVICE_H_
