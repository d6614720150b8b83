// The trace of one sampled inference request: its id, model and the
// timestamps of its way through the server (steady clock, ns). Created only
// for sampled requests, so an untraced request carries a null pointer.
//
// Shared by the request and, while it executes, by its model instance; when
// the last holder lets go, the finished trace is handed to its collector.
// Record() may be called from any thread.
#ifndef INFERD_CORE_TRACE_REQUEST_TRACE_H_
#define INFERD_CORE_TRACE_REQUEST_TRACE_H_

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "core/trace/trace_context.h"

namespace inferd {

class OtlpExporter;
class TraceCollector;

// Triton's timestamp names, in the order a request passes them, then the
// points only OpenTelemetry spans show (the trace file has Triton's only).
enum class TracePoint {
  kRequestStart,        // the server took the request
  kQueueStart,          // it entered its model's scheduler queue
  kComputeStart,        // its batch was handed to the backend
  kComputeInputEnd,     // inputs ready: equals kComputeStart (inputs are never copied)
  kComputeOutputStart,  // the backend created the request's first response
  kComputeEnd,          // the final response was sent, or execute returned
  kRequestEnd,          // the server released the request
  kCacheLookupStart,    // the response cache was asked
  kCacheLookupEnd,
  kRateLimitStart,      // its batch began waiting for rate limiter resources
  kRateLimitEnd,
};
inline constexpr size_t kTritonTracePointCount = 7;
inline constexpr size_t kTracePointCount = 11;

// The OpenTelemetry identity of a traced request: its span, the span it is a
// child of (the caller's, from traceparent, or the parent request's) and the
// caller's tracestate.
struct SpanIdentity {
  TraceId trace_id{};
  SpanId span_id{};
  SpanId parent_span_id{};
  std::string trace_state;
};

// "REQUEST_START", ...
const char* TracePointName(TracePoint point);

class RequestTrace {
 public:
  RequestTrace(uint64_t id, std::shared_ptr<TraceCollector> collector, std::string model_name,
               int64_t model_version, std::string request_id);
  // Hands the trace to its collector unless it was discarded.
  ~RequestTrace();
  RequestTrace(const RequestTrace&) = delete;
  RequestTrace& operator=(const RequestTrace&) = delete;

  uint64_t id() const { return id_; }
  // The trace of the request this one's request serves (an ensemble's); 0: none.
  uint64_t parent_id() const { return parent_id_; }
  void set_parent_id(uint64_t parent_id) { parent_id_ = parent_id; }
  const std::shared_ptr<TraceCollector>& collector() const { return collector_; }
  // Sets `point` to `ns` unless it was set before (the first record wins).
  void Record(TracePoint point, uint64_t ns);
  // COMPUTE_END at `ns`, and COMPUTE_OUTPUT_START too if the backend created
  // no response before, so the compute points stay in order.
  void RecordComputeEnd(uint64_t ns) {
    Record(TracePoint::kComputeOutputStart, ns);
    Record(TracePoint::kComputeEnd, ns);
  }
  // The time of `point`, 0 when not recorded.
  uint64_t At(TracePoint point) const {
    return ns_[static_cast<size_t>(point)].load(std::memory_order_acquire);
  }
  // Set before the trace is shared, in opentelemetry mode only.
  const SpanIdentity& span() const { return span_; }
  void set_span(SpanIdentity span) {
    traceparent_ = FormatTraceparent(span.trace_id, span.span_id, true);
    span_ = std::move(span);
  }
  // span() as a W3C traceparent; "" in triton mode.
  const Traceparent& traceparent() const { return traceparent_; }
  const std::string& model_name() const { return model_name_; }
  int64_t model_version() const { return model_version_; }
  const std::string& request_id() const { return request_id_; }

  // The trace will not be written (its request was refused).
  void Discard() { discarded_.store(true, std::memory_order_relaxed); }

  // {"id", "model_name", "model_version", ["request_id",] "timestamps": [{"name", "ns"}...]}
  // with the recorded points in order.
  std::string Json() const;

 private:
  // In opentelemetry mode, what the finished trace hands the exporter: a
  // record from its pool, filled in place.
  void ExportTo(OtlpExporter& exporter);

  const uint64_t id_;
  const std::shared_ptr<TraceCollector> collector_;
  const std::string model_name_;
  const int64_t model_version_;
  const std::string request_id_;
  std::array<std::atomic<uint64_t>, kTracePointCount> ns_{};
  std::atomic<bool> discarded_{false};
  uint64_t parent_id_ = 0;  // set before the trace is shared
  SpanIdentity span_;
  Traceparent traceparent_;
};

// Records `point` now on `trace` when the request is traced.
void TraceNow(const std::shared_ptr<RequestTrace>& trace, TracePoint point);

}  // namespace inferd

#endif  // INFERD_CORE_TRACE_REQUEST_TRACE_H_
