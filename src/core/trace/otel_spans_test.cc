#include "core/trace/otel_spans.h"

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <map>
#include <set>

#include "core/trace/otlp_json.h"

namespace inferd {
namespace {

constexpr const char* kCaller = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

SpanRecord Request(std::initializer_list<std::pair<TracePoint, uint64_t>> points) {
  SpanRecord record;
  record.trace_id = NewTraceId();
  record.span_id = NewSpanId();
  record.model_name = "m";
  record.model_version = 1;
  record.trace_number = 7;
  for (const auto& [point, ns] : points) record.ns[static_cast<size_t>(point)] = ns;
  return record;
}

// The encoded spans of `records`, by name (the JSON values live in `doc`).
std::map<std::string, const rapidjson::Value*> Encode(const std::vector<SpanRecord>& records,
                                                      int64_t offset, rapidjson::Document* doc) {
  std::string buffer;
  size_t count = 0;
  OtlpJsonEncoder encoder(ResourceAttributes{{"service.name", "inferd"}});
  const std::string body(encoder.Encode(records.data(), records.size(), offset, &buffer, &count));
  doc->Parse(body.c_str());
  EXPECT_FALSE(doc->HasParseError()) << body;
  std::map<std::string, const rapidjson::Value*> named;
  const auto& spans = (*doc)["resourceSpans"][0]["scopeSpans"][0]["spans"];
  EXPECT_EQ(spans.Size(), count);
  for (const auto& span : spans.GetArray()) named[span["name"].GetString()] = &span;
  return named;
}

std::string Field(const rapidjson::Value* span, const char* name) {
  return span->HasMember(name) ? (*span)[name].GetString() : "";
}

TEST(OtelSpansTest, ARequestsSpansNestAsDocumented) {
  SpanRecord record = Request({{TracePoint::kRequestStart, 100}, {TracePoint::kQueueStart, 110},
                               {TracePoint::kRateLimitStart, 115}, {TracePoint::kRateLimitEnd, 118},
                               {TracePoint::kComputeStart, 120}, {TracePoint::kComputeInputEnd, 125},
                               {TracePoint::kComputeOutputStart, 170}, {TracePoint::kComputeEnd, 180},
                               {TracePoint::kRequestEnd, 190}});
  const auto caller = ParseTraceparent(kCaller);
  record.trace_id = caller->trace_id;
  record.parent_span_id = caller->span_id;
  record.trace_state = "k=v";
  record.request_id = "req-1";
  EXPECT_EQ(SpanCount(record), 7u);  // no cache lookup
  rapidjson::Document doc;
  auto named = Encode({record}, 1000, &doc);
  ASSERT_EQ(named.size(), 7u);
  const rapidjson::Value* request = named.at("m");
  EXPECT_EQ(Field(request, "traceId"), Hex(caller->trace_id));
  EXPECT_EQ(Field(request, "parentSpanId"), Hex(caller->span_id));
  EXPECT_EQ((*request)["kind"].GetInt(), 2);  // SERVER
  EXPECT_EQ(Field(request, "startTimeUnixNano"), "1100");
  EXPECT_EQ(Field(request, "endTimeUnixNano"), "1190");
  EXPECT_EQ(Field(request, "traceState"), "k=v");
  EXPECT_EQ((*request)["attributes"].Size(), 4u);  // model_name, model_version, inferd.trace_id, request_id
  const std::string root = Field(request, "spanId");
  EXPECT_EQ(Field(named.at("queue"), "parentSpanId"), root);
  EXPECT_EQ(Field(named.at("queue"), "endTimeUnixNano"), "1120");
  EXPECT_EQ(Field(named.at("rate_limiter_wait"), "parentSpanId"), Field(named.at("queue"), "spanId"));
  EXPECT_EQ(Field(named.at("compute"), "parentSpanId"), root);
  for (const char* part : {"compute_input", "compute_infer", "compute_output"}) {
    EXPECT_EQ(Field(named.at(part), "parentSpanId"), Field(named.at("compute"), "spanId")) << part;
    EXPECT_EQ(Field(named.at(part), "traceId"), Hex(caller->trace_id)) << part;
    EXPECT_EQ((*named.at(part))["kind"].GetInt(), 1) << part;  // INTERNAL
  }
  EXPECT_EQ(Field(named.at("compute_infer"), "startTimeUnixNano"), "1125");
  EXPECT_EQ(Field(named.at("compute_infer"), "endTimeUnixNano"), "1170");
  std::set<std::string> ids;
  for (const auto& [name, span] : named) ids.insert(Field(span, "spanId"));
  EXPECT_EQ(ids.size(), 7u) << "span ids are distinct";
}

TEST(OtelSpansTest, ARequestAnsweredFromTheCacheHasNoComputeSpans) {
  const SpanRecord record =
      Request({{TracePoint::kRequestStart, 100}, {TracePoint::kQueueStart, 110},
               {TracePoint::kCacheLookupStart, 111}, {TracePoint::kCacheLookupEnd, 115},
               {TracePoint::kRequestEnd, 120}});
  rapidjson::Document doc;
  auto named = Encode({record}, 0, &doc);
  EXPECT_EQ(named.size(), 3u);
  EXPECT_EQ(named.count("compute"), 0u);
  EXPECT_EQ(Field(named.at("queue"), "endTimeUnixNano"), "120");
  EXPECT_EQ(Field(named.at("cache_lookup"), "parentSpanId"), Field(named.at("m"), "spanId"));
  EXPECT_EQ(Field(named.at("m"), "parentSpanId"), "") << "a root span has no parent";
}

TEST(OtelSpansTest, AnUnfinishedRequestHasNoSpans) {
  EXPECT_EQ(SpanCount(Request({{TracePoint::kRequestStart, 100}})), 0u);
  // A child whose parent is missing is left out with it.
  EXPECT_EQ(SpanCount(Request({{TracePoint::kRequestStart, 100}, {TracePoint::kRateLimitStart, 101},
                               {TracePoint::kRateLimitEnd, 102}, {TracePoint::kRequestEnd, 103}})),
            1u);
}

TEST(OtelSpansTest, TheTritonFileKeepsTritonsPointsOnly) {
  RequestTrace trace(9, nullptr, "m", 1, "");
  trace.Record(TracePoint::kRequestStart, 100);
  trace.Record(TracePoint::kCacheLookupStart, 101);
  EXPECT_EQ(trace.Json().find("CACHE"), std::string::npos) << trace.Json();
}

TEST(OtelSpansTest, BatchSpanLinksItsRequests) {
  SpanRecord batch = Request({{TracePoint::kRequestStart, 10}, {TracePoint::kRequestEnd, 20}});
  batch.kind = SpanRecord::Kind::kBatch;
  batch.batch_size = 4;
  std::vector<SpanLink> links(6);
  for (SpanLink& link : links) {
    link = {NewTraceId(), NewSpanId()};
    batch.AddLink(link);  // past the inline ones too
  }
  rapidjson::Document doc;
  auto named = Encode({batch}, 5, &doc);
  const rapidjson::Value* span = named.at("batch");
  ASSERT_EQ((*span)["links"].Size(), 6u);
  EXPECT_EQ(Field(&(*span)["links"][5], "spanId"), Hex(links[5].span_id));
  EXPECT_EQ(Field(&(*span)["links"][0], "traceId"), Hex(links[0].trace_id));
  EXPECT_EQ(Field(span, "startTimeUnixNano"), "15");
  EXPECT_EQ(Field(span, "parentSpanId"), "");
  EXPECT_EQ(Field(&(*span)["attributes"][2], "key"), "batch_size");
  EXPECT_EQ(Field(&(*span)["attributes"][2]["value"], "intValue"), "4");
}

TEST(OtlpJsonTest, EncodesResourceScopeAndEscapesNames) {
  SpanRecord record = Request({{TracePoint::kRequestStart, 1}, {TracePoint::kRequestEnd, 2}});
  record.model_name = "q\"uo\\te\n";
  std::string buffer;
  size_t count = 0;
  const std::string body(OtlpJsonEncoder(ResourceAttributes{{"service.name", "inferd"}, {"k", "v"}})
                             .Encode(&record, 1, 0, &buffer, &count));
  for (const char* part :
       {R"({"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"inferd"}},{"key":"k","value":{"stringValue":"v"}}]})",
        R"("scope":{"name":"inferd"})", R"("name":"q\"uo\\te\u000a","kind":2)"}) {
    EXPECT_NE(body.find(part), std::string::npos) << part << " in " << body;
  }
  rapidjson::Document doc;
  doc.Parse(body.c_str());
  ASSERT_FALSE(doc.HasParseError()) << body;
  EXPECT_EQ(std::string(doc["resourceSpans"][0]["scopeSpans"][0]["spans"][0]["name"].GetString()),
            record.model_name);
}

TEST(OtlpJsonTest, StringsThatAllNeedEscapingStillFitTheBuffer) {
  // Every byte escaped to \u00XX: the most a record's strings can take.
  const std::string worst(300, '\x01');
  SpanRecord record = Request({{TracePoint::kRequestStart, 1}, {TracePoint::kQueueStart, 2},
                               {TracePoint::kComputeStart, 3}, {TracePoint::kComputeInputEnd, 4},
                               {TracePoint::kComputeOutputStart, 5}, {TracePoint::kComputeEnd, 6},
                               {TracePoint::kRequestEnd, 7}});
  record.model_name = record.request_id = record.trace_state = worst;
  record.parent_number = 3;
  SpanRecord batch = Request({{TracePoint::kRequestStart, 1}, {TracePoint::kRequestEnd, 2}});
  batch.kind = SpanRecord::Kind::kBatch;
  batch.model_name = worst;
  for (int i = 0; i < 100; ++i) batch.AddLink({NewTraceId(), NewSpanId()});
  rapidjson::Document doc;
  auto named = Encode({record, batch, record}, -1, &doc);
  ASSERT_EQ(named.count(worst), 1u);
  EXPECT_EQ(Field(named.at(worst), "traceState"), worst);
  EXPECT_EQ((*named.at("batch"))["links"].Size(), 100u);
}

}  // namespace
}  // namespace inferd
