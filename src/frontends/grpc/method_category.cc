#include "grpc/method_category.h"

namespace inferd::grpc_frontend {

grpc::Status CheckRestriction(const ApiRestrictions& restrictions, ApiCategory category,
                              const grpc::ServerContextBase& context) {
  const ApiRestriction* restriction = restrictions.Find(category);
  if (restriction == nullptr) return grpc::Status::OK;
  const auto& metadata = context.client_metadata();
  const auto found = metadata.find(grpc::string_ref(restriction->header));
  if (found != metadata.end() && found->second == grpc::string_ref(restriction->value)) {
    return grpc::Status::OK;
  }
  return grpc::Status(grpc::StatusCode::UNAVAILABLE,
                      ApiRestrictions::RefusalMessage(*restriction, /*grpc=*/true));
}

}  // namespace inferd::grpc_frontend
