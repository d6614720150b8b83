#include "core/trace/otlp_proto.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>

#include "core/trace/otel_spans.h"
#include "core/trace/otlp_json.h"

namespace inferd {
namespace {

// Wire types.
constexpr uint8_t kVarint = 0;
constexpr uint8_t kFixed64 = 1;
constexpr uint8_t kBytes = 2;

constexpr uint8_t Tag(uint8_t field, uint8_t wire_type) {
  return static_cast<uint8_t>(field << 3 | wire_type);
}

// Field numbers of opentelemetry/proto (all below 16: one-byte tags).
constexpr uint8_t kRequestResourceSpans = Tag(1, kBytes);  // ExportTraceServiceRequest
constexpr uint8_t kResourceSpansResource = Tag(1, kBytes);
constexpr uint8_t kResourceSpansScopeSpans = Tag(2, kBytes);
constexpr uint8_t kResourceAttributes = Tag(1, kBytes);
constexpr uint8_t kScopeSpansScope = Tag(1, kBytes);
constexpr uint8_t kScopeSpansSpans = Tag(2, kBytes);
constexpr uint8_t kScopeName = Tag(1, kBytes);
constexpr uint8_t kSpanTraceId = Tag(1, kBytes);
constexpr uint8_t kSpanSpanId = Tag(2, kBytes);
constexpr uint8_t kSpanTraceState = Tag(3, kBytes);
constexpr uint8_t kSpanParentSpanId = Tag(4, kBytes);
constexpr uint8_t kSpanName = Tag(5, kBytes);
constexpr uint8_t kSpanKind = Tag(6, kVarint);
constexpr uint8_t kSpanStart = Tag(7, kFixed64);
constexpr uint8_t kSpanEnd = Tag(8, kFixed64);
constexpr uint8_t kSpanAttributes = Tag(9, kBytes);
constexpr uint8_t kSpanLinks = Tag(13, kBytes);
constexpr uint8_t kLinkTraceId = Tag(1, kBytes);
constexpr uint8_t kLinkSpanId = Tag(2, kBytes);
constexpr uint8_t kKeyValueKey = Tag(1, kBytes);
constexpr uint8_t kKeyValueValue = Tag(2, kBytes);
constexpr uint8_t kAnyString = Tag(1, kBytes);
constexpr uint8_t kAnyInt = Tag(3, kVarint);

// The longest varint of a length (32 bits), and of any 64-bit value.
constexpr size_t kMaxLength = 5;
constexpr size_t kMaxVarint = 10;

size_t VarintSize(uint64_t value) {
  size_t size = 1;
  while (value >= 0x80) {
    value >>= 7;
    ++size;
  }
  return size;
}

char* Varint(char* out, uint64_t value) {
  while (value >= 0x80) {
    *out++ = static_cast<char>((value & 0x7f) | 0x80);
    value >>= 7;
  }
  *out++ = static_cast<char>(value);
  return out;
}

char* Byte(char* out, uint8_t byte) {
  *out++ = static_cast<char>(byte);
  return out;
}

// A length-delimited field holding `bytes`.
char* Bytes(char* out, uint8_t tag, const void* bytes, size_t size) {
  out = Varint(Byte(out, tag), size);
  std::memcpy(out, bytes, size);
  return out + size;
}

char* Text(char* out, uint8_t tag, std::string_view text) {
  return Bytes(out, tag, text.data(), text.size());
}

// An id: a length-delimited field of constant size, so the copy is a move or two.
template <size_t N>
char* Id(char* out, uint8_t tag, const std::array<uint8_t, N>& id) {
  static_assert(N < 0x80);
  *out++ = static_cast<char>(tag);
  *out++ = static_cast<char>(N);
  std::memcpy(out, id.data(), N);
  return out + N;
}

char* Fixed64(char* out, uint8_t tag, uint64_t value) {
  out = Byte(out, tag);
  if constexpr (std::endian::native == std::endian::little) {
    std::memcpy(out, &value, sizeof(value));
    return out + sizeof(value);
  }
  for (int i = 0; i < 8; ++i) *out++ = static_cast<char>(value >> (8 * i));  // little endian
  return out;
}

// A KeyValue (`tag`: the field holding it) with a string value.
char* StringAttribute(char* out, uint8_t tag, std::string_view key, std::string_view value) {
  const size_t any = 1 + VarintSize(value.size()) + value.size();
  const size_t pair = 1 + VarintSize(key.size()) + key.size() + 1 + VarintSize(any) + any;
  out = Text(Varint(Byte(out, tag), pair), kKeyValueKey, key);
  return Text(Varint(Byte(out, kKeyValueValue), any), kAnyString, value);
}

// A span attribute's head up to its value: the KeyValue's tag and length
// (`pair`), and the key, a literal, copied as a block of constant size.
template <size_t N>
char* SpanAttributeHead(char* out, const char (&key)[N], size_t pair) {
  constexpr size_t kKey = N - 1;
  static_assert(kKey < 0x80);
  out = Varint(Byte(out, kSpanAttributes), pair);
  *out++ = static_cast<char>(kKeyValueKey);
  *out++ = static_cast<char>(kKey);
  std::memcpy(out, key, kKey);
  return out + kKey;
}

template <size_t N>
char* SpanIntAttribute(char* out, const char (&key)[N], int64_t value) {
  const auto bits = static_cast<uint64_t>(value);
  const size_t any = 1 + VarintSize(bits);  // under 128
  out = SpanAttributeHead(out, key, 2 + (N - 1) + 2 + any);
  *out++ = static_cast<char>(kKeyValueValue);
  *out++ = static_cast<char>(any);
  *out++ = static_cast<char>(kAnyInt);
  return Varint(out, bits);
}

template <size_t N>
char* SpanStringAttribute(char* out, const char (&key)[N], std::string_view value) {
  const size_t any = 1 + VarintSize(value.size()) + value.size();
  out = SpanAttributeHead(out, key, 2 + (N - 1) + 1 + VarintSize(any) + any);
  return Text(Varint(Byte(out, kKeyValueValue), any), kAnyString, value);
}

char* RootAttributes(char* out, const SpanRecord& record) {
  out = SpanStringAttribute(out, "model_name", record.model_name);
  out = SpanIntAttribute(out, "model_version", record.model_version);
  if (record.kind == SpanRecord::Kind::kBatch) {
    return SpanIntAttribute(out, "batch_size", record.batch_size);
  }
  out = SpanIntAttribute(out, "inferd.trace_id", static_cast<int64_t>(record.trace_number));
  if (!record.request_id.empty()) out = SpanStringAttribute(out, "request_id", record.request_id);
  if (record.parent_number != 0) {
    out = SpanIntAttribute(out, "parent_id", static_cast<int64_t>(record.parent_number));
  }
  return out;
}

char* Links(char* out, const SpanRecord& record) {
  constexpr size_t kLink = 2 + sizeof(TraceId) + 2 + sizeof(SpanId);
  for (size_t i = 0; i < record.link_count; ++i) {
    const SpanLink& link = record.Link(i);
    out = Varint(Byte(out, kSpanLinks), kLink);
    out = Id(Id(out, kLinkTraceId, link.trace_id), kLinkSpanId, link.span_id);
  }
  return out;
}

// What the spans of `record` can take at most.
size_t RecordBound(const SpanRecord& record, size_t spans) {
  // Tags, lengths, ids, times and kind of one span, and the names of ours.
  constexpr size_t kSpan = 100;
  constexpr size_t kAttributes = 5 * (40 + kMaxVarint);  // the root's keys and numbers
  constexpr size_t kLink = 30;
  return spans * (kSpan + record.trace_state.size() + kMaxLength) + kAttributes +
         2 * record.model_name.size() + record.request_id.size() + kLink * record.link_count;
}

// One Span (with its tag and length) written at `out`: its fields go after
// one byte for its length, which most spans need (under 128 bytes), and
// move up when the length takes more.
char* Span(char* out, const SpanRecord& record, const SpanView& span, int64_t offset) {
  char* const body = out + 2;
  char* end = Id(Id(body, kSpanTraceId, record.trace_id), kSpanSpanId, span.span_id);
  if (!record.trace_state.empty()) end = Text(end, kSpanTraceState, record.trace_state);
  uint64_t parent = 0;
  std::memcpy(&parent, span.parent_span_id.data(), sizeof(parent));
  if (parent != 0) end = Id(end, kSpanParentSpanId, span.parent_span_id);  // 0: a root span
  end = Text(end, kSpanName, span.name);
  end = Varint(Byte(end, kSpanKind), static_cast<uint64_t>(span.kind));
  end = Fixed64(end, kSpanStart, span.start_ns + static_cast<uint64_t>(offset));
  end = Fixed64(end, kSpanEnd, span.end_ns + static_cast<uint64_t>(offset));
  if (span.root) {
    end = RootAttributes(end, record);
    if (record.link_count > 0) end = Links(end, record);
  }
  const auto size = static_cast<size_t>(end - body);
  char* const start = out + 1 + VarintSize(size);
  if (start != body) std::memmove(start, body, size);  // up: RecordBound left the room
  Varint(Byte(out, kScopeSpansSpans), size);
  return start + size;
}

}  // namespace

OtlpProtoEncoder::OtlpProtoEncoder(const ResourceAttributes& resource) {
  size_t bound = 0;
  for (const auto& [key, value] : resource) {
    bound += 3 * (1 + kMaxLength) + key.size() + value.size();
  }
  std::string attributes(bound, '\0');
  char* out = attributes.data();
  for (const auto& [key, value] : resource) {
    out = StringAttribute(out, kResourceAttributes, key, value);
  }
  attributes.resize(static_cast<size_t>(out - attributes.data()));
  resource_.resize(1 + kMaxLength + attributes.size());
  out = Text(resource_.data(), kResourceSpansResource, attributes);
  resource_.resize(static_cast<size_t>(out - resource_.data()));
  constexpr std::string_view kScope = "\x0a\x06inferd";  // InstrumentationScope.name
  static_assert(kScopeName == 0x0a);
  scope_.resize(1 + kMaxLength + kScope.size());
  out = Text(scope_.data(), kScopeSpansScope, kScope);
  scope_.resize(static_cast<size_t>(out - scope_.data()));
}

std::string_view OtlpProtoEncoder::EncodeAll(const SpanRecord* const* records, size_t count,
                                             int64_t unix_minus_steady_ns, std::string* buffer,
                                             size_t* spans) const {
  // Room before the spans for the outer tags and lengths, the resource and
  // the scope.
  const size_t head = 2 * (1 + kMaxLength) + resource_.size() + 1 + kMaxLength + scope_.size();
  size_t used = head;
  const auto reserve = [&](size_t more) {
    if (buffer->size() < used + more) buffer->resize(std::max(2 * buffer->size(), used + more));
  };
  reserve(0);
  *spans = 0;
  for (size_t r = 0; r < count; ++r) {
    const SpanRecord& record = *records[r];
    const uint32_t slots = QueuedSpanSlots(record);
    reserve(RecordBound(record, SlotCount(slots)));
    char* out = buffer->data() + used;
    for (uint32_t left = slots; left != 0; left &= left - 1) {
      const auto slot = static_cast<size_t>(__builtin_ctz(left));
      out = Span(out, record, SpanAt(record, slot), unix_minus_steady_ns);
      ++*spans;
    }
    used = static_cast<size_t>(out - buffer->data());
  }
  // ExportTraceServiceRequest { resource_spans { resource, scope_spans { scope, spans } } },
  // its heads written backwards from the first span.
  const size_t scope_spans = scope_.size() + (used - head);
  const size_t resource_spans = resource_.size() + 1 + VarintSize(scope_spans) + scope_spans;
  const size_t start = used - (1 + VarintSize(resource_spans) + resource_spans);
  char* out = buffer->data() + start;
  out = Varint(Byte(out, kRequestResourceSpans), resource_spans);
  out = std::copy(resource_.begin(), resource_.end(), out);
  out = Varint(Byte(out, kResourceSpansScopeSpans), scope_spans);
  std::copy(scope_.begin(), scope_.end(), out);
  return std::string_view(buffer->data() + start, used - start);
}

std::unique_ptr<SpanEncoder> MakeSpanEncoder(OtlpProtocol protocol,
                                             const ResourceAttributes& resource) {
  if (protocol == OtlpProtocol::kHttpJson) return std::make_unique<OtlpJsonEncoder>(resource);
  return std::make_unique<OtlpProtoEncoder>(resource);
}

}  // namespace inferd
