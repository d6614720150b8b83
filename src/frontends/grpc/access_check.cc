#include "grpc/access_check.h"

#include <string>

namespace inferd::grpc_frontend {

std::string_view AuthorizationOf(const Metadata& metadata) {
  for (const std::string_view key : {std::string_view("authorization"),
                                     std::string_view("triton-grpc-protocol-authorization")}) {
    const auto found = metadata.find(grpc::string_ref(key.data(), key.size()));
    if (found != metadata.end()) return {found->second.data(), found->second.size()};
  }
  return {};
}

namespace {

grpc::Status StatusOfDecision(const auth::AccessDecision& decision,
                              grpc::ServerContextBase& context) {
  switch (decision.verdict) {
    case auth::Verdict::kAllowed:
      return grpc::Status::OK;
    case auth::Verdict::kUnauthenticated:
      return grpc::Status(grpc::StatusCode::UNAUTHENTICATED, decision.message);
    case auth::Verdict::kForbidden:
      return grpc::Status(grpc::StatusCode::PERMISSION_DENIED, decision.message);
    case auth::Verdict::kRateLimited:
      context.AddTrailingMetadata("retry-after", std::to_string(decision.retry_after.count()));
      return grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED, decision.message);
  }
  return grpc::Status(grpc::StatusCode::INTERNAL, "unknown access verdict");
}

}  // namespace

grpc::Status CheckAccess(const auth::AccessControl& access, ApiCategory category,
                         std::optional<std::string_view> model,
                         grpc::ServerContextBase& context) {
  const std::optional<auth::Scope> scope = auth::ScopeOfCategory(category);
  if (!scope) return grpc::Status::OK;
  return StatusOfDecision(access.Check(AuthorizationOf(context.client_metadata()), *scope, model),
                          context);
}

grpc::Status CheckStreamOpen(const auth::AccessControl& access, ApiCategory category,
                             grpc::ServerContextBase& context) {
  const std::optional<auth::Scope> scope = auth::ScopeOfCategory(category);
  if (!scope) return grpc::Status::OK;
  return StatusOfDecision(
      access.CheckStreamOpen(AuthorizationOf(context.client_metadata()), *scope), context);
}

}  // namespace inferd::grpc_frontend
