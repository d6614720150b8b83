#include "core/trace/otel_spans.h"

#include <gtest/gtest.h>

#include <map>

#include "core/trace/otlp_json.h"

namespace inferd {
namespace {

std::map<std::string, const OtelSpan*> ByName(const std::vector<OtelSpan>& spans) {
  std::map<std::string, const OtelSpan*> named;
  for (const OtelSpan& span : spans) named[span.name] = &span;
  return named;
}

TEST(OtelSpansTest, ARequestsSpansNestAsDocumented) {
  RequestTrace trace(7, nullptr, "m", 1, "req-1");
  const auto caller = ParseTraceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
  trace.set_span({caller->trace_id, NewSpanId(), caller->span_id, "k=v"});
  trace.Record(TracePoint::kRequestStart, 100);
  trace.Record(TracePoint::kQueueStart, 110);
  trace.Record(TracePoint::kRateLimitStart, 115);
  trace.Record(TracePoint::kRateLimitEnd, 118);
  trace.Record(TracePoint::kComputeStart, 120);
  trace.Record(TracePoint::kComputeInputEnd, 125);
  trace.Record(TracePoint::kComputeOutputStart, 170);
  trace.Record(TracePoint::kComputeEnd, 180);
  trace.Record(TracePoint::kRequestEnd, 190);
  const std::vector<OtelSpan> spans = RequestSpans(trace, 1000);
  auto named = ByName(spans);
  ASSERT_EQ(named.size(), 7u);  // no cache lookup
  const OtelSpan& request = *named.at("m");
  EXPECT_EQ(request.trace_id, caller->trace_id);
  EXPECT_EQ(request.parent_span_id, caller->span_id);
  EXPECT_EQ(request.kind, SpanKind::kServer);
  EXPECT_EQ(request.start_unix_ns, 1100u);
  EXPECT_EQ(request.end_unix_ns, 1190u);
  EXPECT_EQ(request.trace_state, "k=v");
  EXPECT_EQ(named.at("queue")->parent_span_id, request.span_id);
  EXPECT_EQ(named.at("queue")->end_unix_ns, 1120u);
  EXPECT_EQ(named.at("rate_limiter_wait")->parent_span_id, named.at("queue")->span_id);
  EXPECT_EQ(named.at("compute")->parent_span_id, request.span_id);
  for (const char* part : {"compute_input", "compute_infer", "compute_output"}) {
    EXPECT_EQ(named.at(part)->parent_span_id, named.at("compute")->span_id) << part;
    EXPECT_EQ(named.at(part)->trace_id, caller->trace_id) << part;
  }
  EXPECT_EQ(named.at("compute_infer")->start_unix_ns, 1125u);
  EXPECT_EQ(named.at("compute_infer")->end_unix_ns, 1170u);
}

TEST(OtelSpansTest, ARequestAnsweredFromTheCacheHasNoComputeSpans) {
  RequestTrace trace(8, nullptr, "m", 1, "");
  trace.set_span({NewTraceId(), NewSpanId(), SpanId{}, ""});
  trace.Record(TracePoint::kRequestStart, 100);
  trace.Record(TracePoint::kQueueStart, 110);
  trace.Record(TracePoint::kCacheLookupStart, 111);
  trace.Record(TracePoint::kCacheLookupEnd, 115);
  trace.Record(TracePoint::kRequestEnd, 120);
  auto named = ByName(RequestSpans(trace, 0));
  EXPECT_EQ(named.size(), 3u);
  EXPECT_EQ(named.count("compute"), 0u);
  EXPECT_EQ(named.at("queue")->end_unix_ns, 120u);
  EXPECT_EQ(named.at("cache_lookup")->parent_span_id, named.at("m")->span_id);
}

TEST(OtelSpansTest, TheTritonFileKeepsTritonsPointsOnly) {
  RequestTrace trace(9, nullptr, "m", 1, "");
  trace.Record(TracePoint::kRequestStart, 100);
  trace.Record(TracePoint::kCacheLookupStart, 101);
  EXPECT_EQ(trace.Json().find("CACHE"), std::string::npos) << trace.Json();
}

TEST(OtelSpansTest, BatchSpanLinksItsRequests) {
  const SpanLink a{NewTraceId(), NewSpanId()};
  const SpanLink b{NewTraceId(), NewSpanId()};
  const OtelSpan batch = BatchSpan("m", 2, 10, 20, 4, {a, b}, 5);
  EXPECT_EQ(batch.name, "batch");
  ASSERT_EQ(batch.links.size(), 2u);
  EXPECT_EQ(batch.links[1].span_id, b.span_id);
  const std::string json = EncodeOtlpJson({{"service.name", "inferd"}}, {batch});
  EXPECT_NE(json.find("\"links\":[{\"traceId\":\"" + Hex(a.trace_id) + "\""), std::string::npos)
      << json;
  EXPECT_NE(json.find("\"batch_size\",\"value\":{\"intValue\":\"4\"}"), std::string::npos) << json;
  EXPECT_NE(json.find("\"startTimeUnixNano\":\"15\""), std::string::npos) << json;
}

TEST(OtlpJsonTest, EncodesResourceScopeAndSpanFields) {
  OtelSpan span;
  span.trace_id =
      ParseTraceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")->trace_id;
  span.span_id = NewSpanId();
  span.name = "q\"uote";
  span.kind = SpanKind::kServer;
  span.error = "boom";
  const std::string json = EncodeOtlpJson({{"service.name", "inferd"}}, {span});
  for (const char* part :
       {R"({"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"inferd"}}]})",
        R"("scope":{"name":"inferd"})", R"("traceId":"4bf92f3577b34da6a3ce929d0e0e4736")",
        R"("name":"q\"uote","kind":2)", R"("status":{"message":"boom","code":2})"}) {
    EXPECT_NE(json.find(part), std::string::npos) << part << " in " << json;
  }
  EXPECT_EQ(json.find("parentSpanId"), std::string::npos) << "a root span has no parent";
}

}  // namespace
}  // namespace inferd
