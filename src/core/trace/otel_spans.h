// The spans of a finished request trace (opentelemetry mode), built from
// its timestamps when the trace finishes, so the request path records only
// what triton mode records:
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
// recorded is left out.
#ifndef INFERD_CORE_TRACE_OTEL_SPANS_H_
#define INFERD_CORE_TRACE_OTEL_SPANS_H_

#include <cstdint>
#include <vector>

#include "core/trace/otel_span.h"
#include "core/trace/request_trace.h"

namespace inferd {

// The system clock minus the steady clock now, in ns: what turns the steady
// timestamps of a trace into the Unix times OTLP carries.
int64_t UnixMinusSteadyNs();

// `trace`'s spans, in the order above.
std::vector<OtelSpan> RequestSpans(const RequestTrace& trace, int64_t unix_minus_steady_ns);

// A span for one execution of a batch that held traced requests: a root span
// of its own trace ("batch", from `start_ns` to `end_ns` steady) linked to
// the request span of each traced member, as OpenTelemetry models work done
// for many requests at once.
OtelSpan BatchSpan(const std::string& model_name, int64_t model_version, uint64_t start_ns,
                   uint64_t end_ns, size_t batch_size, std::vector<SpanLink> members,
                   int64_t unix_minus_steady_ns);

}  // namespace inferd

#endif  // INFERD_CORE_TRACE_OTEL_SPANS_H_
