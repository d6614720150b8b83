// The OTLP/protobuf encoding of spans (the body of a POST to a collector's
// /v1/traces with Content-Type application/x-protobuf, OTLP/HTTP's default),
// written by hand in protobuf's wire format from the field numbers of
// opentelemetry/proto (collector/trace/v1/trace_service.proto, trace/v1,
// common/v1, resource/v1): varint tags and lengths, fixed64 times, ids as
// 16 and 8 raw bytes. No generated code: Debian packages neither
// opentelemetry-cpp nor the OTLP .proto files, and what is written is a few
// dozen stores per span, a third of the bytes of OTLP/JSON and no hex.
//
// Written straight from span records into one reused buffer. A message's
// length comes before it, so each span is written after one byte for its
// length (most spans are under 128 bytes) and moved up when it needs more;
// the request's outer lengths are written last, before the spans.
#ifndef INFERD_CORE_TRACE_OTLP_PROTO_H_
#define INFERD_CORE_TRACE_OTLP_PROTO_H_

#include <string>
#include <string_view>

#include "core/trace/otlp_encoder.h"

namespace inferd {

class OtlpProtoEncoder final : public SpanEncoder {
 public:
  explicit OtlpProtoEncoder(const ResourceAttributes& resource);

  // The view starts a few bytes into `*buffer` (the outer lengths are
  // written last, right before the spans).
  std::string_view EncodeAll(const SpanRecord* const* records, size_t count,
                             int64_t unix_minus_steady_ns, std::string* buffer,
                             size_t* spans) const override;
  std::string_view content_type() const override { return "application/x-protobuf"; }

 private:
  // ResourceSpans.resource and ScopeSpans.scope, each with its tag and
  // length: what comes before the spans but for the two outer lengths.
  std::string resource_;
  std::string scope_;
};

}  // namespace inferd

#endif  // INFERD_CORE_TRACE_OTLP_PROTO_H_
