#include "core/trace/request_trace.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "core/timing/clock.h"
#include "core/common/logging.h"
#include "core/trace/otlp_exporter.h"
#include "core/trace/span_record.h"
#include "core/trace/trace_collector.h"

namespace inferd {

const char* TracePointName(TracePoint point) {
  switch (point) {
    case TracePoint::kRequestStart: return "REQUEST_START";
    case TracePoint::kQueueStart: return "QUEUE_START";
    case TracePoint::kComputeStart: return "COMPUTE_START";
    case TracePoint::kComputeInputEnd: return "COMPUTE_INPUT_END";
    case TracePoint::kComputeOutputStart: return "COMPUTE_OUTPUT_START";
    case TracePoint::kComputeEnd: return "COMPUTE_END";
    case TracePoint::kRequestEnd: return "REQUEST_END";
    case TracePoint::kCacheLookupStart: return "CACHE_LOOKUP_START";
    case TracePoint::kCacheLookupEnd: return "CACHE_LOOKUP_END";
    case TracePoint::kRateLimitStart: return "RATE_LIMIT_START";
    case TracePoint::kRateLimitEnd: return "RATE_LIMIT_END";
  }
  return "UNKNOWN";
}

RequestTrace::RequestTrace(uint64_t id, std::shared_ptr<TraceCollector> collector,
                           std::string model_name, int64_t model_version, std::string request_id)
    : id_(id),
      collector_(std::move(collector)),
      model_name_(std::move(model_name)),
      model_version_(model_version),
      request_id_(std::move(request_id)) {}

RequestTrace::~RequestTrace() {
  if (collector_ == nullptr) return;
  try {
    if (discarded_.load(std::memory_order_relaxed)) {
      collector_->Abandon();
    } else if (OtlpExporter* exporter = collector_->exporter()) {
      // Nothing for the file, so the collector need not hear of it.
      ExportTo(*exporter);
    } else {
      collector_->Add(Json());
    }
  } catch (const std::exception& e) {
    LOG_ERROR("trace {} of model '{}' was lost: {}", id_, model_name_, e.what());
  }
}

void RequestTrace::ExportTo(OtlpExporter& exporter) {
  // Filled in place: the record comes cleared from the exporter's pool.
  SpanRecord& record = *exporter.NewRecord();
  record.trace_id = span_.trace_id;
  record.span_id = span_.span_id;
  record.parent_span_id = span_.parent_span_id;
  for (size_t i = 0; i < kTracePointCount; ++i) record.ns[i] = ns_[i].load(std::memory_order_acquire);
  record.trace_number = id_;
  record.parent_number = parent_id_;
  record.model_version = model_version_;
  // Assigned, not moved: the pooled record's strings keep their capacity.
  record.model_name.assign(model_name_);
  record.request_id.assign(request_id_);
  record.trace_state.assign(span_.trace_state);
  exporter.Submit(&record);
}

void RequestTrace::Record(TracePoint point, uint64_t ns) {
  uint64_t unset = 0;
  ns_[static_cast<size_t>(point)].compare_exchange_strong(unset, ns, std::memory_order_acq_rel);
}

std::string RequestTrace::Json() const {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  writer.StartObject();
  writer.Key("id");
  writer.Uint64(id_);
  if (parent_id_ != 0) {
    writer.Key("parent_id");
    writer.Uint64(parent_id_);
  }
  writer.Key("model_name");
  writer.String(model_name_.data(), static_cast<rapidjson::SizeType>(model_name_.size()));
  writer.Key("model_version");
  writer.Int64(model_version_);
  if (!request_id_.empty()) {
    writer.Key("request_id");
    writer.String(request_id_.data(), static_cast<rapidjson::SizeType>(request_id_.size()));
  }
  writer.Key("timestamps");
  writer.StartArray();
  for (size_t i = 0; i < kTritonTracePointCount; ++i) {
    const uint64_t ns = ns_[i].load(std::memory_order_acquire);
    if (ns == 0) continue;
    writer.StartObject();
    writer.Key("name");
    writer.String(TracePointName(static_cast<TracePoint>(i)));
    writer.Key("ns");
    writer.Uint64(ns);
    writer.EndObject();
  }
  writer.EndArray();
  writer.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize());
}

void TraceNow(const std::shared_ptr<RequestTrace>& trace, TracePoint point) {
  if (trace) trace->Record(point, Clock::Steady().NowNs());
}

}  // namespace inferd
