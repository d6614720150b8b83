#include "core/trace/otlp_json.h"

#include <charconv>
#include <string_view>

#include "core/trace/otel_spans.h"

namespace inferd {
namespace {

// Appends to one buffer; what it appends is valid JSON text as long as the
// caller's structure is.
class JsonOut {
 public:
  explicit JsonOut(std::string* out) : out_(*out) {}

  JsonOut& Raw(std::string_view text) {
    out_.append(text);
    return *this;
  }
  // A quoted JSON string: quotes, backslashes and control characters escaped.
  JsonOut& Quoted(std::string_view text) {
    out_.push_back('"');
    size_t plain = 0;
    for (size_t i = 0; i < text.size(); ++i) {
      const auto c = static_cast<unsigned char>(text[i]);
      if (c >= 0x20 && c != '"' && c != '\\') continue;
      out_.append(text.substr(plain, i - plain));
      Escape(c);
      plain = i + 1;
    }
    out_.append(text.substr(plain));
    out_.push_back('"');
    return *this;
  }
  template <size_t N>
  JsonOut& QuotedHex(const std::array<uint8_t, N>& bytes) {
    static constexpr char kDigits[] = "0123456789abcdef";
    char text[2 * N + 2];
    text[0] = text[2 * N + 1] = '"';
    for (size_t i = 0; i < N; ++i) {
      text[1 + 2 * i] = kDigits[bytes[i] >> 4];
      text[2 + 2 * i] = kDigits[bytes[i] & 0xf];
    }
    out_.append(text, sizeof(text));
    return *this;
  }
  template <typename Integer>
  JsonOut& Number(Integer value) {
    char text[24];
    out_.append(text, std::to_chars(text, text + sizeof(text), value).ptr);
    return *this;
  }
  template <typename Integer>
  JsonOut& QuotedNumber(Integer value) {
    out_.push_back('"');
    Number(value);
    out_.push_back('"');
    return *this;
  }

 private:
  void Escape(unsigned char c) {
    static constexpr char kDigits[] = "0123456789abcdef";
    if (c == '"' || c == '\\') {
      const char escaped[2] = {'\\', static_cast<char>(c)};
      out_.append(escaped, 2);
      return;
    }
    const char escaped[6] = {'\\', 'u', '0', '0', kDigits[c >> 4], kDigits[c & 0xf]};
    out_.append(escaped, 6);
  }

  std::string& out_;
};

void StringAttribute(JsonOut& out, std::string_view key, std::string_view value) {
  out.Raw("{\"key\":").Quoted(key).Raw(",\"value\":{\"stringValue\":").Quoted(value).Raw("}}");
}

// `key` needs no escaping (ours).
void IntAttribute(JsonOut& out, std::string_view key, int64_t value) {
  out.Raw("{\"key\":\"").Raw(key).Raw("\",\"value\":{\"intValue\":").QuotedNumber(value).Raw("}}");
}

void RootAttributes(JsonOut& out, const SpanRecord& record) {
  StringAttribute(out, "model_name", record.model_name);
  out.Raw(",");
  IntAttribute(out, "model_version", record.model_version);
  out.Raw(",");
  if (record.kind == SpanRecord::Kind::kBatch) {
    IntAttribute(out, "batch_size", record.batch_size);
    return;
  }
  IntAttribute(out, "inferd.trace_id", static_cast<int64_t>(record.trace_number));
  if (!record.request_id.empty()) {
    out.Raw(",");
    StringAttribute(out, "request_id", record.request_id);
  }
  if (record.parent_number != 0) {
    out.Raw(",");
    IntAttribute(out, "parent_id", static_cast<int64_t>(record.parent_number));
  }
}

void Links(JsonOut& out, const SpanRecord& record) {
  out.Raw(",\"links\":[");
  for (size_t i = 0; i < record.link_count; ++i) {
    const SpanLink& link = record.Link(i);
    out.Raw(i == 0 ? "{\"traceId\":" : ",{\"traceId\":").QuotedHex(link.trace_id);
    out.Raw(",\"spanId\":").QuotedHex(link.span_id).Raw("}");
  }
  out.Raw("]");
}

bool IsZero(const SpanId& id) {
  for (uint8_t byte : id) {
    if (byte != 0) return false;
  }
  return true;
}

void Span(JsonOut& out, const SpanRecord& record, const SpanView& span, int64_t offset) {
  out.Raw("{\"traceId\":").QuotedHex(record.trace_id).Raw(",\"spanId\":").QuotedHex(span.span_id);
  if (!IsZero(span.parent_span_id)) out.Raw(",\"parentSpanId\":").QuotedHex(span.parent_span_id);
  if (!record.trace_state.empty()) out.Raw(",\"traceState\":").Quoted(record.trace_state);
  out.Raw(",\"name\":").Quoted(span.name).Raw(",\"kind\":").Number(static_cast<int>(span.kind));
  out.Raw(",\"startTimeUnixNano\":").QuotedNumber(span.start_ns + offset);
  out.Raw(",\"endTimeUnixNano\":").QuotedNumber(span.end_ns + offset).Raw(",\"attributes\":[");
  if (span.root) RootAttributes(out, record);
  out.Raw("]");
  if (span.root && record.link_count > 0) Links(out, record);
  out.Raw("}");
}

}  // namespace

OtlpJsonEncoder::OtlpJsonEncoder(const ResourceAttributes& resource) {
  JsonOut out(&head_);
  out.Raw("{\"resourceSpans\":[{\"resource\":{\"attributes\":[");
  for (size_t i = 0; i < resource.size(); ++i) {
    if (i > 0) out.Raw(",");
    StringAttribute(out, resource[i].first, resource[i].second);
  }
  out.Raw("]},\"scopeSpans\":[{\"scope\":{\"name\":\"inferd\"},\"spans\":[");
}

size_t OtlpJsonEncoder::Encode(const SpanRecord* records, size_t count,
                               int64_t unix_minus_steady_ns, std::string* body) const {
  body->assign(head_);
  JsonOut out(body);
  size_t spans = 0;
  for (size_t r = 0; r < count; ++r) {
    const SpanRecord& record = records[r];
    for (uint32_t slots = SpanSlots(record); slots != 0; slots &= slots - 1) {
      const auto slot = static_cast<size_t>(__builtin_ctz(slots));
      if (spans++ > 0) out.Raw(",");
      Span(out, record, SpanAt(record, slot), unix_minus_steady_ns);
    }
  }
  out.Raw("]}]}]}");
  return spans;
}

}  // namespace inferd
