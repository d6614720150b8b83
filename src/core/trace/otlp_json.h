// The OTLP/JSON encoding of spans (the body of a POST to a collector's
// /v1/traces with Content-Type application/json), written from the OTLP
// specification: ids are hex strings, 64-bit integers and times decimal
// strings, enums numbers. Chosen over the protobuf encoding because every
// OTLP/HTTP receiver must accept it, it needs no generated code (Debian 12
// packages neither opentelemetry-cpp nor the OTLP .proto files), and what
// is sent can be read in a packet capture.
//
// Written straight from span records into one reused buffer: the constant
// parts are copied as they are, ids and numbers from stack buffers, and only
// the strings a user chose (model names, request ids, tracestate, resource
// attributes) are escaped. Encoding a span allocates nothing.
#ifndef INFERD_CORE_TRACE_OTLP_JSON_H_
#define INFERD_CORE_TRACE_OTLP_JSON_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/trace/span_record.h"

namespace inferd {

using ResourceAttributes = std::vector<std::pair<std::string, std::string>>;

class OtlpJsonEncoder {
 public:
  // One resource (its attributes, string valued), one instrumentation scope
  // "inferd".
  explicit OtlpJsonEncoder(const ResourceAttributes& resource);

  // One ExportTraceServiceRequest holding the spans of `records` (steady
  // times moved by `unix_minus_steady_ns`), written at the start of
  // `*buffer`, which only grows (so it is seldom zero-filled); the view is
  // into it. `*spans`: how many spans it holds.
  std::string_view Encode(const SpanRecord* records, size_t count, int64_t unix_minus_steady_ns,
                          std::string* buffer, size_t* spans) const;

 private:
  std::string head_;  // everything before the first span
};

}  // namespace inferd

#endif  // INFERD_CORE_TRACE_OTLP_JSON_H_
