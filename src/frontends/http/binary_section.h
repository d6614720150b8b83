// The binary tensor data extension's body layout: the first
// Inference-Header-Content-Length bytes are the JSON request, the rest are the
// inputs' binary data, back to back in input order. BinarySection hands out
// those bytes to the inputs that declare `binary_data_size` and checks they add
// up exactly. Not thread-safe; one per request.
#ifndef INFERD_FRONTENDS_HTTP_BINARY_SECTION_H_
#define INFERD_FRONTENDS_HTTP_BINARY_SECTION_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "inferd/base/status.h"

namespace inferd::http {

// The JSON length an Inference-Header-Content-Length header value gives for a
// body of `body_size` bytes; the whole body when the header is absent (empty).
// Not a number, or larger than the body: INVALID_ARG.
Status ParseInferHeaderLength(std::string_view header_value, size_t body_size, size_t* json_size);

// The cloud endpoints' form of the same length: a Content-Type of
// `vendor_prefix` (e.g. "application/vnd.sagemaker-triton.binary+json;
// json-header-size=") followed by the JSON length. Sets *json_size when
// `content_type` starts with a non-empty `vendor_prefix` and leaves it
// otherwise; INVALID_ARG when the prefix appears later in the value, or the
// length is not a number or exceeds the body.
Status ParseVendorHeaderLength(std::string_view content_type, std::string_view vendor_prefix,
                               size_t body_size, size_t* json_size);

class BinarySection {
 public:
  // `bytes`: the body after the JSON; borrowed.
  explicit BinarySection(std::string_view bytes) : bytes_(bytes) {}

  // The next `byte_size` bytes, for input `input_name` (kept for messages, so it
  // must outlive this object). INVALID_ARG naming the
  // input when fewer remain.
  Status Take(std::string_view input_name, uint64_t byte_size, std::string_view* slice);

  // INVALID_ARG when bytes are left after the last binary input.
  Status Finish() const;

 private:
  std::string_view bytes_;   // the binary part of the body
  size_t offset_ = 0;        // bytes handed out so far
  std::string_view last_input_;  // the last input given bytes, for error messages
};

}  // namespace inferd::http

#endif  // INFERD_FRONTENDS_HTTP_BINARY_SECTION_H_
