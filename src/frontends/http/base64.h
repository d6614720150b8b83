// Strict base64 decoding (RFC 4648, with padding) for the repository API's
// "file:<path>" parameters, and encoding (the OpenAI API's base64 embeddings). Written here because Boost only ships an
// internal, non-validating decoder.
#ifndef INFERD_FRONTENDS_HTTP_BASE64_H_
#define INFERD_FRONTENDS_HTTP_BASE64_H_

#include <optional>
#include <string>
#include <string_view>

namespace inferd::http {

// The decoded bytes, or nullopt when `text` is not valid base64.
std::optional<std::string> DecodeBase64(std::string_view text);

// `bytes` as base64 with padding.
std::string EncodeBase64(std::string_view bytes);

}  // namespace inferd::http

#endif  // INFERD_FRONTENDS_HTTP_BASE64_H_
