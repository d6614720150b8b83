#include "core/cloud/cloud_credentials.h"

#include <rapidjson/document.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace inferd {
namespace {

using JsonValue = rapidjson::Value;

std::string Member(const JsonValue& object, const char* name) {
  auto it = object.FindMember(name);
  if (it == object.MemberEnd() || !it->value.IsString()) return "";
  return it->value.GetString();
}

Status Malformed(std::string_view source, const std::string& why) {
  return Status::InvalidArg("cloud credential file '" + std::string(source) + "': " + why);
}

// Calls `parse(prefix, value)` for each entry of the cloud's object `cloud`.
template <typename Parse>
Status ForEachEntry(const JsonValue& root, const char* cloud, std::string_view source,
                    Parse parse) {
  auto it = root.FindMember(cloud);
  if (it == root.MemberEnd()) return Status::Ok();
  if (!it->value.IsObject()) return Malformed(source, std::string("\"") + cloud + "\" is not an object");
  for (const auto& entry : it->value.GetObject()) {
    RETURN_IF_ERROR(parse(std::string(entry.name.GetString()), entry.value));
  }
  return Status::Ok();
}

}  // namespace

EnvReader ProcessEnvironment() {
  return [](const std::string& name) -> std::optional<std::string> {
    const char* value = std::getenv(name.c_str());
    if (value == nullptr) return std::nullopt;
    return std::string(value);
  };
}

StatusOr<CloudCredentials> CloudCredentials::Load(EnvReader env) {
  const std::optional<std::string> path = env("TRITON_CLOUD_CREDENTIAL_PATH");
  if (!path || path->empty()) return CloudCredentials(std::move(env));
  std::ifstream in(*path);
  if (!in) return Malformed(*path, "cannot be read");
  std::stringstream text;
  text << in.rdbuf();
  return FromJson(text.str(), *path, std::move(env));
}

StatusOr<CloudCredentials> CloudCredentials::FromJson(std::string_view json,
                                                      std::string_view source, EnvReader env) {
  rapidjson::Document doc;
  doc.Parse(json.data(), json.size());
  if (doc.HasParseError() || !doc.IsObject()) return Malformed(source, "not a JSON object");
  CloudCredentials out(std::move(env));
  RETURN_IF_ERROR(ForEachEntry(doc, "s3", source, [&](std::string prefix, const JsonValue& v) {
    if (!v.IsObject()) return Malformed(source, "s3 entry '" + prefix + "' is not an object");
    out.s3_[prefix] = S3Credentials{Member(v, "key_id"), Member(v, "secret_key"),
                                    Member(v, "session_token"), Member(v, "region"),
                                    Member(v, "profile"), ""};
    return Status::Ok();
  }));
  RETURN_IF_ERROR(ForEachEntry(doc, "gs", source, [&](std::string prefix, const JsonValue& v) {
    if (!v.IsString()) return Malformed(source, "gs entry '" + prefix + "' is not a path");
    out.gs_[prefix] = GcsCredentials{v.GetString()};
    return Status::Ok();
  }));
  RETURN_IF_ERROR(ForEachEntry(doc, "as", source, [&](std::string prefix, const JsonValue& v) {
    if (!v.IsObject()) return Malformed(source, "as entry '" + prefix + "' is not an object");
    out.as_[prefix] = AzureCredentials{Member(v, "account_str"), Member(v, "account_key")};
    return Status::Ok();
  }));
  return out;
}

std::string CloudCredentials::Env(const std::string& name) const {
  return env_(name).value_or("");
}

S3Credentials CloudCredentials::ForS3(std::string_view url) const {
  S3Credentials out;
  if (const S3Credentials* match = LongestPrefixMatch(s3_, url)) {
    out = *match;
  } else {
    out.key_id = Env("AWS_ACCESS_KEY_ID");
    out.secret_key = Env("AWS_SECRET_ACCESS_KEY");
    out.session_token = Env("AWS_SESSION_TOKEN");
    out.region = Env("AWS_DEFAULT_REGION");
    if (out.region.empty()) out.region = Env("AWS_REGION");
    out.profile = Env("AWS_PROFILE");
  }
  out.endpoint = Env("AWS_ENDPOINT_URL");
  return out;
}

GcsCredentials CloudCredentials::ForGcs(std::string_view url) const {
  if (const GcsCredentials* match = LongestPrefixMatch(gs_, url)) return *match;
  return GcsCredentials{Env("GOOGLE_APPLICATION_CREDENTIALS")};
}

AzureCredentials CloudCredentials::ForAzure(std::string_view url) const {
  if (const AzureCredentials* match = LongestPrefixMatch(as_, url)) return *match;
  return AzureCredentials{Env("AZURE_STORAGE_ACCOUNT"), Env("AZURE_STORAGE_KEY")};
}

}  // namespace inferd
