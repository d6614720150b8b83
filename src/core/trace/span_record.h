// What the request path hands the exporter when a trace finishes (or a batch
// executes): raw steady timestamps and ids, no span built yet. It is fixed
// size but for three strings moved out of the finished trace (a move, no
// copy: usually empty or short enough to sit inline). The spans are built
// from it in the exporter's thread while it encodes (otel_spans.h), so a
// traced request pays for one record, not for its spans.
#ifndef INFERD_CORE_TRACE_SPAN_RECORD_H_
#define INFERD_CORE_TRACE_SPAN_RECORD_H_

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "core/trace/request_trace.h"
#include "core/trace/trace_context.h"

namespace inferd {

struct SpanLink {
  TraceId trace_id{};
  SpanId span_id{};
};

struct SpanRecord {
  enum class Kind : uint8_t { kRequest, kBatch };
  // Links a batch record holds inline; more go to `more_links`.
  static constexpr size_t kInlineLinks = 4;

  Kind kind = Kind::kRequest;
  TraceId trace_id{};
  SpanId span_id{};         // the request's (or the batch's) span
  SpanId parent_span_id{};  // all zero: a root span
  // A request's points (TracePoint order); a batch's start and end are
  // kRequestStart and kRequestEnd.
  std::array<uint64_t, kTracePointCount> ns{};
  uint64_t trace_number = 0;   // inferd's trace id ("inferd.trace_id")
  uint64_t parent_number = 0;  // the parent request's trace (0: none)
  int64_t model_version = 0;
  uint32_t batch_size = 0;
  uint32_t link_count = 0;
  // Which spans of otel_spans.h's plan it holds (bit i: slot i), set by the
  // exporter when queued (0: not yet computed; a queued record holds one).
  uint32_t slots = 0;
  std::array<SpanLink, kInlineLinks> links{};
  std::vector<SpanLink> more_links;  // links past kInlineLinks (large batches)
  std::string model_name;
  std::string request_id;
  std::string trace_state;

  uint64_t At(TracePoint point) const { return ns[static_cast<size_t>(point)]; }
  // Back to a default record, keeping the strings' and links' capacity (the
  // exporter's queue reuses its records).
  void Clear() {
    kind = Kind::kRequest;
    trace_id = {};
    span_id = {};
    parent_span_id = {};
    ns = {};
    trace_number = parent_number = 0;
    model_version = 0;
    batch_size = link_count = slots = 0;
    more_links.clear();
    model_name.clear();
    request_id.clear();
    trace_state.clear();
  }
  void AddLink(const SpanLink& link) {
    if (link_count < kInlineLinks) {
      links[link_count] = link;
    } else {
      more_links.push_back(link);
    }
    ++link_count;
  }
  const SpanLink& Link(size_t i) const {
    return i < kInlineLinks ? links[i] : more_links[i - kInlineLinks];
  }
};

}  // namespace inferd

#endif  // INFERD_CORE_TRACE_SPAN_RECORD_H_
