// What the stores' requests have in common, whatever the cloud: a download
// aimed at a local file (the whole object, or a byte range written at its
// offset, with the byte count that proves it whole), and sending through
// the HttpClient with a failure to sign put in the store's words
// ("<url>: object '<key>': ..."). Header-only.
#ifndef INFERD_CORE_CLOUD_STORE_REQUEST_H_
#define INFERD_CORE_CLOUD_STORE_REQUEST_H_

#include <filesystem>
#include <optional>
#include <string>

#include "core/cloud/http_client.h"
#include "core/cloud/object_store.h"

namespace inferd {

// A GET of `url` whose success is written to `dest` as ObjectStore::Download
// says; a whole object with a stated MD5 is hashed as its bytes arrive.
inline HttpRequest DownloadRequest(std::string url, const ObjectInfo& object,
                                   const std::filesystem::path& dest,
                                   std::optional<ByteRange> range) {
  HttpRequest request;
  request.url = std::move(url);
  if (range) {
    request.headers.emplace_back(
        "Range", "bytes=" + std::to_string(range->first) + "-" + std::to_string(range->last));
  }
  request.body_file = BodyFile{dest.string(), range ? range->first : 0, !range.has_value(),
                               !range && !object.md5_hex.empty()};
  request.expected_body_bytes = range ? range->last - range->first + 1 : object.size;
  return request;
}

// A successful download of a whole object against the MD5 its listing stated
// (ObjectStore::Download's check); a range or an object without one passes.
inline Status CheckDownloadedMd5(const std::string& store_url, const ObjectInfo& object,
                                 std::optional<ByteRange> range, const HttpResponse& response) {
  if (range || object.md5_hex.empty() || response.body_md5_hex == object.md5_hex) {
    return Status::Ok();
  }
  return Status::Unavailable(store_url + ": object '" + object.key +
                             "': content does not match its MD5 (" + object.md5_hex +
                             ", received " +
                             (response.body_md5_hex.empty() ? "none" : response.body_md5_hex) +
                             ")");
}

// http.Send(request, sign); a refusal to sign (no token, a bad key) prefixed
// with the store's URL and the object's key (empty: the bucket or a listing).
inline StatusOr<HttpResponse> SendForStore(const HttpClient& http, HttpRequest request,
                                           const RequestSigner& sign,
                                           const std::string& store_url,
                                           const std::string& object) {
  auto response = http.Send(std::move(request), sign);
  if (!response.ok()) {
    const std::string where = object.empty() ? "" : ": object '" + object + "'";
    return response.status().WithPrefix(store_url + where + ": ");
  }
  return response;
}

}  // namespace inferd

#endif  // INFERD_CORE_CLOUD_STORE_REQUEST_H_
