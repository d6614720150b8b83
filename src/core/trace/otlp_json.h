// The OTLP/JSON encoding of spans (the body of a POST to a collector's
// /v1/traces with Content-Type application/json), written from the OTLP
// specification: ids are hex strings, 64-bit integers and times decimal
// strings, enums numbers. Every OTLP/HTTP receiver must accept it and what
// is sent can be read in a packet capture, but it costs about three times
// the protobuf encoding (otlp_proto.h), the default.
//
// Written straight from span records into one reused buffer: the constant
// parts are copied as they are, ids and numbers from stack buffers, and only
// the strings a user chose (model names, request ids, tracestate, resource
// attributes) are escaped. Encoding a span allocates nothing.
#ifndef INFERD_CORE_TRACE_OTLP_JSON_H_
#define INFERD_CORE_TRACE_OTLP_JSON_H_

#include <string>
#include <string_view>

#include "core/trace/otlp_encoder.h"

namespace inferd {

class OtlpJsonEncoder final : public SpanEncoder {
 public:
  explicit OtlpJsonEncoder(const ResourceAttributes& resource);

  // Written at the start of `*buffer`.
  std::string_view EncodeAll(const SpanRecord* const* records, size_t count,
                             int64_t unix_minus_steady_ns, std::string* buffer,
                             size_t* spans) const override;
  std::string_view content_type() const override { return "application/json"; }

 private:
  std::string head_;  // everything before the first span
};

}  // namespace inferd

#endif  // INFERD_CORE_TRACE_OTLP_JSON_H_
