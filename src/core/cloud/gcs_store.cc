// Google Cloud Storage through its JSON API: objects.list with prefix and
// pageToken, media downloads (alt=media) with Range, the object's generation
// as its version (a download asks ifGenerationMatch, so a replaced object
// fails instead of mixing two contents). Requests carry an OAuth2 bearer
// token (google_token_source.h) when credentials are given, none otherwise
// (public buckets, emulators). The endpoint is https://storage.googleapis.com,
// or an emulator's from CLOUD_STORAGE_EMULATOR_ENDPOINT (google-cloud-cpp's
// variable, which Triton's GCS client reads) or STORAGE_EMULATOR_HOST (the
// Go, Python and Java clients').
#include "core/cloud/gcs_store.h"

#include <rapidjson/document.h>

#include <algorithm>

#include "core/cloud/cloud_error.h"
#include "core/cloud/crypto.h"
#include "core/cloud/store_request.h"
#include "core/cloud/google_token_source.h"

namespace inferd {
namespace {

constexpr char kGoogleStorageRoot[] = "https://storage.googleapis.com";

// The emulator's root ("host:port" alone means plain HTTP), or Google's.
std::string ApiRoot(const EnvReader& env) {
  for (const char* name : {"CLOUD_STORAGE_EMULATOR_ENDPOINT", "STORAGE_EMULATOR_HOST"}) {
    std::string value = env(name).value_or("");
    while (!value.empty() && value.back() == '/') value.pop_back();
    if (value.empty()) continue;
    return value.find("://") == std::string::npos ? "http://" + value : value;
  }
  return kGoogleStorageRoot;
}

// A string member, or "" when absent or not a string.
std::string Text(const rapidjson::Value& object, const char* name) {
  const auto it = object.FindMember(name);
  return it != object.MemberEnd() && it->value.IsString() ? it->value.GetString() : "";
}

// GCS's error document: {"error": {"code", "message", "errors": [{"reason"}], "status"}}.
void ReadErrorBody(const std::string& body, CloudError* error) {
  rapidjson::Document doc;
  doc.Parse(body.data(), body.size());
  if (doc.HasParseError() || !doc.IsObject() || !doc.HasMember("error") ||
      !doc["error"].IsObject()) {
    if (!body.empty() && error->message.empty()) error->message = body.substr(0, 200);
    return;
  }
  const rapidjson::Value& detail = doc["error"];
  error->message = Text(detail, "message");
  error->code = Text(detail, "status");
  const auto errors = detail.FindMember("errors");
  if (errors != detail.MemberEnd() && errors->value.IsArray() && !errors->value.Empty() &&
      errors->value[0].IsObject()) {
    const std::string reason = Text(errors->value[0], "reason");
    if (!reason.empty()) error->code = reason;
  }
}

class GcsStore final : public ObjectStore {
 public:
  GcsStore(CloudUrl url, std::string api_root, const HttpClient* http,
           std::shared_ptr<GoogleTokenSource> tokens)
      : url_(std::move(url)), api_root_(std::move(api_root)), http_(http),
        tokens_(std::move(tokens)) {}

  std::string Url() const override { return url_.text; }
  StatusOr<std::vector<ObjectInfo>> List(const std::string& prefix) const override;
  Status Download(const ObjectInfo& object, const std::filesystem::path& dest,
                  std::optional<ByteRange> range) const override;

 private:
  std::string BucketUrl() const {
    return api_root_ + "/storage/v1/b/" + UriEncode(url_.bucket, true) + "/o";
  }
  // Adds the bearer token, and says which it was in `*used`.
  Status Sign(HttpRequest* request, std::string* used) const;
  // One request; refused with 401 for its token, once more with a new token.
  StatusOr<HttpResponse> Send(HttpRequest request, const std::string& object) const {
    std::string used;
    const RequestSigner sign = [this, &used](HttpRequest* r) { return Sign(r, &used); };
    ASSIGN_OR_RETURN(HttpResponse response, SendForStore(*http_, request, sign, url_.text, object));
    if (response.status != 401 || !tokens_) return response;
    tokens_->Reject(used);
    return SendForStore(*http_, std::move(request), sign, url_.text, object);
  }
  Status Failure(const HttpResponse& response, const std::string& object) const {
    CloudError error{url_.text, object, "", response.status, response.error};
    ReadErrorBody(response.body, &error);
    return error.ToStatus();
  }
  // One page of the listing into `out`; the next page's token ("" at the end).
  StatusOr<std::string> ListPage(const std::string& prefix, const std::string& page_token,
                                 std::vector<ObjectInfo>* out) const;

  const CloudUrl url_;
  const std::string api_root_;
  const HttpClient* const http_;
  const std::shared_ptr<GoogleTokenSource> tokens_;  // null: anonymous
};

Status GcsStore::Sign(HttpRequest* request, std::string* used) const {
  if (!tokens_) return Status::Ok();
  ASSIGN_OR_RETURN(*used, tokens_->Token());
  request->headers.emplace_back("Authorization", "Bearer " + *used);
  return Status::Ok();
}

StatusOr<std::string> GcsStore::ListPage(const std::string& prefix,
                                         const std::string& page_token,
                                         std::vector<ObjectInfo>* out) const {
  const std::string root = url_.RootPrefix();
  HttpRequest request;
  request.url = BucketUrl() + "?prefix=" + UriEncode(root + prefix, true) +
                "&fields=" + UriEncode("items(name,size,generation,md5Hash,crc32c),nextPageToken", true);
  if (!page_token.empty()) request.url += "&pageToken=" + UriEncode(page_token, true);
  ASSIGN_OR_RETURN(const HttpResponse response, Send(std::move(request), ""));
  if (!response.ok()) return Failure(response, "");
  rapidjson::Document doc;
  doc.Parse(response.body.data(), response.body.size());
  if (doc.HasParseError() || !doc.IsObject()) {
    return CloudError{url_.text, "", "", response.status, "the listing is not a JSON object"}
        .ToStatus();
  }
  const auto items = doc.FindMember("items");
  if (items != doc.MemberEnd() && items->value.IsArray()) {
    for (const auto& item : items->value.GetArray()) {
      if (!item.IsObject()) continue;
      const std::string name = Text(item, "name");
      // Folder markers ("dir/", size 0) are not files.
      if (name.size() <= root.size() || name.back() == '/') continue;
      // CRC32C costs a fraction of MD5's CPU; composite objects have only it.
      ContentChecksum checksum = ChecksumFromBase64(ChecksumKind::kCrc32c, Text(item, "crc32c"));
      if (checksum.empty()) checksum = ChecksumFromBase64(ChecksumKind::kMd5, Text(item, "md5Hash"));
      out->push_back({name.substr(root.size()),
                      std::strtoull(Text(item, "size").c_str(), nullptr, 10),
                      Text(item, "generation"), std::move(checksum)});
    }
  }
  return Text(doc, "nextPageToken");
}

StatusOr<std::vector<ObjectInfo>> GcsStore::List(const std::string& prefix) const {
  std::vector<ObjectInfo> out;
  std::string page_token;
  do {
    ASSIGN_OR_RETURN(page_token, ListPage(prefix, page_token, &out));
  } while (!page_token.empty());
  std::sort(out.begin(), out.end(),
            [](const ObjectInfo& a, const ObjectInfo& b) { return a.key < b.key; });
  return out;
}

Status GcsStore::Download(const ObjectInfo& object, const std::filesystem::path& dest,
                          std::optional<ByteRange> range) const {
  std::string url = BucketUrl() + "/" + UriEncode(url_.RootPrefix() + object.key, true) +
                    "?alt=media";
  if (!object.version.empty()) url += "&ifGenerationMatch=" + object.version;
  ASSIGN_OR_RETURN(const HttpResponse response,
                   Send(DownloadRequest(std::move(url), object, dest, range), object.key));
  if (!response.ok()) return Failure(response, object.key);
  // An emulator may not honour ifGenerationMatch; the answer still says which generation it is.
  const std::string generation = response.Header("x-goog-generation");
  if (!object.version.empty() && !generation.empty() && generation != object.version) {
    return CloudError{url_.text, object.key, "conditionNotMet", response.status,
                      "the object changed while it was downloaded (generation " + generation +
                          ", listed as " + object.version + ")"}
        .ToStatus();
  }
  return CheckDownloaded(url_.text, object, object.checksum, range, response);
}

}  // namespace

StatusOr<std::unique_ptr<ObjectStore>> OpenGcsStore(const CloudUrl& url,
                                                    const StoreContext& context) {
  std::shared_ptr<GoogleTokenSource> tokens;
  const std::string path = context.credentials->ForGcs(url.text).path;
  const std::string metadata_host = context.credentials->env()("GCE_METADATA_HOST").value_or("");
  if (!path.empty()) {
    auto file = ReadGoogleCredentialsFile(path);
    if (!file.ok()) return file.status().WithPrefix(url.text + ": ");
    tokens = std::make_shared<GoogleTokenSource>(std::move(file).value(), context.http);
  } else if (!metadata_host.empty()) {
    // No file: the instance's service account, from the metadata server.
    tokens = std::make_shared<GoogleTokenSource>(GoogleComputeMetadata{metadata_host},
                                                 context.http);
  }
  return std::unique_ptr<ObjectStore>(std::make_unique<GcsStore>(
      url, ApiRoot(context.credentials->env()), context.http, std::move(tokens)));
}

}  // namespace inferd
