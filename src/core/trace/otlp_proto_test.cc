#include "core/trace/otlp_proto.h"

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <map>
#include <string>
#include <vector>

#include "core/trace/otel_spans.h"
#include "core/trace/otlp_json.h"

namespace inferd {
namespace {

// A protobuf message read field by field: what a receiver sees, without the
// schema (varints and fixed64 as numbers, length-delimited as bytes).
struct Field {
  uint32_t number = 0;
  uint64_t number_value = 0;
  std::string bytes;
};

std::vector<Field> Read(std::string_view message) {
  std::vector<Field> fields;
  size_t at = 0;
  const auto varint = [&] {
    uint64_t value = 0;
    for (int shift = 0;; shift += 7) {
      if (at >= message.size() || shift > 63) {
        ADD_FAILURE() << "truncated varint";
        return value;
      }
      const auto byte = static_cast<uint8_t>(message[at++]);
      value |= uint64_t{byte & 0x7fu} << shift;
      if ((byte & 0x80) == 0) return value;
    }
  };
  while (at < message.size()) {
    const uint64_t tag = varint();
    Field field;
    field.number = static_cast<uint32_t>(tag >> 3);
    switch (tag & 7) {
      case 0: field.number_value = varint(); break;
      case 1:
        for (int i = 0; i < 8 && at < message.size(); ++i) {
          field.number_value |= uint64_t{static_cast<uint8_t>(message[at++])} << (8 * i);
        }
        break;
      case 2: {
        const uint64_t size = varint();
        EXPECT_LE(at + size, message.size()) << "field " << field.number << " overruns";
        field.bytes = std::string(message.substr(at, size));
        at += size;
        break;
      }
      default: ADD_FAILURE() << "wire type " << (tag & 7); return fields;
    }
    fields.push_back(std::move(field));
  }
  return fields;
}

std::vector<std::string> All(std::string_view message, uint32_t number) {
  std::vector<std::string> found;
  for (const Field& field : Read(message)) {
    if (field.number == number) found.push_back(field.bytes);
  }
  return found;
}

const Field* One(const std::vector<Field>& fields, uint32_t number) {
  for (const Field& field : fields) {
    if (field.number == number) return &field;
  }
  return nullptr;
}

std::string Hex(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string hex;
  for (const char c : bytes) {
    hex += kDigits[static_cast<uint8_t>(c) >> 4];
    hex += kDigits[static_cast<uint8_t>(c) & 0xf];
  }
  return hex;
}

// "key=value" of a KeyValue, a string value as is, an int as its decimal
// (as OTLP/JSON writes both).
std::string Attribute(std::string_view pair) {
  const auto fields = Read(pair);
  const auto value = Read(One(fields, 2)->bytes);
  const Field* string_value = One(value, 1);
  if (string_value != nullptr) return One(fields, 1)->bytes + "=" + string_value->bytes;
  return One(fields, 1)->bytes + "=" +
         std::to_string(static_cast<int64_t>(One(value, 3)->number_value));
}

// One span in a form both encodings can be put in.
std::string ProtoSpan(std::string_view span) {
  const auto fields = Read(span);
  const auto text = [&](uint32_t number, bool hex) {
    const Field* field = One(fields, number);
    return field == nullptr ? std::string() : hex ? Hex(field->bytes) : field->bytes;
  };
  std::string out = text(1, true) + " " + text(2, true) + " " + text(3, false) + " " +
                    text(4, true) + " " + text(5, false) + " " +
                    std::to_string(One(fields, 6)->number_value) + " " +
                    std::to_string(One(fields, 7)->number_value) + " " +
                    std::to_string(One(fields, 8)->number_value);
  for (const std::string& pair : All(span, 9)) out += " " + Attribute(pair);
  for (const std::string& link : All(span, 13)) {
    const auto ids = Read(link);
    out += " link:" + Hex(One(ids, 1)->bytes) + "/" + Hex(One(ids, 2)->bytes);
  }
  return out;
}

std::string JsonSpan(const rapidjson::Value& span) {
  const auto text = [&](const char* name) {
    return span.HasMember(name) ? std::string(span[name].GetString()) : std::string();
  };
  std::string out = text("traceId") + " " + text("spanId") + " " + text("traceState") + " " +
                    text("parentSpanId") + " " + text("name") + " " +
                    std::to_string(span["kind"].GetInt()) + " " + text("startTimeUnixNano") +
                    " " + text("endTimeUnixNano");
  for (const auto& pair : span["attributes"].GetArray()) {
    const auto& value = pair["value"];
    out += " " + std::string(pair["key"].GetString()) + "=" +
           (value.HasMember("stringValue") ? value["stringValue"].GetString()
                                           : value["intValue"].GetString());
  }
  if (span.HasMember("links")) {
    for (const auto& link : span["links"].GetArray()) {
      out += " link:" + std::string(link["traceId"].GetString()) + "/" + link["spanId"].GetString();
    }
  }
  return out;
}

SpanRecord Record(std::initializer_list<TracePoint> points) {
  SpanRecord record;
  record.trace_id = NewTraceId();
  record.span_id = NewSpanId();
  record.model_name = "identity";
  record.model_version = 1;
  record.trace_number = 42;
  uint64_t ns = 1000;
  for (TracePoint point : points) record.ns[static_cast<size_t>(point)] = ns += 7;
  return record;
}

std::vector<SpanRecord> Records() {
  SpanRecord full = Record({TracePoint::kRequestStart, TracePoint::kQueueStart,
                            TracePoint::kCacheLookupStart, TracePoint::kCacheLookupEnd,
                            TracePoint::kRateLimitStart, TracePoint::kRateLimitEnd,
                            TracePoint::kComputeStart, TracePoint::kComputeInputEnd,
                            TracePoint::kComputeOutputStart, TracePoint::kComputeEnd,
                            TracePoint::kRequestEnd});
  full.parent_span_id = NewSpanId();
  full.trace_state = "k=v";
  full.request_id = "req-1";
  full.parent_number = 41;
  SpanRecord longer = Record({TracePoint::kRequestStart, TracePoint::kRequestEnd});
  longer.model_name = std::string(200, 'm');     // two-byte lengths
  longer.request_id = std::string(20000, 'r');  // three-byte lengths, around it too
  longer.model_version = -1;                     // a ten-byte varint
  SpanRecord batch = Record({TracePoint::kRequestStart, TracePoint::kRequestEnd});
  batch.kind = SpanRecord::Kind::kBatch;
  batch.batch_size = 6;
  for (int i = 0; i < 6; ++i) batch.AddLink({NewTraceId(), NewSpanId()});
  return {full, longer, batch};
}

// The spans of a protobuf body, checking the resource and scope on the way.
std::vector<std::string> DecodeProto(std::string_view body) {
  const auto resource_spans = All(body, 1);
  EXPECT_EQ(resource_spans.size(), 1u);
  if (resource_spans.empty()) return {};
  const auto fields = Read(resource_spans[0]);
  std::vector<std::string> resource;
  for (const std::string& pair : All(One(fields, 1)->bytes, 1)) resource.push_back(Attribute(pair));
  EXPECT_EQ(resource, (std::vector<std::string>{"service.name=inferd", "k=v"}));
  const auto scope_spans = Read(One(fields, 2)->bytes);
  EXPECT_EQ(One(Read(One(scope_spans, 1)->bytes), 1)->bytes, "inferd");
  std::vector<std::string> spans;
  for (const Field& field : scope_spans) {
    if (field.number == 2) spans.push_back(ProtoSpan(field.bytes));
  }
  return spans;
}

TEST(OtlpProtoTest, CarriesWhatTheJsonEncodingCarries) {
  const ResourceAttributes resource{{"service.name", "inferd"}, {"k", "v"}};
  const std::vector<SpanRecord> records = Records();
  const int64_t offset = 1'700'000'000'000'000'000;
  std::string buffer;
  size_t json_count = 0;
  const OtlpJsonEncoder json_encoder(resource);
  const std::string json(
      json_encoder.Encode(records.data(), records.size(), offset, &buffer, &json_count));
  rapidjson::Document doc;
  doc.Parse(json.c_str());
  ASSERT_FALSE(doc.HasParseError());
  std::vector<std::string> expected;
  for (const auto& span : doc["resourceSpans"][0]["scopeSpans"][0]["spans"].GetArray()) {
    expected.push_back(JsonSpan(span));
  }
  ASSERT_EQ(expected.size(), 1u + 8 + 1);

  OtlpProtoEncoder encoder(resource);
  size_t count = 0;
  std::string proto_buffer;
  const std::string body(
      encoder.Encode(records.data(), records.size(), offset, &proto_buffer, &count));
  EXPECT_EQ(count, expected.size());
  EXPECT_EQ(DecodeProto(body), expected);
  EXPECT_LT(body.size(), json.size());
  // The buffer is reused: a smaller batch after a larger one.
  const std::string small(encoder.Encode(records.data(), 1, offset, &proto_buffer, &count));
  EXPECT_EQ(count, 8u);
  EXPECT_EQ(DecodeProto(small), std::vector<std::string>(expected.begin(), expected.begin() + 8));
}

TEST(OtlpProtoTest, AnEmptyBatchIsAValidRequest) {
  OtlpProtoEncoder encoder(ResourceAttributes{{"service.name", "inferd"}, {"k", "v"}});
  std::string buffer;
  size_t count = 1;
  const std::string body(encoder.Encode(nullptr, 0, 0, &buffer, &count));
  EXPECT_EQ(count, 0u);
  EXPECT_TRUE(DecodeProto(body).empty());
  EXPECT_EQ(MakeSpanEncoder(OtlpProtocol::kHttpProtobuf, {})->content_type(),
            "application/x-protobuf");
  EXPECT_EQ(MakeSpanEncoder(OtlpProtocol::kHttpJson, {})->content_type(), "application/json");
}

}  // namespace
}  // namespace inferd
