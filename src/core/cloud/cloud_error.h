// The error of a request to an object store, as it reaches the user: which
// store (its URL), which object, what the cloud said (its error code, e.g.
// S3's "AccessDenied", and the HTTP status) and in words. Every store builds
// its failures with it, so a wrong key reads the same on S3, GCS and Azure:
//   s3://bucket/models: object 'resnet/config.pbtxt': AccessDenied (HTTP 403): ...
// Errors travel as inferd's one Status; this only writes their message and
// picks their code (404 is NOT_FOUND, a bad request INVALID_ARG, the rest,
// throttling, outages and refused credentials included, UNAVAILABLE).
#ifndef INFERD_CORE_CLOUD_CLOUD_ERROR_H_
#define INFERD_CORE_CLOUD_CLOUD_ERROR_H_

#include <string>

#include "inferd/base/status.h"

namespace inferd {

struct CloudError {
  std::string url;         // the store, e.g. "s3://bucket/models"
  std::string object;      // the object's key; empty for the bucket or a listing
  std::string code;        // the cloud's code ("NoSuchBucket", ...); empty if none
  int http_status = 0;     // 0: no HTTP answer (connection refused, timeout)
  std::string message;     // the cloud's message, or the transport's

  Status ToStatus() const {
    std::string text = url;
    if (!object.empty()) text += ": object '" + object + "'";
    text += ": ";
    if (!code.empty()) text += code + " ";
    if (http_status != 0) text += "(HTTP " + std::to_string(http_status) + ")";
    if (!message.empty()) text += (http_status != 0 || !code.empty() ? ": " : "") + message;
    Status::Code status_code = Status::Code::kUnavailable;
    if (http_status == 404) status_code = Status::Code::kNotFound;
    if (http_status == 400) status_code = Status::Code::kInvalidArg;
    return Status(status_code, std::move(text));
  }
};

}  // namespace inferd

#endif  // INFERD_CORE_CLOUD_CLOUD_ERROR_H_
