// zlib inflate/deflate for request and response bodies.
#include "http/compression.h"

#include <zlib.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>

namespace inferd::http {
namespace {

// zlib's windowBits: 15 (32 KiB window) plus 16 for a gzip wrapper; negative
// for raw deflate.
constexpr int kZlibWindowBits = 15;
constexpr int kGzipWindowBits = 15 + 16;
constexpr int kRawWindowBits = -15;

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// Inflates with the given windowBits; Z_DATA_ERROR on a bad stream.
int InflateWith(int window_bits, std::string_view input, size_t max_output_bytes,
                std::string* output, bool* too_large) {
  z_stream stream{};
  if (inflateInit2(&stream, window_bits) != Z_OK) return Z_MEM_ERROR;
  output->clear();
  output->resize(std::min<size_t>(std::max<size_t>(input.size() * 4, 4096), max_output_bytes + 1));
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(input.data()));
  stream.avail_in = static_cast<uInt>(input.size());
  size_t produced = 0;
  int rc = Z_OK;
  while (rc == Z_OK) {
    if (produced == output->size()) {
      if (output->size() > max_output_bytes) break;
      output->resize(std::min(output->size() * 2, max_output_bytes + 1));
    }
    stream.next_out = reinterpret_cast<Bytef*>(output->data() + produced);
    stream.avail_out = static_cast<uInt>(output->size() - produced);
    rc = inflate(&stream, Z_NO_FLUSH);
    produced = output->size() - stream.avail_out;
    if (rc == Z_BUF_ERROR && stream.avail_in == 0) rc = Z_DATA_ERROR;  // truncated
    if (rc == Z_BUF_ERROR) rc = Z_OK;  // output full: grow and go on
  }
  inflateEnd(&stream);
  *too_large = produced > max_output_bytes;
  output->resize(produced);
  if (*too_large) return Z_DATA_ERROR;
  if (rc == Z_STREAM_END && stream.avail_in != 0) return Z_DATA_ERROR;  // trailing garbage
  return rc == Z_STREAM_END ? Z_OK : rc;
}

}  // namespace

Encoding ParseContentEncoding(std::string_view header, bool* supported) {
  header = Trim(header);
  *supported = true;
  if (header.empty() || EqualsIgnoreCase(header, "identity")) return Encoding::kIdentity;
  if (EqualsIgnoreCase(header, "gzip") || EqualsIgnoreCase(header, "x-gzip")) {
    return Encoding::kGzip;
  }
  if (EqualsIgnoreCase(header, "deflate")) return Encoding::kDeflate;
  *supported = false;
  return Encoding::kIdentity;
}

Encoding ChooseResponseEncoding(std::string_view accept_encoding) {
  bool gzip = false;
  bool deflate = false;
  while (!accept_encoding.empty()) {
    const size_t comma = accept_encoding.find(',');
    std::string_view item = accept_encoding.substr(0, comma);
    accept_encoding = comma == std::string_view::npos ? "" : accept_encoding.substr(comma + 1);
    std::string_view coding = item;
    bool refused = false;
    if (const size_t semi = item.find(';'); semi != std::string_view::npos) {
      coding = item.substr(0, semi);
      std::string_view param = Trim(item.substr(semi + 1));
      if (param.size() > 2 && (param[0] == 'q' || param[0] == 'Q') && param[1] == '=') {
        refused = std::strtod(std::string(param.substr(2)).c_str(), nullptr) <= 0.0;
      }
    }
    coding = Trim(coding);
    if (refused) continue;
    if (EqualsIgnoreCase(coding, "gzip")) gzip = true;
    if (EqualsIgnoreCase(coding, "deflate")) deflate = true;
  }
  return gzip ? Encoding::kGzip : deflate ? Encoding::kDeflate : Encoding::kIdentity;
}

HttpError Inflate(std::string_view input, Encoding encoding, size_t max_output_bytes,
                  std::string* output) {
  if (encoding == Encoding::kIdentity) {
    output->assign(input);
    return Status::Ok();
  }
  bool too_large = false;
  int rc;
  if (encoding == Encoding::kGzip) {
    rc = InflateWith(kGzipWindowBits, input, max_output_bytes, output, &too_large);
  } else {
    rc = InflateWith(kZlibWindowBits, input, max_output_bytes, output, &too_large);
    if (rc != Z_OK && !too_large) {
      rc = InflateWith(kRawWindowBits, input, max_output_bytes, output, &too_large);
    }
  }
  if (too_large) {
    return HttpError(413, Status::InvalidArg("decompressed request body exceeds " +
                                             std::to_string(max_output_bytes) +
                                             " bytes (--http-max-input-size)"));
  }
  if (rc != Z_OK) {
    return Status::InvalidArg("failed to decompress the " + std::string(EncodingName(encoding)) +
                              " request body: corrupt or truncated data");
  }
  return Status::Ok();
}

HttpError DecodeContentEncoding(std::string_view content_encoding, size_t max_output_bytes,
                                std::string* body) {
  bool supported = true;
  const Encoding encoding = ParseContentEncoding(content_encoding, &supported);
  if (!supported) {
    return HttpError(415, Status::Unsupported("unsupported Content-Encoding '" +
                                              std::string(content_encoding) +
                                              "'; use gzip or deflate"));
  }
  if (encoding == Encoding::kIdentity) return Status::Ok();
  std::string inflated;
  if (HttpError e = Inflate(*body, encoding, max_output_bytes, &inflated); !e.ok()) return e;
  *body = std::move(inflated);
  return Status::Ok();
}

struct Compressor::Stream {
  z_stream z{};
  bool ready = false;
};

Compressor::Compressor(Encoding encoding) : stream_(new Stream) {
  const int window_bits = encoding == Encoding::kGzip ? kGzipWindowBits : kZlibWindowBits;
  stream_->ready = deflateInit2(&stream_->z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, window_bits, 8,
                                Z_DEFAULT_STRATEGY) == Z_OK;
}

Compressor::~Compressor() {
  if (stream_->ready) deflateEnd(&stream_->z);
  delete stream_;
}

Status Compressor::Append(std::string_view input, bool finish, std::string* output) {
  if (!stream_->ready) return Status::Internal("failed to initialize zlib for the response");
  z_stream& z = stream_->z;
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(input.data()));
  z.avail_in = static_cast<uInt>(input.size());
  const int flush = finish ? Z_FINISH : Z_NO_FLUSH;
  int rc;
  do {
    const size_t before = output->size();
    const size_t room = deflateBound(&z, z.avail_in) + 64;
    output->resize(before + room);
    z.next_out = reinterpret_cast<Bytef*>(output->data() + before);
    z.avail_out = static_cast<uInt>(room);
    rc = deflate(&z, flush);
    output->resize(before + room - z.avail_out);
    if (rc == Z_STREAM_ERROR) return Status::Internal("failed to compress the response");
  } while (z.avail_out == 0 || (finish && rc != Z_STREAM_END));
  return Status::Ok();
}

std::string_view EncodingName(Encoding encoding) {
  switch (encoding) {
    case Encoding::kGzip:
      return "gzip";
    case Encoding::kDeflate:
      return "deflate";
    case Encoding::kIdentity:
      break;
  }
  return "";
}

}  // namespace inferd::http
