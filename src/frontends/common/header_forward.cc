// Header forwarding: an RE2 pattern over header names, reserved names refused.
#include "common/header_forward.h"

#include <re2/re2.h>

#include <utility>

#include "common/server_error.h"

namespace inferd {
namespace {

// Triton's docs (protocol/extension_parameters.md) list these, plus the
// "triton_" prefix; binary_data_output is the HTTP protocol's own.
constexpr std::string_view kReserved[] = {"sequence_id", "sequence_start", "sequence_end",
                                          "priority",    "timeout",        "headers",
                                          "binary_data_output"};
constexpr std::string_view kReservedPrefix = "triton_";

// HTTP header names are case-insensitive; gRPC metadata keys are lower case.
bool EqualsIgnoringCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    const auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c; };
    if (lower(a[i]) != lower(b[i])) return false;
  }
  return true;
}

}  // namespace

bool IsReservedParameterName(std::string_view name) {
  for (std::string_view reserved : kReserved) {
    if (EqualsIgnoringCase(name, reserved)) return true;
  }
  return name.size() >= kReservedPrefix.size() &&
         EqualsIgnoringCase(name.substr(0, kReservedPrefix.size()), kReservedPrefix);
}

StatusOr<std::unique_ptr<const HeaderForwarder>> HeaderForwarder::Create(
    const std::string& pattern, std::string flag) {
  re2::RE2::Options options;
  options.set_log_errors(false);
  // Checked alone first, so that RE2's reason quotes the pattern as given.
  if (const re2::RE2 given(pattern, options); !given.ok()) {
    return Status::InvalidArg(flag + " '" + pattern +
                              "' is not a valid regular expression: " + given.error());
  }
  // As Triton: case-insensitive unless the pattern itself says "(?-i)".
  auto regex = std::make_unique<re2::RE2>("(?i)" + pattern, options);
  if (!regex->ok()) return Status::InvalidArg(flag + " '" + pattern + "': " + regex->error());
  return std::unique_ptr<const HeaderForwarder>(
      new HeaderForwarder(std::move(regex), std::move(flag)));
}

HeaderForwarder::HeaderForwarder(std::unique_ptr<re2::RE2> regex, std::string flag)
    : regex_(std::move(regex)), flag_(std::move(flag)) {}

HeaderForwarder::~HeaderForwarder() = default;

bool HeaderForwarder::Matches(std::string_view name) const {
  return re2::RE2::PartialMatch(re2::StringPiece(name.data(), name.size()), *regex_);
}

Status HeaderForwarder::Collect(std::string_view name, std::string_view value,
                                ForwardedHeaders* out) const {
  if (!Matches(name)) return Status::Ok();
  if (IsReservedParameterName(name)) {
    return Status::InvalidArg("header '" + std::string(name) + "' matches " + flag_ +
                              ", but its name is a request parameter reserved for Triton "
                              "usage; rename the header or narrow the pattern");
  }
  out->push_back({std::string(name), std::string(value)});
  return Status::Ok();
}

Status SetForwardedHeaders(INFERD_InferenceRequest* request, const ForwardedHeaders& headers) {
  for (const ForwardedHeader& header : headers) {
    RETURN_IF_ERROR(StatusFromServerError(INFERD_InferenceRequestSetStringParameter(
        request, header.name.c_str(), header.value.c_str())));
  }
  return Status::Ok();
}

}  // namespace inferd
