// Triton's --http-header-forward-pattern and --grpc-header-forward-pattern:
// the HTTP headers (gRPC metadata) of an inference request whose name matches
// a regular expression become string parameters of the request, named as the
// header, which the backend reads like any other request parameter.
//
// As Triton: the pattern is RE2 syntax, matched anywhere in the name (a
// partial match; anchor it with ^...$ to match whole names) and
// case-insensitively, as HTTP header names are ("(?-i)" at the start of the
// pattern makes it case-sensitive). A header whose name is one of the
// parameter names Triton reserves (sequence_id, sequence_start, sequence_end,
// priority, timeout, headers, binary_data_output, and every name starting
// "triton_") is never forwarded: when it matches, the request is refused
// (INVALID_ARG, naming the header and the flag). Immutable once created;
// thread-safe.
#ifndef INFERD_FRONTENDS_COMMON_HEADER_FORWARD_H_
#define INFERD_FRONTENDS_COMMON_HEADER_FORWARD_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "inferd/base/status.h"
#include "inferd/server.h"

namespace re2 {
class RE2;
}

namespace inferd {

// One header to forward: its name as the client sent it, and its value.
struct ForwardedHeader {
  std::string name;
  std::string value;
};
using ForwardedHeaders = std::vector<ForwardedHeader>;

// Whether `name` is a request parameter name Triton reserves for itself.
bool IsReservedParameterName(std::string_view name);

class HeaderForwarder {
 public:
  // Compiles `pattern`; `flag` names the flag that set it, for messages
  // ("--http-header-forward-pattern"). INVALID_ARG naming the flag, the
  // pattern and RE2's reason when the pattern is not a valid expression.
  static StatusOr<std::unique_ptr<const HeaderForwarder>> Create(const std::string& pattern,
                                                                 std::string flag);
  ~HeaderForwarder();
  HeaderForwarder(const HeaderForwarder&) = delete;
  HeaderForwarder& operator=(const HeaderForwarder&) = delete;

  // Whether a header named `name` is to be forwarded.
  bool Matches(std::string_view name) const;

  // Appends the header to `out` when its name matches. INVALID_ARG (and
  // nothing appended) when it matches but the name is reserved.
  Status Collect(std::string_view name, std::string_view value, ForwardedHeaders* out) const;

 private:
  HeaderForwarder(std::unique_ptr<re2::RE2> regex, std::string flag);

  // Constant after construction.
  std::unique_ptr<re2::RE2> regex_;
  std::string flag_;
};

// Sets each of `headers` as a string parameter of `request`; the server's
// error, if any.
Status SetForwardedHeaders(INFERD_InferenceRequest* request, const ForwardedHeaders& headers);

}  // namespace inferd

#endif  // INFERD_FRONTENDS_COMMON_HEADER_FORWARD_H_
