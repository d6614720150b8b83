#include "core/model/model_instance.h"

#include <pthread.h>

#include <chrono>

#include "core/common/c_error.h"
#include "core/backend/backend_library.h"
#include "core/timing/clock.h"
#include "core/common/logging.h"
#include "core/infer/inference_request.h"
#include "core/model/model_version.h"
#include "core/scheduler/scheduler.h"
#include "core/stats/compute_tally.h"
#include "core/trace/otel_spans.h"
#include "core/trace/request_trace.h"
#include "core/trace/trace_collector.h"

namespace inferd {

ModelInstance::ModelInstance(ModelVersion* model, std::string name, INFERD_InstanceKind kind,
                             int32_t device_id, bool passive)
    : model_(model), name_(std::move(name)), kind_(kind), device_id_(device_id), passive_(passive) {}

ModelInstance::~ModelInstance() { Join(); }

Status ModelInstance::Initialize() {
  if (auto init = model_->backend().instance_initialize()) {
    RETURN_IF_ERROR(TakeError(init(handle())).WithPrefix("instance '" + name_ + "': "));
  }
  initialized_ = true;
  return Status::Ok();
}

void ModelInstance::Finalize() {
  if (!initialized_) return;
  initialized_ = false;
  if (auto fini = model_->backend().instance_finalize()) {
    Status status = TakeError(fini(handle()));
    if (!status.ok()) {
      LOG_ERROR("model '{}' instance '{}' failed to finalize: {}", model_->name(), name_,
                status.message());
    }
  }
}

void ModelInstance::Start(BatchSource* source, size_t index) {
  if (thread_.joinable()) return;  // started by an earlier try that then failed
  thread_ = std::thread([this, source, index] {
    // Named so that per-thread CPU (top -H, /proc/PID/task/*/comm, bench/onnx_mlp.py)
    // tells the execution threads from the frontends' and the runtimes' own.
    pthread_setname_np(pthread_self(), "inferd-instance");
    Run(source, index);
  });
}

void ModelInstance::Join() {
  if (thread_.joinable()) thread_.join();
}

void ModelInstance::Run(BatchSource* source, size_t index) {
  if (host_policy_ != nullptr) {
    Status bound = ApplyHostPolicy(*host_policy_);
    if (!bound.ok()) {
      LOG_ERROR("model '{}' instance '{}': {}", model_->name(), name_, bound.message());
    }
  }
  std::vector<InferenceRequest*> batch;
  while (true) {
    batch.clear();
    if (!source->NextBatch(index, &batch)) break;
    const size_t count = batch.size();
    if (ticket_ != nullptr) WaitForResources(batch);
    Execute(batch);
    if (ticket_ != nullptr) limiter_->Release(ticket_);
    source->BatchDone(index, count);
  }
}

void ModelInstance::WaitForResources(const std::vector<InferenceRequest*>& batch) {
  const Clock& clock = model_->clock();
  const uint64_t start_ns = clock.NowNs();
  limiter_->Acquire(ticket_);
  const uint64_t end_ns = clock.NowNs();
  model_->stats().RecordRateLimiterWait(end_ns - start_ns);
  for (InferenceRequest* request : batch) {
    if (!request->trace) continue;
    request->trace->Record(TracePoint::kRateLimitStart, start_ns);
    request->trace->Record(TracePoint::kRateLimitEnd, end_ns);
  }
}

namespace {

// Cancelled requests are answered here and never reach the backend.
void AnswerCancelled(std::vector<InferenceRequest*>& batch) {
  std::erase_if(batch, [](InferenceRequest* request) {
    if (!request->cancelled()) return false;
    request->RespondWithError(Status::Cancelled("request for model '" + request->model_name() +
                                                "' was cancelled"));
    request->Release();
    return true;
  });
}

// What an execution's statistics and traces need of its batch, read before
// execute: the backend may release the requests at once.
struct BatchStart {
  uint64_t count = 0;  // client requests: a sequence batch's padding rows do not count
  uint64_t rows = 0;
  // Traced requests of the batch, held past execute (which may release them)
  // to record COMPUTE_END; empty, so allocation-free, for untraced batches.
  std::vector<std::shared_ptr<RequestTrace>> traces;
  // The ensembles' tallies of its step requests, held likewise to add the
  // execution's compute times; empty for almost all batches.
  std::vector<std::shared_ptr<ComputeTally>> tallies;
};

// Marks `batch` as executing from `start_ns`; records each request's queue
// time in `stats` unless null.
BatchStart StartBatch(const std::vector<InferenceRequest*>& batch, uint64_t start_ns,
                      ModelStatistics* stats) {
  BatchStart started;
  for (InferenceRequest* request : batch) {
    request->execute_start_ns = start_ns;
    request->admission.LeaveQueue();
    if (!request->counts_in_stats) continue;
    ++started.count;
    if (stats != nullptr) stats->RecordQueue(start_ns - request->QueuedSinceNs());
    started.rows += request->batch_size > 0 ? request->batch_size : 1;
    if (request->trace) {
      request->trace->Record(TracePoint::kComputeStart, start_ns);
      started.traces.push_back(request->trace);
    }
    if (request->compute_tally) started.tallies.push_back(request->compute_tally);
  }
  return started;
}

}  // namespace

namespace {

// In opentelemetry mode, the span of an execution whose batch held traced
// requests, linked to each (otel_spans.h).
void ExportBatchSpan(const ModelVersion& model, const std::vector<std::shared_ptr<RequestTrace>>& traces,
                     size_t batch_size, uint64_t start_ns, uint64_t end_ns) {
  OtlpExporter* exporter = traces.front()->collector() ? traces.front()->collector()->exporter()
                                                       : nullptr;
  if (exporter == nullptr) return;  // triton mode: the file has no batches
  SpanRecord& record = *exporter->NewRecord();  // cleared, filled in place
  record.kind = SpanRecord::Kind::kBatch;
  record.trace_id = NewTraceId();
  record.span_id = NewSpanId();
  record.ns[static_cast<size_t>(TracePoint::kRequestStart)] = start_ns;
  record.ns[static_cast<size_t>(TracePoint::kRequestEnd)] = end_ns;
  record.model_version = model.version();
  record.batch_size = static_cast<uint32_t>(batch_size);
  record.model_name.assign(model.name());
  for (const auto& trace : traces) record.AddLink({trace->span().trace_id, trace->span().span_id});
  exporter->Submit(&record);
}

}  // namespace

void ModelInstance::Execute(std::vector<InferenceRequest*>& batch, bool record_stats) {
  AnswerCancelled(batch);
  if (batch.empty()) return;
  ModelStatistics& stats = model_->stats();
  const Clock& clock = model_->clock();
  const uint64_t start_ns = clock.NowNs();
  BatchStart started = StartBatch(batch, start_ns, record_stats ? &stats : nullptr);
  const uint64_t count = started.count;
  const uint64_t rows = started.rows;
  if (record_stats && count > 0) stats.RecordExecutionStart(count, rows, clock.WallMs());
  compute_start_ns_ = compute_end_ns_ = 0;
  if (stats.saturation) stats.saturation->Begin(start_ns);
  Status status = TakeError(model_->backend().execute()(
      handle(), reinterpret_cast<INFERD_Request**>(batch.data()),
      static_cast<uint32_t>(batch.size())));
  const uint64_t end_ns = clock.NowNs();
  if (stats.saturation) stats.saturation->End(start_ns, end_ns);
  // Without a report from the backend the whole execution is compute_infer.
  const bool reported = compute_start_ns_ >= start_ns && compute_start_ns_ <= compute_end_ns_ &&
                        compute_end_ns_ <= end_ns;
  const uint64_t infer_start = reported ? compute_start_ns_ : start_ns;
  const uint64_t infer_end = reported ? compute_end_ns_ : end_ns;
  if (count > 0) model_->ObserveExecution(count, end_ns - start_ns);
  if (record_stats && count > 0) {
    stats.RecordExecutionTime(count, rows, infer_start - start_ns, infer_end - infer_start,
                              end_ns - infer_end);
  }
  for (const auto& trace : started.traces) {
    trace->Record(TracePoint::kComputeInputEnd, infer_start);
    trace->RecordComputeEnd(end_ns);
  }
  if (!started.traces.empty()) ExportBatchSpan(*model_, started.traces, batch.size(), start_ns, end_ns);
  started.traces.clear();
  for (const auto& tally : started.tallies) {
    tally->Add(infer_start - start_ns, infer_end - infer_start, end_ns - infer_end);
  }
  started.tallies.clear();
  if (status.ok()) return;
  // The backend kept nothing: answer and release every request ourselves.
  Status failure = status.WithPrefix("model '" + model_->name() + "' version " +
                                     std::to_string(model_->version()) + ": ");
  for (InferenceRequest* request : batch) {
    request->RespondWithError(failure);
    request->Release();
  }
}

}  // namespace inferd
