#include "core/trace/otel_spans.h"

#include <chrono>

namespace inferd {
namespace {

bool IsZero(const SpanId& id) {
  for (uint8_t byte : id) {
    if (byte != 0) return false;
  }
  return true;
}

class SpanBuilder {
 public:
  SpanBuilder(const RequestTrace& trace, int64_t offset, std::vector<OtelSpan>* out)
      : trace_(trace), offset_(offset), out_(out) {}

  // A span from `from` to `to` under `parent`; its id, or zeros when a point
  // is missing (then its children are left out too).
  SpanId Add(const char* name, TracePoint from, TracePoint to, const SpanId& parent) {
    const uint64_t start = trace_.At(from);
    const uint64_t end = trace_.At(to);
    if (start == 0 || end == 0 || end < start || IsZero(parent)) return SpanId{};
    OtelSpan span = Base(name, start, end);
    span.span_id = NewSpanId();
    span.parent_span_id = parent;
    out_->push_back(std::move(span));
    return out_->back().span_id;
  }

  OtelSpan Base(const char* name, uint64_t start, uint64_t end) const {
    OtelSpan span;
    span.trace_id = trace_.span().trace_id;
    span.trace_state = trace_.span().trace_state;
    span.name = name;
    span.start_unix_ns = start + offset_;
    span.end_unix_ns = end + offset_;
    return span;
  }

 private:
  const RequestTrace& trace_;
  const int64_t offset_;
  std::vector<OtelSpan>* out_;
};

}  // namespace

int64_t UnixMinusSteadyNs() {
  const auto unix_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
      std::chrono::system_clock::now().time_since_epoch());
  const auto steady_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
      std::chrono::steady_clock::now().time_since_epoch());
  return static_cast<int64_t>(unix_ns.count() - steady_ns.count());
}

std::vector<OtelSpan> RequestSpans(const RequestTrace& trace, int64_t unix_minus_steady_ns) {
  std::vector<OtelSpan> spans;
  const uint64_t start = trace.At(TracePoint::kRequestStart);
  const uint64_t end = trace.At(TracePoint::kRequestEnd);
  if (start == 0 || end < start) return spans;
  spans.reserve(8);
  SpanBuilder builder(trace, unix_minus_steady_ns, &spans);
  OtelSpan request = builder.Base(trace.model_name().c_str(), start, end);
  request.span_id = trace.span().span_id;
  request.parent_span_id = trace.span().parent_span_id;
  request.kind = trace.parent_id() == 0 ? SpanKind::kServer : SpanKind::kInternal;
  request.attributes = {{"model_name", trace.model_name()},
                        {"model_version", trace.model_version()},
                        {"inferd.trace_id", static_cast<int64_t>(trace.id())}};
  if (!trace.request_id().empty()) request.attributes.push_back({"request_id", trace.request_id()});
  if (trace.parent_id() != 0) {
    request.attributes.push_back({"parent_id", static_cast<int64_t>(trace.parent_id())});
  }
  const SpanId root = request.span_id;
  spans.push_back(std::move(request));

  builder.Add("cache_lookup", TracePoint::kCacheLookupStart, TracePoint::kCacheLookupEnd, root);
  const TracePoint queue_end =
      trace.At(TracePoint::kComputeStart) != 0 ? TracePoint::kComputeStart : TracePoint::kRequestEnd;
  const SpanId queue = builder.Add("queue", TracePoint::kQueueStart, queue_end, root);
  builder.Add("rate_limiter_wait", TracePoint::kRateLimitStart, TracePoint::kRateLimitEnd, queue);
  const SpanId compute =
      builder.Add("compute", TracePoint::kComputeStart, TracePoint::kComputeEnd, root);
  builder.Add("compute_input", TracePoint::kComputeStart, TracePoint::kComputeInputEnd, compute);
  builder.Add("compute_infer", TracePoint::kComputeInputEnd, TracePoint::kComputeOutputStart,
              compute);
  builder.Add("compute_output", TracePoint::kComputeOutputStart, TracePoint::kComputeEnd, compute);
  return spans;
}

OtelSpan BatchSpan(const std::string& model_name, int64_t model_version, uint64_t start_ns,
                   uint64_t end_ns, size_t batch_size, std::vector<SpanLink> members,
                   int64_t unix_minus_steady_ns) {
  OtelSpan span;
  span.trace_id = NewTraceId();
  span.span_id = NewSpanId();
  span.name = "batch";
  span.start_unix_ns = start_ns + unix_minus_steady_ns;
  span.end_unix_ns = end_ns + unix_minus_steady_ns;
  span.attributes = {{"model_name", model_name},
                     {"model_version", model_version},
                     {"batch_size", static_cast<int64_t>(batch_size)}};
  span.links = std::move(members);
  return span;
}

}  // namespace inferd
