// Which of Triton's restriction categories (--grpc-restricted-protocol) each
// RPC of inference.GRPCInferenceService belongs to: the one table of it, and
// the check each RPC makes before it runs.
#ifndef INFERD_FRONTENDS_GRPC_METHOD_CATEGORY_H_
#define INFERD_FRONTENDS_GRPC_METHOD_CATEGORY_H_

#include <grpcpp/grpcpp.h>

#include <string_view>

#include "common/api_restrictions.h"

namespace inferd::grpc_frontend {

struct MethodCategory {
  std::string_view method;  // as in grpc_service.proto
  ApiCategory category;
};

// As Triton's handlers.
inline constexpr MethodCategory kMethodCategories[] = {
    {"ServerLive", ApiCategory::kHealth},
    {"ServerReady", ApiCategory::kHealth},
    {"ModelReady", ApiCategory::kHealth},
    {"ServerMetadata", ApiCategory::kMetadata},
    {"ModelMetadata", ApiCategory::kMetadata},
    {"ModelInfer", ApiCategory::kInference},
    {"ModelStreamInfer", ApiCategory::kInference},
    {"ModelConfig", ApiCategory::kModelConfig},
    {"ModelStatistics", ApiCategory::kStatistics},
    {"RepositoryIndex", ApiCategory::kModelRepository},
    {"RepositoryModelLoad", ApiCategory::kModelRepository},
    {"RepositoryModelUnload", ApiCategory::kModelRepository},
    {"SystemSharedMemoryStatus", ApiCategory::kSharedMemory},
    {"SystemSharedMemoryRegister", ApiCategory::kSharedMemory},
    {"SystemSharedMemoryUnregister", ApiCategory::kSharedMemory},
    {"CudaSharedMemoryStatus", ApiCategory::kSharedMemory},
    {"CudaSharedMemoryRegister", ApiCategory::kSharedMemory},
    {"CudaSharedMemoryUnregister", ApiCategory::kSharedMemory},
    {"TraceSetting", ApiCategory::kTrace},
    {"LogSettings", ApiCategory::kLogging},
};

// The category of `method`; a method missing from the table does not compile.
consteval ApiCategory CategoryOfMethod(std::string_view method) {
  for (const MethodCategory& entry : kMethodCategories) {
    if (entry.method == method) return entry.category;
  }
  throw "an RPC without a category in kMethodCategories";
}

// OK when `category` is open or the call's metadata carry its restriction's
// key with its value; else UNAVAILABLE with Triton's message naming the key.
grpc::Status CheckRestriction(const ApiRestrictions& restrictions, ApiCategory category,
                              const grpc::ServerContextBase& context);

}  // namespace inferd::grpc_frontend

#endif  // INFERD_FRONTENDS_GRPC_METHOD_CATEGORY_H_
