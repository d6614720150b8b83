// What the stores' requests have in common, whatever the cloud: a download
// aimed at a local file (the whole object, or a byte range written at its
// offset, with the byte count that proves it whole), and sending through
// the HttpClient with a failure to sign put in the store's words
// ("<url>: object '<key>': ..."). Header-only.
#ifndef INFERD_CORE_CLOUD_STORE_REQUEST_H_
#define INFERD_CORE_CLOUD_STORE_REQUEST_H_

#include <filesystem>
#include <functional>
#include <optional>
#include <string>

#include "core/cloud/checksum.h"
#include "core/cloud/http_client.h"
#include "core/cloud/object_store.h"

namespace inferd {

// Which checksum a whole object's answer is hashed with (BodyFile::checksum).
using ChecksumChoice = std::function<ChecksumKind(const HttpResponse&)>;

// A GET of `url` whose success is written to `dest` as ObjectStore::Download
// says; a whole object is hashed as its bytes arrive, with the checksum
// `choose` picks from the answer (null: the one its listing states).
inline HttpRequest DownloadRequest(std::string url, const ObjectInfo& object,
                                   const std::filesystem::path& dest,
                                   std::optional<ByteRange> range,
                                   ChecksumChoice choose = nullptr) {
  HttpRequest request;
  request.url = std::move(url);
  if (range) {
    request.headers.emplace_back(
        "Range", "bytes=" + std::to_string(range->first) + "-" + std::to_string(range->last));
  }
  request.body_file = BodyFile{dest.string(), range ? range->first : 0, !range.has_value(), nullptr};
  if (!range && choose) {
    request.body_file->checksum = std::move(choose);
  } else if (!range && !object.checksum.empty()) {
    request.body_file->checksum = [kind = object.checksum.kind](const HttpResponse&) {
      return kind;
    };
  }
  request.expected_body_bytes = range ? range->last - range->first + 1 : object.size;
  return request;
}

// A successful download of a whole object against `expected` (ObjectStore::
// Download's check); a range, or an object the store states no checksum for,
// passes.
inline Status CheckDownloaded(const std::string& store_url, const ObjectInfo& object,
                              const ContentChecksum& expected, std::optional<ByteRange> range,
                              const HttpResponse& response) {
  if (range || expected.empty() || response.body_checksum == expected) return Status::Ok();
  return ChecksumMismatch(store_url + ": object '" + object.key + "'", expected,
                          response.body_checksum);
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
