// Azure Blob Storage through its REST API: List Blobs (flat, with prefix and
// marker), Get Blob with Range and If-Match (the ETag is the version, so a
// replaced blob fails instead of mixing two contents). Requests carry
// x-ms-date and x-ms-version and are signed with Shared Key
// (azure_shared_key.h) when the account has a key, or carry a SAS token in
// their query, or neither (public containers). azure_account.h says which
// account, endpoint and authorization a URL gets.
#include "core/cloud/azure_store.h"

#include <algorithm>
#include <ctime>

#include "core/cloud/azure_account.h"
#include "core/cloud/azure_rest.h"
#include "core/cloud/azure_shared_key.h"
#include "core/cloud/cloud_error.h"
#include "core/cloud/crypto.h"
#include "core/cloud/store_request.h"

namespace inferd {
namespace {

// The REST version requests ask for: 2023-11-03 is served by Azure and by
// Azurite 3.28 and later, and lists blobs as azure_rest.h reads them.
constexpr char kApiVersion[] = "2023-11-03";

std::string HttpDate(std::time_t now) {
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[64];
  std::strftime(text, sizeof(text), "%a, %d %b %Y %H:%M:%S GMT", &utc);
  return text;
}

std::string Unquoted(std::string etag) {
  if (etag.size() >= 2 && etag.front() == '"' && etag.back() == '"') {
    etag = etag.substr(1, etag.size() - 2);
  }
  return etag;
}

class AzureStore final : public ObjectStore {
 public:
  AzureStore(CloudUrl url, AzureAccount account, const HttpClient* http)
      : url_(std::move(url)), account_(std::move(account)), http_(http) {}

  std::string Url() const override { return url_.text; }
  StatusOr<std::vector<ObjectInfo>> List(const std::string& prefix) const override;
  Status Download(const ObjectInfo& object, const std::filesystem::path& dest,
                  std::optional<ByteRange> range) const override;

 private:
  // The request's URL: endpoint/container[/blob]?query, the SAS token appended.
  std::string UrlOf(const std::string& blob, const AzureQuery& query) const;
  StatusOr<HttpResponse> Send(HttpRequest request, const std::string& object) const {
    return SendForStore(*http_, std::move(request),
                        [this](HttpRequest* r) { return Sign(r); }, url_.text, object);
  }
  Status Sign(HttpRequest* request) const;
  Status Failure(const HttpResponse& response, const std::string& object) const {
    CloudError error{url_.text, object, response.Header("x-ms-error-code"), response.status,
                     response.error};
    ReadAzureErrorBody(response.body, &error.code, &error.message);
    return error.ToStatus();
  }

  const CloudUrl url_;
  const AzureAccount account_;
  const HttpClient* const http_;
};

std::string AzureStore::UrlOf(const std::string& blob, const AzureQuery& query) const {
  std::string url = account_.endpoint + "/" + UriEncode(url_.bucket, true);
  if (!blob.empty()) url += "/" + UriEncode(blob, false);
  std::string text = EncodeAzureQuery(query);
  if (!account_.sas.empty()) text += (text.empty() ? "" : "&") + account_.sas;
  return text.empty() ? url : url + "?" + text;
}

Status AzureStore::Sign(HttpRequest* request) const {
  request->headers.emplace_back("x-ms-date", HttpDate(std::time(nullptr)));
  request->headers.emplace_back("x-ms-version", kApiVersion);
  // A SAS token authorizes by itself; Shared Key only when there is none.
  if (account_.key.empty() || !account_.sas.empty()) return Status::Ok();
  ASSIGN_OR_RETURN(AzureRequestParts parts, AzureRequestPartsOf(*request));
  ASSIGN_OR_RETURN(const std::string authorization,
                   AzureSharedKeyAuthorization(account_.name, account_.key, parts));
  request->headers.emplace_back("Authorization", authorization);
  return Status::Ok();
}

StatusOr<std::vector<ObjectInfo>> AzureStore::List(const std::string& prefix) const {
  const std::string root = url_.RootPrefix();
  std::vector<ObjectInfo> out;
  std::string marker;
  do {
    AzureQuery query = {{"restype", "container"}, {"comp", "list"}, {"prefix", root + prefix}};
    if (!marker.empty()) query.emplace_back("marker", marker);
    HttpRequest request;
    request.url = UrlOf("", query);
    ASSIGN_OR_RETURN(const HttpResponse response, Send(std::move(request), ""));
    if (!response.ok()) return Failure(response, "");
    auto page = ParseAzureBlobList(response.body);
    if (!page.ok()) return CloudError{url_.text, "", "", 200, page.status().message()}.ToStatus();
    for (AzureBlob& blob : page->blobs) {
      // Folder markers ("dir/", or hierarchical namespaces' empty directory blobs).
      if (blob.name.size() <= root.size() || blob.name.back() == '/') continue;
      // Blob storage states MD5 only (its CRC64 is another polynomial, and per request).
      out.push_back({blob.name.substr(root.size()), blob.size, Unquoted(blob.etag),
                     ChecksumFromBase64(ChecksumKind::kMd5, blob.content_md5)});
    }
    marker = page->next_marker;
  } while (!marker.empty());
  std::sort(out.begin(), out.end(),
            [](const ObjectInfo& a, const ObjectInfo& b) { return a.key < b.key; });
  return out;
}

Status AzureStore::Download(const ObjectInfo& object, const std::filesystem::path& dest,
                            std::optional<ByteRange> range) const {
  HttpRequest request =
      DownloadRequest(UrlOf(url_.RootPrefix() + object.key, {}), object, dest, range);
  if (!object.version.empty()) {
    request.headers.emplace_back("If-Match", "\"" + object.version + "\"");
  }
  ASSIGN_OR_RETURN(const HttpResponse response, Send(std::move(request), object.key));
  if (!response.ok()) return Failure(response, object.key);
  return CheckDownloaded(url_.text, object, object.checksum, range, response);
}

// The container and blob path of an as:// URL, and the SAS token that may
// end it (Triton's as:// form allows "?<query>"; cloud_url.h keeps it in the
// last segment).
struct AzureTarget {
  CloudUrl url;
  std::string sas;
};
AzureTarget SplitSas(CloudUrl url) {
  AzureTarget out;
  std::string* last = url.prefix.empty() ? &url.bucket : &url.prefix;
  const size_t question = last->find('?');
  if (question != std::string::npos) {
    out.sas = last->substr(question + 1);
    last->resize(question);
    while (!last->empty() && last->back() == '/') last->pop_back();
    url.text = url.text.substr(0, url.text.find('?'));
  }
  out.url = std::move(url);
  return out;
}

}  // namespace

StatusOr<std::unique_ptr<ObjectStore>> OpenAzureStore(const CloudUrl& url,
                                                      const StoreContext& context) {
  AzureTarget target = SplitSas(url);
  const AzureCredentials credentials = context.credentials->ForAzure(target.url.text);
  auto account = ResolveAzureAccount(
      {target.url.account, target.sas, credentials.account_str, credentials.account_key,
       context.credentials->env()("AZURE_STORAGE_CONNECTION_STRING").value_or("")});
  if (!account.ok()) return account.status().WithPrefix(target.url.text + ": ");
  return std::unique_ptr<ObjectStore>(std::make_unique<AzureStore>(
      std::move(target.url), std::move(account).value(), context.http));
}

}  // namespace inferd
