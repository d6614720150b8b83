// The OTLP/JSON encoding of spans (the body of a POST to a collector's
// /v1/traces with Content-Type application/json), written from the OTLP
// specification: ids are hex strings, 64-bit integers and times decimal
// strings, enums numbers. Chosen over the protobuf encoding because every
// OTLP/HTTP receiver must accept it, it needs no generated code (Debian 12
// packages neither opentelemetry-cpp nor the OTLP .proto files), and what
// is sent can be read in a packet capture. Pure function.
#ifndef INFERD_CORE_TRACE_OTLP_JSON_H_
#define INFERD_CORE_TRACE_OTLP_JSON_H_

#include <string>
#include <utility>
#include <vector>

#include "core/trace/otel_span.h"

namespace inferd {

using ResourceAttributes = std::vector<std::pair<std::string, std::string>>;

// One ExportTraceServiceRequest: one resource (its attributes, string
// valued), one instrumentation scope "inferd", the spans.
std::string EncodeOtlpJson(const ResourceAttributes& resource, const std::vector<OtelSpan>& spans);

}  // namespace inferd

#endif  // INFERD_CORE_TRACE_OTLP_JSON_H_
