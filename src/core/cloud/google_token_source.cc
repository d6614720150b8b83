#include "core/cloud/google_token_source.h"

#include <rapidjson/document.h>

#include <chrono>

#include "core/cloud/cloud_error.h"
#include "core/common/logging.h"

namespace inferd {
namespace {

// The endpoint's refusal: RFC 6749 section 5.2's {"error", "error_description"}.
CloudError TokenError(const std::string& uri, const HttpResponse& response) {
  CloudError error{"OAuth2 token endpoint " + uri, "", "", response.status, response.error};
  rapidjson::Document doc;
  doc.Parse(response.body.data(), response.body.size());
  if (!doc.HasParseError() && doc.IsObject()) {
    const auto code = doc.FindMember("error");
    const auto words = doc.FindMember("error_description");
    if (code != doc.MemberEnd() && code->value.IsString()) error.code = code->value.GetString();
    if (words != doc.MemberEnd() && words->value.IsString()) {
      error.message = words->value.GetString();
    }
  } else if (error.message.empty()) {
    error.message = response.body.substr(0, 200);
  }
  return error;
}

}  // namespace

UnixSecondsClock SystemUnixSeconds() {
  return [] {
    return std::chrono::duration_cast<std::chrono::seconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  };
}

GoogleTokenSource::GoogleTokenSource(GoogleCredentialsFile credentials, const HttpClient* http,
                                     UnixSecondsClock now)
    : credentials_(std::move(credentials)), http_(http), now_(std::move(now)) {}

StatusOr<std::string> GoogleTokenSource::Token() {
  MutexLock lock(&mu_);
  const int64_t now_s = now_();
  if (token_ && token_->expires_at_s - kRefreshMarginS > now_s) return token_->token;
  auto fresh = Exchange(now_s);
  if (!fresh.ok()) return fresh.status();
  ++exchanges_;
  token_ = std::move(fresh).value();
  return token_->token;
}

void GoogleTokenSource::Reject(const std::string& token) {
  MutexLock lock(&mu_);
  if (token_ && token_->token == token) token_.reset();
}

int GoogleTokenSource::exchanges() const {
  MutexLock lock(&mu_);
  return exchanges_;
}

StatusOr<AccessToken> GoogleTokenSource::Exchange(int64_t now_s) const {
  ASSIGN_OR_RETURN(const TokenRequest token_request, MakeTokenRequest(credentials_, now_s));
  HttpRequest request;
  request.url = token_request.uri;
  if (token_request.metadata_server) {
    request.headers = {{"Metadata-Flavor", "Google"}};
  } else {
    request.method = "POST";
    request.body = token_request.body;
    request.headers = {{"Content-Type", "application/x-www-form-urlencoded"}};
  }
  ASSIGN_OR_RETURN(const HttpResponse response, http_->Send(std::move(request), nullptr));
  if (!response.ok()) return TokenError(token_request.uri, response).ToStatus();
  auto token = ParseTokenResponse(response.body, now_s);
  if (!token.ok()) {
    return token.status().WithPrefix("OAuth2 token endpoint " + token_request.uri + ": ");
  }
  LOG_VERBOSE(1, "OAuth2 access token from {}, valid for {} s", token_request.uri,
              token->expires_at_s - now_s);
  return token;
}

}  // namespace inferd
