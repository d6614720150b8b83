// What the exporter encodes span records with: OTLP/HTTP's two bodies,
// protobuf (the OTLP/HTTP default, otlp_proto.h) and JSON (otlp_json.h),
// chosen with `--trace-config opentelemetry,protocol=http/protobuf|http/json`
// (the values of OTEL_EXPORTER_OTLP_PROTOCOL).
#ifndef INFERD_CORE_TRACE_OTLP_ENCODER_H_
#define INFERD_CORE_TRACE_OTLP_ENCODER_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/trace/span_record.h"

namespace inferd {

using ResourceAttributes = std::vector<std::pair<std::string, std::string>>;

enum class OtlpProtocol { kHttpProtobuf, kHttpJson };

class SpanEncoder {
 public:
  virtual ~SpanEncoder() = default;
  // One ExportTraceServiceRequest holding the spans of `records` (steady
  // times moved by `unix_minus_steady_ns`), written into `*buffer`, which
  // only grows (so it is seldom zero-filled); the view is into it.
  // `*spans`: how many spans it holds.
  virtual std::string_view EncodeAll(const SpanRecord* const* records, size_t count,
                                     int64_t unix_minus_steady_ns, std::string* buffer,
                                     size_t* spans) const = 0;
  // The same for `count` records side by side.
  std::string_view Encode(const SpanRecord* records, size_t count, int64_t unix_minus_steady_ns,
                          std::string* buffer, size_t* spans) const {
    std::vector<const SpanRecord*> pointers(count);
    for (size_t i = 0; i < count; ++i) pointers[i] = &records[i];
    return EncodeAll(pointers.data(), count, unix_minus_steady_ns, buffer, spans);
  }
  // The body's Content-Type.
  virtual std::string_view content_type() const = 0;
};

// The encoder of `protocol`, for one resource (its attributes, string valued)
// and one instrumentation scope "inferd".
std::unique_ptr<SpanEncoder> MakeSpanEncoder(OtlpProtocol protocol,
                                             const ResourceAttributes& resource);

}  // namespace inferd

#endif  // INFERD_CORE_TRACE_OTLP_ENCODER_H_
