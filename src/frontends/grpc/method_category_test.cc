// The --grpc-restricted-protocol category table covers every RPC.
#include "grpc/method_category.h"

#include <google/protobuf/descriptor.h>
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "grpc_service.pb.h"

namespace inferd::grpc_frontend {
namespace {

TEST(MethodCategoryTest, EveryRpcOfTheServiceHasOneCategory) {
  const google::protobuf::ServiceDescriptor* service =
      inference::ServerLiveRequest::descriptor()->file()->FindServiceByName(
          "GRPCInferenceService");
  ASSERT_NE(service, nullptr);
  std::set<std::string_view> listed;
  for (const MethodCategory& entry : kMethodCategories) {
    EXPECT_TRUE(listed.insert(entry.method).second) << "listed twice: " << entry.method;
    EXPECT_NE(service->FindMethodByName(std::string(entry.method)), nullptr)
        << "no such RPC: " << entry.method;
  }
  for (int i = 0; i < service->method_count(); ++i) {
    EXPECT_TRUE(listed.contains(service->method(i)->name()))
        << "no category for " << service->method(i)->name();
  }
}

TEST(MethodCategoryTest, AdministrationIsSeparateFromInference) {
  static_assert(CategoryOfMethod("ModelInfer") == ApiCategory::kInference);
  static_assert(CategoryOfMethod("ModelStreamInfer") == ApiCategory::kInference);
  static_assert(CategoryOfMethod("RepositoryModelLoad") == ApiCategory::kModelRepository);
  static_assert(CategoryOfMethod("ModelReady") == ApiCategory::kHealth);
  static_assert(CategoryOfMethod("LogSettings") == ApiCategory::kLogging);
  static_assert(CategoryOfMethod("CudaSharedMemoryStatus") == ApiCategory::kSharedMemory);
  SUCCEED();
}

}  // namespace
}  // namespace inferd::grpc_frontend
