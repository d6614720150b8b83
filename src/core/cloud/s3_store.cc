#include "core/cloud/s3_store.h"

#include <algorithm>
#include <cstdlib>

#include "core/cloud/aws_profile.h"
#include "core/cloud/cloud_error.h"
#include "core/cloud/crypto.h"
#include "core/cloud/s3_checksum.h"
#include "core/cloud/sigv4.h"
#include "core/cloud/store_request.h"
#include "core/cloud/xml_scan.h"

namespace inferd {
namespace {

using Query = std::vector<std::pair<std::string, std::string>>;

// A bucket name usable as a DNS label under s3.<region>.amazonaws.com.
bool VirtualHostable(const std::string& bucket) {
  if (bucket.size() < 3 || bucket.size() > 63) return false;
  return std::all_of(bucket.begin(), bucket.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
  });
}

std::string StripScheme(const std::string& endpoint) {
  const size_t at = endpoint.find("://");
  return at == std::string::npos ? endpoint : endpoint.substr(at + 3);
}

// S3 quotes its ETags; a single-part upload's ETag (not KMS-encrypted) is
// the content's MD5, a multipart one has a "-<parts>" suffix.
std::string Unquote(std::string etag) {
  if (etag.size() >= 2 && etag.front() == '"' && etag.back() == '"') {
    etag = etag.substr(1, etag.size() - 2);
  }
  return etag;
}

// A single-part ETag: the content's MD5 in hex, as a checksum (else none).
ContentChecksum Md5OfEtag(const std::string& etag) {
  const bool hex = etag.size() == 32 && std::all_of(etag.begin(), etag.end(), [](char c) {
                     return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
                   });
  if (!hex) return {};
  std::string digest;
  for (size_t i = 0; i < etag.size(); i += 2) {
    digest += static_cast<char>(std::stoi(etag.substr(i, 2), nullptr, 16));
  }
  return {ChecksumKind::kMd5, std::move(digest)};
}

class S3Store final : public ObjectStore {
 public:
  S3Store(CloudUrl url, S3Credentials credentials, const HttpClient* http,
          std::function<std::time_t()> now)
      : url_(std::move(url)), credentials_(std::move(credentials)), http_(http),
        now_(std::move(now)) {
    if (credentials_.region.empty()) credentials_.region = "us-east-1";
    ResolveEndpoint();
  }

  std::string Url() const override { return url_.text; }
  StatusOr<std::vector<ObjectInfo>> List(const std::string& prefix) const override;
  Status Download(const ObjectInfo& object, const std::filesystem::path& dest,
                  std::optional<ByteRange> range) const override;
  StatusOr<ContentChecksum> WholeChecksum(const ObjectInfo& object) const override;

 private:
  // A GET or HEAD of `object` (If-Match its listed version); a refusal as Error.
  StatusOr<HttpResponse> SendForObject(HttpRequest request, const ObjectInfo& object) const;
  // Sends `request` for `path` (encoded, from the host's root) + `query`.
  StatusOr<HttpResponse> Send(HttpRequest request, const std::string& path,
                              const Query& query) const;
  void ResolveEndpoint();
  RequestSigner Signer(std::string path, Query query) const;
  Status Error(const HttpResponse& response, const std::string& object) const;
  Status ListPage(const std::string& prefix, std::string* token,
                  std::vector<ObjectInfo>* out) const;

  const CloudUrl url_;
  S3Credentials credentials_;
  const HttpClient* const http_;
  const std::function<std::time_t()> now_;
  std::string base_;         // scheme://host[:port]
  std::string host_;         // host[:port], the Host header signed
  std::string bucket_path_;  // "/bucket" path-style, "" virtual-host style
};

void S3Store::ResolveEndpoint() {
  const std::string& endpoint = !url_.endpoint.empty() ? url_.endpoint : credentials_.endpoint;
  if (endpoint.empty() && VirtualHostable(url_.bucket)) {
    base_ = "https://" + url_.bucket + ".s3." + credentials_.region + ".amazonaws.com";
  } else if (endpoint.empty()) {
    base_ = "https://s3." + credentials_.region + ".amazonaws.com";
    bucket_path_ = "/" + UriEncode(url_.bucket, true);
  } else {
    // "scheme://host[:port][/path]" (AWS_ENDPOINT_URL may carry a path).
    const size_t scheme_end = endpoint.find("://");
    const size_t host_start = scheme_end == std::string::npos ? 0 : scheme_end + 3;
    const size_t path_start = std::min(endpoint.find('/', host_start), endpoint.size());
    std::string endpoint_path = endpoint.substr(path_start);
    while (!endpoint_path.empty() && endpoint_path.back() == '/') endpoint_path.pop_back();
    base_ = (scheme_end == std::string::npos ? "https://" : "") + endpoint.substr(0, path_start);
    bucket_path_ = endpoint_path + "/" + UriEncode(url_.bucket, true);
  }
  host_ = StripScheme(base_);
}

RequestSigner S3Store::Signer(std::string path, Query query) const {
  if (credentials_.key_id.empty()) return nullptr;  // anonymous: a public bucket
  return [this, path = std::move(path), query = std::move(query)](HttpRequest* request) {
    const std::string date = AmzDate(now_());
    request->headers.emplace_back("Host", host_);
    request->headers.emplace_back("x-amz-date", date);
    request->headers.emplace_back("x-amz-content-sha256", kEmptyPayloadSha256);
    if (!credentials_.session_token.empty()) {
      request->headers.emplace_back("x-amz-security-token", credentials_.session_token);
    }
    const SigV4Request to_sign{request->method, path, query, request->headers,
                               kEmptyPayloadSha256};
    const SigV4Scope scope{credentials_.key_id, credentials_.secret_key, credentials_.region,
                           "s3"};
    request->headers.emplace_back("Authorization", SigV4Authorization(to_sign, scope, date));
    return Status::Ok();
  };
}

StatusOr<HttpResponse> S3Store::Send(HttpRequest request, const std::string& path,
                                     const Query& query) const {
  const std::string canonical_path = path.empty() ? "/" : path;
  request.url = base_ + canonical_path;
  const std::string query_text = CanonicalQuery(query);
  if (!query_text.empty()) request.url += "?" + query_text;
  return http_->Send(std::move(request), Signer(canonical_path, query));
}

Status S3Store::Error(const HttpResponse& response, const std::string& object) const {
  CloudError error{url_.text, object, XmlText(response.body, "Code"), response.status,
                   XmlText(response.body, "Message")};
  if (response.status == 0) error.message = response.error;
  if (error.code.empty() && response.status == 404) error.code = object.empty() ? "NoSuchBucket" : "NoSuchKey";
  if (response.attempts > 1) error.message += " (after " + std::to_string(response.attempts) + " attempts)";
  return error.ToStatus();
}

Status S3Store::ListPage(const std::string& prefix, std::string* token,
                         std::vector<ObjectInfo>* out) const {
  Query query{{"list-type", "2"}, {"prefix", url_.RootPrefix() + prefix}};
  if (!token->empty()) query.emplace_back("continuation-token", *token);
  ASSIGN_OR_RETURN(HttpResponse response, Send(HttpRequest{}, bucket_path_, query));
  if (!response.ok()) return Error(response, "");
  const size_t root = url_.RootPrefix().size();
  for (std::string_view entry : XmlElements(response.body, "Contents")) {
    ObjectInfo info;
    info.key = XmlText(entry, "Key");
    if (info.key.size() <= root || info.key.back() == '/') continue;  // the root or a "folder"
    info.key = info.key.substr(root);
    info.size = std::strtoull(XmlText(entry, "Size").c_str(), nullptr, 10);
    info.version = Unquote(XmlText(entry, "ETag"));
    info.checksum = Md5OfEtag(info.version);
    out->push_back(std::move(info));
  }
  *token = XmlText(response.body, "IsTruncated") == "true"
               ? XmlText(response.body, "NextContinuationToken")
               : "";
  return Status::Ok();
}

StatusOr<std::vector<ObjectInfo>> S3Store::List(const std::string& prefix) const {
  std::vector<ObjectInfo> out;
  std::string token;
  do {
    RETURN_IF_ERROR(ListPage(prefix, &token, &out));
  } while (!token.empty());
  std::sort(out.begin(), out.end(),
            [](const ObjectInfo& a, const ObjectInfo& b) { return a.key < b.key; });
  return out;
}

StatusOr<HttpResponse> S3Store::SendForObject(HttpRequest request,
                                              const ObjectInfo& object) const {
  if (!object.version.empty()) request.headers.emplace_back("If-Match", "\"" + object.version + "\"");
  const std::string key = url_.RootPrefix() + object.key;
  // The URL is set by Send, which signs the path.
  ASSIGN_OR_RETURN(HttpResponse response,
                   Send(std::move(request), bucket_path_ + "/" + UriEncode(key, false), {}));
  if (!response.ok()) return Error(response, object.key);
  return response;
}

Status S3Store::Download(const ObjectInfo& object, const std::filesystem::path& dest,
                         std::optional<ByteRange> range) const {
  HttpRequest request = DownloadRequest("", object, dest, range, [&object](const HttpResponse& r) {
    return S3ExpectedChecksum(r, object).kind;
  });
  // A range's answer states no checksum: the whole is checked once it is in.
  if (!range) request.headers.emplace_back("x-amz-checksum-mode", "ENABLED");
  ASSIGN_OR_RETURN(const HttpResponse response, SendForObject(std::move(request), object));
  return CheckDownloaded(url_.text, object, S3ExpectedChecksum(response, object), range,
                         response);
}

StatusOr<ContentChecksum> S3Store::WholeChecksum(const ObjectInfo& object) const {
  HttpRequest request;
  request.method = "HEAD";
  request.headers.emplace_back("x-amz-checksum-mode", "ENABLED");
  ASSIGN_OR_RETURN(const HttpResponse response, SendForObject(std::move(request), object));
  return S3ExpectedChecksum(response, object);
}

}  // namespace

std::unique_ptr<ObjectStore> MakeS3Store(const CloudUrl& url, S3Credentials credentials,
                                         const HttpClient* http,
                                         std::function<std::time_t()> now) {
  return std::make_unique<S3Store>(url, std::move(credentials), http, std::move(now));
}

StatusOr<std::unique_ptr<ObjectStore>> OpenS3Store(const CloudUrl& url,
                                                    const StoreContext& context) {
  S3Credentials credentials = context.credentials->ForS3(url.text);
  RETURN_IF_ERROR(FillFromSharedCredentials(context.credentials->env(), &credentials));
  return MakeS3Store(url, std::move(credentials), context.http,
                     [] { return std::time(nullptr); });
}

}  // namespace inferd
