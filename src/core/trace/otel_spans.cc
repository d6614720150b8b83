#include "core/trace/otel_spans.h"

#include <chrono>
#include <cstring>

namespace inferd {
namespace {

struct SpanPlan {
  std::string_view name;  // empty: the request span, named after its model
  TracePoint from;
  TracePoint to;
  int parent;  // slot; -1: the record's parent
};

constexpr SpanPlan kPlan[kRequestSpanSlots] = {
    {"", TracePoint::kRequestStart, TracePoint::kRequestEnd, -1},
    {"cache_lookup", TracePoint::kCacheLookupStart, TracePoint::kCacheLookupEnd, 0},
    // Ends at COMPUTE_START, or at REQUEST_END for a request never computed.
    {"queue", TracePoint::kQueueStart, TracePoint::kComputeStart, 0},
    {"rate_limiter_wait", TracePoint::kRateLimitStart, TracePoint::kRateLimitEnd, 2},
    {"compute", TracePoint::kComputeStart, TracePoint::kComputeEnd, 0},
    {"compute_input", TracePoint::kComputeStart, TracePoint::kComputeInputEnd, 4},
    {"compute_infer", TracePoint::kComputeInputEnd, TracePoint::kComputeOutputStart, 4},
    {"compute_output", TracePoint::kComputeOutputStart, TracePoint::kComputeEnd, 4},
};

uint64_t EndOf(const SpanRecord& record, size_t slot) {
  const uint64_t end = record.At(kPlan[slot].to);
  if (slot == 2 && end == 0) return record.At(TracePoint::kRequestEnd);
  return end;
}

// splitmix64's finalizer: distinct inputs give distinct, well-spread outputs.
uint64_t Mix(uint64_t x) {
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

SpanId ChildId(const SpanId& root, size_t slot) {
  uint64_t word = 0;  // the id's bytes read big-endian
  std::memcpy(&word, root.data(), sizeof(word));
  uint64_t child = Mix(__builtin_bswap64(word) + slot * 0x9e3779b97f4a7c15ull);
  if (child == 0) child = slot;  // ids are never all zero
  child = __builtin_bswap64(child);
  SpanId id;
  std::memcpy(id.data(), &child, sizeof(child));
  return id;
}

}  // namespace

uint32_t SpanSlots(const SpanRecord& record) {
  if (record.kind == SpanRecord::Kind::kBatch) return 1;
  uint32_t slots = 0;
  for (size_t slot = 0; slot < kRequestSpanSlots; ++slot) {
    const uint64_t start = record.At(kPlan[slot].from);
    const uint64_t end = EndOf(record, slot);
    const int parent = kPlan[slot].parent;
    if (start == 0 || end < start || (parent >= 0 && (slots & (1u << parent)) == 0)) continue;
    slots |= 1u << slot;
  }
  return slots;
}

SpanView SpanAt(const SpanRecord& record, size_t slot) {
  SpanView view;
  view.start_ns = record.At(kPlan[slot].from);
  view.end_ns = EndOf(record, slot);
  if (slot == 0) {
    view.root = true;
    view.span_id = record.span_id;
    view.parent_span_id = record.parent_span_id;
    const bool batch = record.kind == SpanRecord::Kind::kBatch;
    view.name = batch ? std::string_view("batch") : std::string_view(record.model_name);
    view.kind = batch || record.parent_number != 0 ? SpanKind::kInternal : SpanKind::kServer;
    return view;
  }
  view.name = kPlan[slot].name;
  view.span_id = ChildId(record.span_id, slot);
  const int parent = kPlan[slot].parent;
  view.parent_span_id = parent == 0 ? record.span_id : ChildId(record.span_id, parent);
  return view;
}

int64_t UnixMinusSteadyNs() {
  const auto unix_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
      std::chrono::system_clock::now().time_since_epoch());
  const auto steady_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
      std::chrono::steady_clock::now().time_since_epoch());
  return static_cast<int64_t>(unix_ns.count() - steady_ns.count());
}

}  // namespace inferd
