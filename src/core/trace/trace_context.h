// W3C Trace Context (https://www.w3.org/TR/trace-context/): the `traceparent`
// a caller sends so that the server's spans join its trace, and the ids of
// OpenTelemetry spans. Pure functions, except NewTraceId / NewSpanId.
#ifndef INFERD_CORE_TRACE_TRACE_CONTEXT_H_
#define INFERD_CORE_TRACE_TRACE_CONTEXT_H_

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace inferd {

using TraceId = std::array<uint8_t, 16>;
using SpanId = std::array<uint8_t, 8>;

struct TraceContext {
  TraceId trace_id{};
  SpanId span_id{};  // the caller's span: the parent of the server's
  bool sampled = false;  // the caller's trace-flags bit 0
  std::string tracestate;  // passed on unchanged
};

// "00-<32 hex>-<16 hex>-<2 hex>" (a later version may append fields after a
// dash). Nothing for a malformed value, an all-zero id or version ff, as the
// specification asks: the request is then traced as if no header came.
std::optional<TraceContext> ParseTraceparent(std::string_view text);

// A traceparent in a fixed, NUL-terminated buffer (empty until set): a
// traced request copies it to each response without allocating.
struct Traceparent {
  static constexpr size_t kLength = 55;
  std::array<char, kLength + 1> text{};
  const char* c_str() const { return text.data(); }
  std::string_view view() const { return empty() ? std::string_view() : std::string_view(c_str(), kLength); }
  bool empty() const { return text[0] == '\0'; }
};

// "00-<trace id>-<span id>-01|00".
Traceparent FormatTraceparent(const TraceId& trace_id, const SpanId& span_id, bool sampled);

// Lower-case hex of `bytes`.
std::string Hex(const uint8_t* bytes, size_t size);
template <size_t N>
std::string Hex(const std::array<uint8_t, N>& bytes) {
  return Hex(bytes.data(), N);
}

// Random non-zero ids (a per-thread generator seeded from the system).
TraceId NewTraceId();
SpanId NewSpanId();

}  // namespace inferd

#endif  // INFERD_CORE_TRACE_TRACE_CONTEXT_H_
