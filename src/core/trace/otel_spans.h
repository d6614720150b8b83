// The spans of a finished request trace (opentelemetry mode), built from its
// record (span_record.h) in the exporter's thread:
//
//   <model name>            REQUEST_START .. REQUEST_END (kind SERVER when its
//   |                       parent is the caller's span or none; else INTERNAL)
//   +- cache_lookup         CACHE_LOOKUP_START .. END (models with a cache)
//   +- queue                QUEUE_START .. COMPUTE_START (or REQUEST_END)
//   |  +- rate_limiter_wait RATE_LIMIT_START .. END
//   +- compute              COMPUTE_START .. COMPUTE_END
//      +- compute_input     COMPUTE_START .. COMPUTE_INPUT_END
//      +- compute_infer     COMPUTE_INPUT_END .. COMPUTE_OUTPUT_START
//      +- compute_output    COMPUTE_OUTPUT_START .. COMPUTE_END
//
// Ensemble steps and BLS calls are requests of their own whose request span
// is a child of their parent request's. A span whose points were not both
// recorded is left out, and so are its children. A batch record is one span,
// "batch", the root of a trace of its own, linked to the request span of
// each traced member: OpenTelemetry's model of work done for many requests.
#ifndef INFERD_CORE_TRACE_OTEL_SPANS_H_
#define INFERD_CORE_TRACE_OTEL_SPANS_H_

#include <array>
#include <cstdint>
#include <string_view>

#include "core/trace/span_record.h"

namespace inferd {

// OTLP's SpanKind numbers.
enum class SpanKind { kInternal = 1, kServer = 2, kClient = 3 };

// The spans a request record can hold, in the order above.
inline constexpr size_t kRequestSpanSlots = 8;

// One span of a record, as the encoder writes it (times steady, ns).
struct SpanView {
  std::string_view name;
  SpanId span_id{};
  SpanId parent_span_id{};
  uint64_t start_ns = 0;
  uint64_t end_ns = 0;
  SpanKind kind = SpanKind::kInternal;
  bool root = false;  // the record's own span (the request's or the batch's)
};

// Bit i set: slot i of the order above is a span of `record` (a batch: bit 0).
uint32_t SpanSlots(const SpanRecord& record);
// The same, computed once: what the exporter stored when it queued the record.
inline uint32_t QueuedSpanSlots(const SpanRecord& record) {
  return record.slots != 0 ? record.slots : SpanSlots(record);
}
// How many of the slots are set: a table, as without -mpopcnt a popcount
// is a libgcc call.
inline size_t SlotCount(uint32_t slots) {
  static_assert(kRequestSpanSlots <= 8);
  static constexpr auto kCounts = [] {
    std::array<uint8_t, 256> counts{};
    for (size_t i = 1; i < counts.size(); ++i) {
      counts[i] = static_cast<uint8_t>(counts[i / 2] + (i & 1));
    }
    return counts;
  }();
  return kCounts[slots & 0xff];
}
// How many spans `record` holds.
inline size_t SpanCount(const SpanRecord& record) { return SlotCount(SpanSlots(record)); }
// Slot `slot` of `record` (one of SpanSlots). Children's span ids are derived
// from the record's, so building a span draws no random number.
SpanView SpanAt(const SpanRecord& record, size_t slot);

// The system clock minus the steady clock now, in ns: what turns the steady
// timestamps of a trace into the Unix times OTLP carries.
int64_t UnixMinusSteadyNs();

}  // namespace inferd

#endif  // INFERD_CORE_TRACE_OTEL_SPANS_H_
