// Splitting the binary tensor data section of an infer request body.
#include "http/binary_section.h"

#include <charconv>

namespace inferd::http {

Status ParseInferHeaderLength(std::string_view header_value, size_t body_size, size_t* json_size) {
  if (header_value.empty()) {
    *json_size = body_size;
    return Status::Ok();
  }
  uint64_t value = 0;
  const char* end = header_value.data() + header_value.size();
  const auto [ptr, ec] = std::from_chars(header_value.data(), end, value);
  if (ec != std::errc() || ptr != end) {
    return Status::InvalidArg("Inference-Header-Content-Length '" + std::string(header_value) +
                              "' is not a byte count");
  }
  if (value > body_size) {
    return Status::InvalidArg("Inference-Header-Content-Length " + std::to_string(value) +
                              " exceeds the request body size " + std::to_string(body_size));
  }
  *json_size = static_cast<size_t>(value);
  return Status::Ok();
}

Status ParseVendorHeaderLength(std::string_view content_type, std::string_view vendor_prefix,
                               size_t body_size, size_t* json_size) {
  if (vendor_prefix.empty()) return Status::Ok();
  const size_t at = content_type.find(vendor_prefix);
  if (at == std::string_view::npos) return Status::Ok();
  if (at != 0) {
    return Status::InvalidArg("expect MIME type for binary data starts with '" +
                              std::string(vendor_prefix) + "', got: " + std::string(content_type));
  }
  const std::string_view text = content_type.substr(vendor_prefix.size());
  uint64_t value = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end) {
    return Status::InvalidArg("Content-Type '" + std::string(content_type) +
                              "': json-header-size is not a byte count");
  }
  if (value > body_size) {
    return Status::InvalidArg("Content-Type json-header-size " + std::to_string(value) +
                              " exceeds the request body size " + std::to_string(body_size));
  }
  *json_size = static_cast<size_t>(value);
  return Status::Ok();
}

Status BinarySection::Take(std::string_view input_name, uint64_t byte_size,
                           std::string_view* slice) {
  const size_t left = bytes_.size() - offset_;
  if (byte_size > left) {
    return Status::InvalidArg("input '" + std::string(input_name) + "': binary_data_size " +
                              std::to_string(byte_size) + " exceeds the " + std::to_string(left) +
                              " bytes of binary data left in the request body");
  }
  *slice = bytes_.substr(offset_, byte_size);
  offset_ += byte_size;
  last_input_ = input_name;
  return Status::Ok();
}

Status BinarySection::Finish() const {
  if (offset_ == bytes_.size()) return Status::Ok();
  const size_t extra = bytes_.size() - offset_;
  if (last_input_.empty()) {
    return Status::InvalidArg("the request body holds " + std::to_string(extra) +
                              " bytes after the JSON header but no input has binary_data_size");
  }
  return Status::InvalidArg("the request body holds " + std::to_string(extra) +
                            " more bytes of binary data than the inputs' binary_data_size " +
                            "declare (the last binary input is '" +
                            std::string(last_input_) + "')");
}

}  // namespace inferd::http
