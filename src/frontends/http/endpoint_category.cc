#include "http/endpoint_category.h"

namespace inferd::http {

ApiCategory EndpointCategory(Endpoint endpoint) {
  switch (endpoint) {
    case Endpoint::kHealthLive:
    case Endpoint::kHealthReady:
    case Endpoint::kModelReady:
      return ApiCategory::kHealth;
    case Endpoint::kServerMetadata:
    case Endpoint::kModelMetadata:
      return ApiCategory::kMetadata;
    // The OpenAI API under the groups an operator already restricts: a key
    // that guards inference guards it whatever protocol asks.
    case Endpoint::kOpenAiModels:
    case Endpoint::kOpenAiModel:
      return ApiCategory::kMetadata;
    case Endpoint::kOpenAiCompletions:
    case Endpoint::kOpenAiChatCompletions:
    case Endpoint::kOpenAiEmbeddings:
    case Endpoint::kModelInfer:
    case Endpoint::kModelGenerate:
    case Endpoint::kModelGenerateStream:
      return ApiCategory::kInference;
    case Endpoint::kModelConfig:
      return ApiCategory::kModelConfig;
    case Endpoint::kRepositoryIndex:
    case Endpoint::kRepositoryLoad:
    case Endpoint::kRepositoryUnload:
      return ApiCategory::kModelRepository;
    case Endpoint::kModelStats:
      return ApiCategory::kStatistics;
    // The dashboard shows what the statistics show; its load and unload
    // buttons call the repository endpoints, restricted as those are.
    case Endpoint::kDashboardPage:
    case Endpoint::kDashboardData:
    case Endpoint::kDashboardFile:
      return ApiCategory::kStatistics;
    case Endpoint::kLogSettings:
    case Endpoint::kLogSettingsUpdate:
      return ApiCategory::kLogging;
    case Endpoint::kSharedMemoryStatus:
    case Endpoint::kSharedMemoryRegister:
    case Endpoint::kSharedMemoryUnregister:
      return ApiCategory::kSharedMemory;
    case Endpoint::kTraceSettingGet:
    case Endpoint::kTraceSettingPost:
      return ApiCategory::kTrace;
    case Endpoint::kNotSupported:
      // The only paths inferd knows but does not serve are CUDA shared
      // memory's: Triton restricts them with the shared-memory category.
      return ApiCategory::kSharedMemory;
    case Endpoint::kMetrics:
      return ApiCategory::kUnrestricted;
  }
  return ApiCategory::kUnrestricted;
}

HttpError CheckRestriction(const ApiRestrictions& restrictions, Endpoint endpoint,
                           const RequestHeaders& headers) {
  const ApiRestriction* restriction = restrictions.Find(EndpointCategory(endpoint));
  if (restriction == nullptr || headers.Get(restriction->header) == restriction->value) {
    return Status::Ok();
  }
  return HttpError(403, Status::Unavailable(ApiRestrictions::RefusalMessage(*restriction,
                                                                            /*grpc=*/false)));
}

}  // namespace inferd::http
