// zlib-based body coding: inflating request bodies sent with
// `Content-Encoding: gzip|deflate`, and compressing responses for clients that
// send `Accept-Encoding`. "deflate" is the zlib format (RFC 1950), as Triton's
// clients produce and expect; raw deflate is also accepted on input. Thread-safe.
#ifndef INFERD_FRONTENDS_HTTP_COMPRESSION_H_
#define INFERD_FRONTENDS_HTTP_COMPRESSION_H_

#include <cstddef>
#include <string>
#include <string_view>

#include "http/http_errors.h"

namespace inferd::http {

enum class Encoding { kIdentity, kGzip, kDeflate };

// The coding a Content-Encoding header names; `supported` is false for a coding
// we cannot decode (br, compress, ...). Empty means identity.
Encoding ParseContentEncoding(std::string_view header, bool* supported);

// The response coding to use for an Accept-Encoding header: gzip when offered,
// else deflate when offered, else identity. Codings with q=0 are not offered.
Encoding ChooseResponseEncoding(std::string_view accept_encoding);

// Inflates `input` into *output. An output larger than `max_output_bytes`
// gives 413, a corrupt or truncated stream INVALID_ARG.
HttpError Inflate(std::string_view input, Encoding encoding, size_t max_output_bytes,
                  std::string* output);

// Replaces *body by its decoded form per a Content-Encoding header value
// (empty: left as is). An unsupported coding gives 415; decoding errors as
// Inflate.
HttpError DecodeContentEncoding(std::string_view content_encoding, size_t max_output_bytes,
                                std::string* body);

// Compresses a body given in pieces (gzip or zlib deflate). Not thread-safe.
class Compressor {
 public:
  explicit Compressor(Encoding encoding);
  ~Compressor();
  Compressor(const Compressor&) = delete;
  Compressor& operator=(const Compressor&) = delete;

  // Appends the compressed form of `input` to *output; `finish` is true for the
  // last piece. INTERNAL when zlib fails.
  Status Append(std::string_view input, bool finish, std::string* output);

 private:
  struct Stream;
  Stream* stream_;  // zlib state; owned
};

// "gzip" / "deflate"; empty for identity.
std::string_view EncodingName(Encoding encoding);

}  // namespace inferd::http

#endif  // INFERD_FRONTENDS_HTTP_COMPRESSION_H_
