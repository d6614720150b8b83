#include "http/access_check.h"

#include <string>

#include "http/endpoint_category.h"

namespace inferd::http {

auth::AccessDecision CheckAccess(const auth::AccessControl& access, const Route& route,
                                 const RequestHeaders& headers) {
  const std::optional<auth::Scope> scope = auth::ScopeOfCategory(EndpointCategory(route.endpoint));
  if (!scope) return auth::AccessDecision();
  const std::string_view authorization = headers.Get("authorization");
  switch (route.endpoint) {
    case Endpoint::kModelInfer:
    case Endpoint::kModelGenerate:
    case Endpoint::kModelGenerateStream:
      return access.Check(authorization, *scope, route.model);
    case Endpoint::kOpenAiCompletions:
    case Endpoint::kOpenAiChatCompletions:
    case Endpoint::kOpenAiEmbeddings:
      return access.Check(authorization, *scope, std::nullopt, /*count_allowed=*/false);
    default:
      return access.Check(authorization, *scope);
  }
}

HttpError AccessError(const auth::AccessDecision& decision) {
  switch (decision.verdict) {
    case auth::Verdict::kAllowed:
      return Status::Ok();
    case auth::Verdict::kUnauthenticated:
      return HttpError(401, Status::InvalidArg(decision.message), "WWW-Authenticate: Bearer\r\n");
    case auth::Verdict::kForbidden:
      return HttpError(403, Status::InvalidArg(decision.message));
    case auth::Verdict::kRateLimited:
      // The advice in the status, as admission control's: WriteError writes
      // it as Retry-After (and the OpenAI routes as retry-after-ms too).
      return Status::ResourceExhausted(
          decision.message, static_cast<uint64_t>(decision.retry_after.count()) * 1000);
  }
  return Status::Internal("unknown access verdict");
}

}  // namespace inferd::http
