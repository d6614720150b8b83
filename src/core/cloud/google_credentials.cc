#include "core/cloud/google_credentials.h"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <fstream>
#include <sstream>

#include "core/cloud/crypto.h"
#include "core/cloud/jwt_signer.h"

namespace inferd {
namespace {

// The JWT's lifetime: Google accepts at most an hour.
constexpr int64_t kAssertionLifetimeS = 3600;

// `doc[field]` as a string: "" when absent, an error when of another type or
// absent but `required`.
StatusOr<std::string> StringField(const rapidjson::Document& doc, const char* field,
                                  const std::string& origin, bool required) {
  const auto it = doc.FindMember(field);
  if (it == doc.MemberEnd()) {
    if (!required) return std::string();
    return Status::InvalidArg(origin + ": the field \"" + field + "\" is missing");
  }
  if (!it->value.IsString()) {
    return Status::InvalidArg(origin + ": the field \"" + field + "\" is not a string");
  }
  return std::string(it->value.GetString(), it->value.GetStringLength());
}

StatusOr<GoogleCredentialsFile> ParseServiceAccount(const rapidjson::Document& doc,
                                             const std::string& origin) {
  GoogleServiceAccount account;
  ASSIGN_OR_RETURN(account.client_email, StringField(doc, "client_email", origin, true));
  ASSIGN_OR_RETURN(account.private_key, StringField(doc, "private_key", origin, true));
  ASSIGN_OR_RETURN(account.private_key_id, StringField(doc, "private_key_id", origin, false));
  ASSIGN_OR_RETURN(account.token_uri, StringField(doc, "token_uri", origin, false));
  if (account.token_uri.empty()) account.token_uri = kGoogleTokenUri;
  return GoogleCredentialsFile(std::move(account));
}

StatusOr<GoogleCredentialsFile> ParseAuthorizedUser(const rapidjson::Document& doc,
                                             const std::string& origin) {
  GoogleAuthorizedUser user;
  ASSIGN_OR_RETURN(user.client_id, StringField(doc, "client_id", origin, true));
  ASSIGN_OR_RETURN(user.client_secret, StringField(doc, "client_secret", origin, true));
  ASSIGN_OR_RETURN(user.refresh_token, StringField(doc, "refresh_token", origin, true));
  ASSIGN_OR_RETURN(user.token_uri, StringField(doc, "token_uri", origin, false));
  if (user.token_uri.empty()) user.token_uri = kGoogleTokenUri;
  return GoogleCredentialsFile(std::move(user));
}

// A form field's value, percent-encoded ('/' included).
std::string FormValue(std::string_view text) { return UriEncode(text, /*encode_slash=*/true); }

}  // namespace

StatusOr<GoogleCredentialsFile> ParseGoogleCredentials(std::string_view json,
                                                       const std::string& origin) {
  rapidjson::Document doc;
  doc.Parse(json.data(), json.size());
  if (doc.HasParseError() || !doc.IsObject()) {
    return Status::InvalidArg(origin + ": not a JSON object (a Google credentials file)");
  }
  ASSIGN_OR_RETURN(const std::string type, StringField(doc, "type", origin, true));
  if (type == "service_account") return ParseServiceAccount(doc, origin);
  if (type == "authorized_user") return ParseAuthorizedUser(doc, origin);
  return Status::Unsupported(origin + ": credentials of type \"" + type +
                             "\" are not supported (service_account and authorized_user are)");
}

StatusOr<GoogleCredentialsFile> ReadGoogleCredentialsFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return Status::NotFound("Google credentials file " + path.string() + " cannot be read");
  }
  std::ostringstream text;
  text << in.rdbuf();
  return ParseGoogleCredentials(text.str(), path.string());
}

std::string ServiceAccountClaims(const GoogleServiceAccount& account, std::string_view scope,
                                 int64_t now_s) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  writer.StartObject();
  writer.Key("iss");
  writer.String(account.client_email.data(), account.client_email.size());
  writer.Key("scope");
  writer.String(scope.data(), scope.size());
  writer.Key("aud");
  writer.String(account.token_uri.data(), account.token_uri.size());
  writer.Key("iat");
  writer.Int64(now_s);
  writer.Key("exp");
  writer.Int64(now_s + kAssertionLifetimeS);
  writer.EndObject();
  return buffer.GetString();
}

StatusOr<std::string> ServiceAccountAssertion(const GoogleServiceAccount& account,
                                              std::string_view scope, int64_t now_s) {
  rapidjson::StringBuffer header;
  rapidjson::Writer<rapidjson::StringBuffer> writer(header);
  writer.StartObject();
  writer.Key("alg");
  writer.String("RS256");
  writer.Key("typ");
  writer.String("JWT");
  if (!account.private_key_id.empty()) {
    writer.Key("kid");
    writer.String(account.private_key_id.data(), account.private_key_id.size());
  }
  writer.EndObject();
  auto jwt = SignJwt(header.GetString(), ServiceAccountClaims(account, scope, now_s),
                     account.private_key);
  if (!jwt.ok()) return jwt.status().WithPrefix("service account " + account.client_email + ": ");
  return jwt;
}

StatusOr<TokenRequest> MakeTokenRequest(const GoogleCredentialsFile& credentials, int64_t now_s) {
  if (const auto* account = std::get_if<GoogleServiceAccount>(&credentials)) {
    ASSIGN_OR_RETURN(const std::string assertion,
                     ServiceAccountAssertion(*account, kGcsReadOnlyScope, now_s));
    return TokenRequest{account->token_uri,
                        "grant_type=" + FormValue("urn:ietf:params:oauth:grant-type:jwt-bearer") +
                            "&assertion=" + FormValue(assertion)};
  }
  if (const auto* metadata = std::get_if<GoogleComputeMetadata>(&credentials)) {
    return TokenRequest{"http://" + metadata->host +
                            "/computeMetadata/v1/instance/service-accounts/default/token",
                        "", true};
  }
  const auto& user = std::get<GoogleAuthorizedUser>(credentials);
  return TokenRequest{user.token_uri, "grant_type=refresh_token&client_id=" +
                                          FormValue(user.client_id) +
                                          "&client_secret=" + FormValue(user.client_secret) +
                                          "&refresh_token=" + FormValue(user.refresh_token)};
}

StatusOr<AccessToken> ParseTokenResponse(std::string_view body, int64_t now_s) {
  rapidjson::Document doc;
  doc.Parse(body.data(), body.size());
  if (doc.HasParseError() || !doc.IsObject()) {
    return Status::Unavailable("the OAuth2 token endpoint's answer is not a JSON object");
  }
  const auto token = doc.FindMember("access_token");
  const auto expires = doc.FindMember("expires_in");
  if (token == doc.MemberEnd() || !token->value.IsString() || token->value.GetStringLength() == 0) {
    return Status::Unavailable("the OAuth2 token endpoint's answer has no \"access_token\"");
  }
  // Without "expires_in" the token is taken to last the usual hour.
  const int64_t lifetime_s =
      expires != doc.MemberEnd() && expires->value.IsInt64() ? expires->value.GetInt64() : 3600;
  return AccessToken{token->value.GetString(), now_s + lifetime_s};
}

}  // namespace inferd
