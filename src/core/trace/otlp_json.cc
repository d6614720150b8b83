#include "core/trace/otlp_json.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <string_view>

#include "core/trace/otel_spans.h"

namespace inferd {
namespace {

constexpr char kDigits[] = "0123456789abcdef";

// Writers into a buffer sized beforehand (RecordBound): each returns the end
// of what it wrote. Constant text is copied with a size known at compile
// time, so a span is a few dozen stores, not a few dozen appends.
template <size_t N>
char* Lit(char* out, const char (&text)[N]) {
  std::memcpy(out, text, N - 1);
  return out + N - 1;
}

char* Raw(char* out, std::string_view text) {
  std::memcpy(out, text.data(), text.size());
  return out + text.size();
}

// A quoted JSON string: quotes, backslashes and control characters escaped
// (at most 6 bytes per byte, plus the quotes).
char* Quoted(char* out, std::string_view text) {
  *out++ = '"';
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x20 && c != '"' && c != '\\') {
      *out++ = c;
    } else if (c == '"' || c == '\\') {
      *out++ = '\\';
      *out++ = c;
    } else {
      out = Lit(out, "\\u00");
      *out++ = kDigits[byte >> 4];
      *out++ = kDigits[byte & 0xf];
    }
  }
  *out++ = '"';
  return out;
}

template <size_t N>
char* QuotedHex(char* out, const std::array<uint8_t, N>& bytes) {
  *out++ = '"';
  for (uint8_t byte : bytes) {
    *out++ = kDigits[byte >> 4];
    *out++ = kDigits[byte & 0xf];
  }
  *out++ = '"';
  return out;
}

template <typename Integer>
char* QuotedNumber(char* out, Integer value) {
  *out++ = '"';
  out = std::to_chars(out, out + 20, value).ptr;
  *out++ = '"';
  return out;
}

// `key` is ours: it needs no escaping.
char* IntAttribute(char* out, std::string_view key, int64_t value) {
  out = Raw(Lit(out, "{\"key\":\""), key);
  return Lit(QuotedNumber(Lit(out, "\",\"value\":{\"intValue\":"), value), "}}");
}

char* StringAttribute(char* out, std::string_view key, std::string_view value) {
  out = Quoted(Lit(out, "{\"key\":"), key);
  return Lit(Quoted(Lit(out, ",\"value\":{\"stringValue\":"), value), "}}");
}

char* RootAttributes(char* out, const SpanRecord& record) {
  out = Lit(StringAttribute(out, "model_name", record.model_name), ",");
  out = Lit(IntAttribute(out, "model_version", record.model_version), ",");
  if (record.kind == SpanRecord::Kind::kBatch) {
    return IntAttribute(out, "batch_size", record.batch_size);
  }
  out = IntAttribute(out, "inferd.trace_id", static_cast<int64_t>(record.trace_number));
  if (!record.request_id.empty()) {
    out = StringAttribute(Lit(out, ","), "request_id", record.request_id);
  }
  if (record.parent_number != 0) {
    out = IntAttribute(Lit(out, ","), "parent_id", static_cast<int64_t>(record.parent_number));
  }
  return out;
}

char* Links(char* out, const SpanRecord& record) {
  out = Lit(out, ",\"links\":[");
  for (size_t i = 0; i < record.link_count; ++i) {
    const SpanLink& link = record.Link(i);
    if (i > 0) *out++ = ',';
    out = QuotedHex(Lit(out, "{\"traceId\":"), link.trace_id);
    out = Lit(QuotedHex(Lit(out, ",\"spanId\":"), link.span_id), "}");
  }
  return Lit(out, "]");
}

// What the spans of `record` can take at most, escaping included.
size_t RecordBound(const SpanRecord& record, size_t spans) {
  constexpr size_t kSpan = 420;       // ids, times, kind, keys and punctuation
  constexpr size_t kAttributes = 480;  // the root's keys and numbers, the links' brackets
  constexpr size_t kLink = 90;
  return spans * (kSpan + 6 * (record.trace_state.size() + record.model_name.size())) +
         kAttributes + 6 * (record.model_name.size() + record.request_id.size()) +
         kLink * record.link_count;
}

// Bytes 0..N of every span of a record: {"traceId":"<hex>","spanId":"
struct SpanHead {
  static constexpr size_t kSize = sizeof("{\"traceId\":") - 1 + 34 + sizeof(",\"spanId\":") - 1;
  char text[kSize];
  explicit SpanHead(const TraceId& trace_id) {
    Lit(QuotedHex(Lit(text, "{\"traceId\":"), trace_id), ",\"spanId\":");
  }
};

char* Span(char* out, const SpanRecord& record, const SpanHead& head, const SpanView& span,
           int64_t offset) {
  out = QuotedHex(Raw(out, std::string_view(head.text, SpanHead::kSize)), span.span_id);
  bool root_parent = true;
  for (uint8_t byte : span.parent_span_id) root_parent = root_parent && byte == 0;
  if (!root_parent) out = QuotedHex(Lit(out, ",\"parentSpanId\":"), span.parent_span_id);
  if (!record.trace_state.empty()) out = Quoted(Lit(out, ",\"traceState\":"), record.trace_state);
  out = Lit(out, ",\"name\":");
  // Only the root's name (a model's) is the user's; the others are ours.
  out = span.root ? Quoted(out, span.name) : Lit(Raw(Lit(out, "\""), span.name), "\"");
  out = Lit(out, ",\"kind\":");
  *out++ = static_cast<char>('0' + static_cast<int>(span.kind));
  out = QuotedNumber(Lit(out, ",\"startTimeUnixNano\":"), span.start_ns + offset);
  out = QuotedNumber(Lit(out, ",\"endTimeUnixNano\":"), span.end_ns + offset);
  out = Lit(out, ",\"attributes\":[");
  if (span.root) out = RootAttributes(out, record);
  out = Lit(out, "]");
  if (span.root && record.link_count > 0) out = Links(out, record);
  return Lit(out, "}");
}

}  // namespace

OtlpJsonEncoder::OtlpJsonEncoder(const ResourceAttributes& resource) {
  size_t bound = 200;
  for (const auto& [key, value] : resource) bound += 60 + 6 * (key.size() + value.size());
  head_.resize(bound);
  char* out = Lit(head_.data(), "{\"resourceSpans\":[{\"resource\":{\"attributes\":[");
  for (size_t i = 0; i < resource.size(); ++i) {
    if (i > 0) out = Lit(out, ",");
    out = StringAttribute(out, resource[i].first, resource[i].second);
  }
  out = Lit(out, "]},\"scopeSpans\":[{\"scope\":{\"name\":\"inferd\"},\"spans\":[");
  head_.resize(static_cast<size_t>(out - head_.data()));
}

std::string_view OtlpJsonEncoder::EncodeAll(const SpanRecord* const* records, size_t count,
                                           int64_t unix_minus_steady_ns, std::string* buffer,
                                           size_t* spans) const {
  constexpr std::string_view kTail = "]}]}]}";
  size_t used = 0;
  // Makes room for `more` bytes after `used`.
  const auto reserve = [&](size_t more) {
    if (buffer->size() < used + more) buffer->resize(std::max(2 * buffer->size(), used + more));
  };
  reserve(head_.size());
  used = static_cast<size_t>(Raw(buffer->data(), head_) - buffer->data());
  *spans = 0;
  for (size_t r = 0; r < count; ++r) {
    const SpanRecord& record = *records[r];
    const uint32_t slots = QueuedSpanSlots(record);
    reserve(RecordBound(record, SlotCount(slots)));
    char* out = buffer->data() + used;
    const SpanHead head(record.trace_id);
    for (uint32_t left = slots; left != 0; left &= left - 1) {
      if ((*spans)++ > 0) *out++ = ',';
      const auto slot = static_cast<size_t>(__builtin_ctz(left));
      out = Span(out, record, head, SpanAt(record, slot), unix_minus_steady_ns);
    }
    used = static_cast<size_t>(out - buffer->data());
  }
  reserve(kTail.size());
  used = static_cast<size_t>(Raw(buffer->data() + used, kTail) - buffer->data());
  return std::string_view(buffer->data(), used);
}

}  // namespace inferd
