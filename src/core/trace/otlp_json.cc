#include "core/trace/otlp_json.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

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
    Member(writer, "intValue", std::to_string(std::get<int64_t>(value)));
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
    Member(writer, "traceId", Hex(link.trace_id));
    Member(writer, "spanId", Hex(link.span_id));
    writer.EndObject();
  }
  writer.EndArray();
}

void Span(Writer& writer, const OtelSpan& span) {
  writer.StartObject();
  Member(writer, "traceId", Hex(span.trace_id));
  Member(writer, "spanId", Hex(span.span_id));
  if (!IsRoot(span.parent_span_id)) Member(writer, "parentSpanId", Hex(span.parent_span_id));
  if (!span.trace_state.empty()) Member(writer, "traceState", span.trace_state);
  Member(writer, "name", span.name);
  writer.Key("kind");
  writer.Int(static_cast<int>(span.kind));
  Member(writer, "startTimeUnixNano", std::to_string(span.start_unix_ns));
  Member(writer, "endTimeUnixNano", std::to_string(span.end_unix_ns));
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
