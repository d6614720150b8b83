// One finished OpenTelemetry span, as the exporter sends it: ids, name,
// kind, times in Unix nanoseconds, attributes, links (a batch's to each of
// its requests) and an error status.
#ifndef INFERD_CORE_TRACE_OTEL_SPAN_H_
#define INFERD_CORE_TRACE_OTEL_SPAN_H_

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "core/trace/trace_context.h"

namespace inferd {

// OTLP's SpanKind numbers.
enum class SpanKind { kInternal = 1, kServer = 2, kClient = 3 };

struct SpanAttribute {
  std::string key;
  std::variant<std::string, int64_t> value;
};

struct SpanLink {
  TraceId trace_id{};
  SpanId span_id{};
};

struct OtelSpan {
  TraceId trace_id{};
  SpanId span_id{};
  SpanId parent_span_id{};  // all zero: a root span
  std::string trace_state;
  std::string name;
  SpanKind kind = SpanKind::kInternal;
  uint64_t start_unix_ns = 0;
  uint64_t end_unix_ns = 0;
  std::vector<SpanAttribute> attributes;
  std::vector<SpanLink> links;
  std::string error;  // non-empty: status ERROR with this message
};

}  // namespace inferd

#endif  // INFERD_CORE_TRACE_OTEL_SPAN_H_
