#include "grpc/access_check.h"

#include <string>

#include "grpc/method_category.h"

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
                         grpc::ServerContextBase& context, uint32_t* priority) {
  const std::optional<auth::Scope> scope = auth::ScopeOfCategory(category);
  if (!scope) return grpc::Status::OK;
  const auth::AccessDecision decision =
      access.Check(AuthorizationOf(context.client_metadata()), *scope, model);
  if (priority != nullptr && decision.allowed() && decision.key != nullptr &&
      decision.key->priority) {
    *priority = *decision.key->priority;
  }
  return StatusOfDecision(decision, context);
}

grpc::Status CheckStreamOpen(const auth::AccessControl& access, ApiCategory category,
                             grpc::ServerContextBase& context) {
  const std::optional<auth::Scope> scope = auth::ScopeOfCategory(category);
  if (!scope) return grpc::Status::OK;
  return StatusOfDecision(
      access.CheckStreamOpen(AuthorizationOf(context.client_metadata()), *scope), context);
}

grpc::Status CallRefusal(const ServiceContext& service, ApiCategory category,
                         std::optional<std::string_view> model, grpc::ServerContextBase& context,
                         bool stream, uint32_t* priority) {
  if (!service.restrictions.empty()) {
    grpc::Status status = CheckRestriction(service.restrictions, category, context);
    if (!status.ok()) return status;
  }
  if (service.access == nullptr) return grpc::Status::OK;
  if (stream) return CheckStreamOpen(*service.access, category, context);
  return CheckAccess(*service.access, category, model, context, priority);
}

}  // namespace inferd::grpc_frontend
