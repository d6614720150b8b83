#include "core/trace/otlp_json.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <array>
#include <charconv>

namespace inferd {
namespace {

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

void String(Writer& writer, const std::string& text) {
  writer.String(text.data(), static_cast<rapidjson::SizeType>(text.size()));
}

void Member(Writer& writer, const char* key, const std::string& value) {
  writer.Key(key);
  String(writer, value);
}

// Ids and numbers are written from stack buffers: encoding a span allocates
// nothing but the output.
template <size_t N>
void HexMember(Writer& writer, const char* key, const std::array<uint8_t, N>& id) {
  static constexpr char kDigits[] = "0123456789abcdef";
  char text[2 * N];
  for (size_t i = 0; i < N; ++i) {
    text[2 * i] = kDigits[id[i] >> 4];
    text[2 * i + 1] = kDigits[id[i] & 0xf];
  }
  writer.Key(key);
  writer.String(text, static_cast<rapidjson::SizeType>(2 * N));
}

template <typename Integer>
void DecimalMember(Writer& writer, const char* key, Integer value) {
  char text[24];
  const auto end = std::to_chars(text, text + sizeof(text), value).ptr;
  writer.Key(key);
  writer.String(text, static_cast<rapidjson::SizeType>(end - text));
}

// {"key": k, "value": {"stringValue": v} | {"intValue": "n"}}
void Attribute(Writer& writer, const std::string& key,
               const std::variant<std::string, int64_t>& value) {
  writer.StartObject();
  Member(writer, "key", key);
  writer.Key("value");
  writer.StartObject();
  if (const auto* text = std::get_if<std::string>(&value)) {
    Member(writer, "stringValue", *text);
  } else {
    DecimalMember(writer, "intValue", std::get<int64_t>(value));
  }
  writer.EndObject();
  writer.EndObject();
}

bool IsRoot(const SpanId& id) {
  for (uint8_t byte : id) {
    if (byte != 0) return false;
  }
  return true;
}

void Links(Writer& writer, const std::vector<SpanLink>& links) {
  writer.Key("links");
  writer.StartArray();
  for (const SpanLink& link : links) {
    writer.StartObject();
    HexMember(writer, "traceId", link.trace_id);
    HexMember(writer, "spanId", link.span_id);
    writer.EndObject();
  }
  writer.EndArray();
}

void Span(Writer& writer, const OtelSpan& span) {
  writer.StartObject();
  HexMember(writer, "traceId", span.trace_id);
  HexMember(writer, "spanId", span.span_id);
  if (!IsRoot(span.parent_span_id)) HexMember(writer, "parentSpanId", span.parent_span_id);
  if (!span.trace_state.empty()) Member(writer, "traceState", span.trace_state);
  Member(writer, "name", span.name);
  writer.Key("kind");
  writer.Int(static_cast<int>(span.kind));
  DecimalMember(writer, "startTimeUnixNano", span.start_unix_ns);
  DecimalMember(writer, "endTimeUnixNano", span.end_unix_ns);
  writer.Key("attributes");
  writer.StartArray();
  for (const SpanAttribute& attribute : span.attributes) {
    Attribute(writer, attribute.key, attribute.value);
  }
  writer.EndArray();
  if (!span.links.empty()) Links(writer, span.links);
  if (!span.error.empty()) {
    writer.Key("status");
    writer.StartObject();
    Member(writer, "message", span.error);
    writer.Key("code");
    writer.Int(2);  // STATUS_CODE_ERROR
    writer.EndObject();
  }
  writer.EndObject();
}

}  // namespace

std::string EncodeOtlpJson(const ResourceAttributes& resource, const std::vector<OtelSpan>& spans) {
  rapidjson::StringBuffer buffer;
  Writer writer(buffer);
  writer.StartObject();
  writer.Key("resourceSpans");
  writer.StartArray();
  writer.StartObject();
  writer.Key("resource");
  writer.StartObject();
  writer.Key("attributes");
  writer.StartArray();
  for (const auto& [key, value] : resource) Attribute(writer, key, value);
  writer.EndArray();
  writer.EndObject();
  writer.Key("scopeSpans");
  writer.StartArray();
  writer.StartObject();
  writer.Key("scope");
  writer.StartObject();
  Member(writer, "name", "inferd");
  writer.EndObject();
  writer.Key("spans");
  writer.StartArray();
  for (const OtelSpan& span : spans) Span(writer, span);
  writer.EndArray();
  writer.EndObject();
  writer.EndArray();
  writer.EndObject();
  writer.EndArray();
  writer.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize());
}

}  // namespace inferd
