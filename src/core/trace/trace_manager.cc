#include "core/trace/trace_manager.h"

#include "core/timing/clock.h"
#include "core/trace/trace_pool.h"

namespace inferd {
namespace {

// `base` with every field `overrides` states replaced.
TraceSettings Resolve(const TraceSettings& base, const TraceOverrides& overrides) {
  TraceSettings settings = base;
  if (overrides.level) settings.level = *overrides.level;
  if (overrides.rate) settings.rate = *overrides.rate;
  if (overrides.count) settings.count = *overrides.count;
  if (overrides.log_frequency) settings.log_frequency = *overrides.log_frequency;
  return settings;
}

Status Check(const TraceSettings& settings, const std::string& model) {
  const std::string problem = TraceSettingsProblem(settings);
  if (problem.empty()) return Status::Ok();
  return Status::InvalidArg("cannot apply the trace settings" +
                            (model.empty() ? std::string() : " of model '" + model + "'") +
                            ": " + problem);
}

// The exporter of opentelemetry mode; null in triton mode.
StatusOr<std::shared_ptr<OtlpExporter>> MakeExporter(const TraceSettings& settings) {
  if (settings.mode != TraceMode::kOpenTelemetry) return std::shared_ptr<OtlpExporter>();
  ASSIGN_OR_RETURN(OtlpEndpoint endpoint, ParseOtlpUrl(settings.opentelemetry.url));
  ResourceAttributes resource = settings.opentelemetry.resource;
  bool named = false;
  for (const auto& [key, value] : resource) named = named || key == "service.name";
  if (!named) resource.insert(resource.begin(), {"service.name", "inferd"});
  constexpr uint32_t kExportTimeoutMs = 10000;  // OTLP exporters' default
  std::unique_ptr<SpanEncoder> encoder = MakeSpanEncoder(settings.opentelemetry.protocol, resource);
  auto transport = std::make_unique<OtlpHttpTransport>(std::move(endpoint), kExportTimeoutMs,
                                                       std::string(encoder->content_type()));
  return std::make_shared<OtlpExporter>(settings.opentelemetry.batch, std::move(encoder),
                                        std::move(transport));
}

}  // namespace

StatusOr<std::unique_ptr<TraceManager>> TraceManager::Create(TraceSettings defaults) {
  const std::string problem = TraceSettingsProblem(defaults);
  if (!problem.empty()) return Status::InvalidArg("--trace-config: " + problem);
  ASSIGN_OR_RETURN(std::shared_ptr<OtlpExporter> exporter, MakeExporter(defaults));
  return std::unique_ptr<TraceManager>(new TraceManager(std::move(defaults), std::move(exporter)));
}

TraceManager::TraceManager(TraceSettings defaults, std::shared_ptr<OtlpExporter> exporter)
    : defaults_(std::move(defaults)),
      file_(std::make_shared<TraceFile>(defaults_.file)),
      exporter_(std::move(exporter)) {
  Retired retired;
  MutexLock lock(&mu_);
  Install(global_, defaults_, &retired);
}

TraceManager::~TraceManager() { Flush(); }

std::shared_ptr<RequestTrace> TraceManager::MaybeTrace(TraceEntry* entry,
                                                       const std::string& model_name,
                                                       int64_t model_version,
                                                       const std::string& request_id,
                                                       const TraceContext& context) {
  TraceSampler* sampler = entry->active_.load(std::memory_order_acquire);
  if (sampler != nullptr && sampler->Hit()) {
    return Begin(sampler, model_name, model_version, request_id, &context);
  }
  if (!context.sampled) return nullptr;
  sampler = entry->forced_.load(std::memory_order_acquire);
  if (sampler == nullptr) return nullptr;  // triton mode, level OFF, count used up
  return Begin(sampler, model_name, model_version, request_id, &context);
}

TraceEntry* TraceManager::EntryFor(const std::string& model) {
  MutexLock lock(&mu_);
  ModelTrace& trace = ModelFor(model);
  PublishEntry(trace);  // not every model's: each load asks, so that was quadratic
  return &trace.entry;
}

TraceManager::ModelTrace& TraceManager::ModelFor(const std::string& model) {
  auto found = models_.find(model);
  if (found == models_.end()) {
    found = models_.emplace(model, std::make_unique<ModelTrace>()).first;
  }
  return *found->second;
}

std::shared_ptr<RequestTrace> TraceManager::BeginChild(const RequestTrace& parent,
                                                       const std::string& model_name,
                                                       int64_t model_version,
                                                       const std::string& request_id) {
  if (parent.collector() == nullptr) return nullptr;
  const uint64_t id = next_id_.fetch_add(1, std::memory_order_relaxed);
  parent.collector()->TakeChild();
  auto trace = std::allocate_shared<RequestTrace>(TracePoolAllocator<RequestTrace>(), id,
                                                  parent.collector(), model_name, model_version,
                                                  request_id);
  trace->set_parent_id(parent.id());
  if (exporter_ != nullptr) {
    trace->set_span(SpanIdentity{parent.span().trace_id, NewSpanId(), parent.span().span_id,
                                 parent.span().trace_state});
  }
  trace->Record(TracePoint::kRequestStart, Clock::Steady().NowNs());
  return trace;
}

std::shared_ptr<RequestTrace> TraceManager::Begin(TraceSampler* sampler,
                                                  const std::string& model_name,
                                                  int64_t model_version,
                                                  const std::string& request_id,
                                                  const TraceContext* context) {
  // The setting may have changed since the sampler was read (a caller's
  // sampled context is traced at rate 0 too).
  const bool forced = context != nullptr && context->sampled && exporter_ != nullptr;
  std::shared_ptr<TraceCollector> collector = sampler->uncounted_.load(std::memory_order_acquire);
  if (collector != nullptr) {
    // No count: nothing to take, and nothing to keep exact (a collector
    // without a count writes on log_frequency and flushes, never on taken).
    if (!forced && sampler->rate_.load(std::memory_order_relaxed) == 0) return nullptr;
  } else {
    collector = TakeCounted(sampler, forced);
    if (collector == nullptr) return nullptr;
  }
  auto trace = std::allocate_shared<RequestTrace>(
      TracePoolAllocator<RequestTrace>(), next_id_.fetch_add(1, std::memory_order_relaxed),
      std::move(collector), model_name, model_version, request_id);
  if (exporter_ != nullptr) {
    SpanIdentity span;
    span.span_id = NewSpanId();
    if (context != nullptr) {
      span.trace_id = context->trace_id;
      span.parent_span_id = context->span_id;
      span.trace_state = context->tracestate;
    } else {
      span.trace_id = NewTraceId();
    }
    trace->set_span(std::move(span));
  }
  trace->Record(TracePoint::kRequestStart, Clock::Steady().NowNs());
  return trace;
}

std::shared_ptr<TraceCollector> TraceManager::TakeCounted(TraceSampler* sampler, bool forced) {
  MutexLock lock(&mu_);
  if (!forced && sampler->rate_.load(std::memory_order_relaxed) == 0) return nullptr;
  // A model's own sampler whose overrides were just cleared has no collector.
  if (!sampler->settings_.Traces() || sampler->collector_ == nullptr) return nullptr;
  const bool taken = sampler->collector_->Take();
  if (!taken || sampler->collector_->remaining() == 0) {
    // The count ran out: stop sampling until a client sets a new one.
    sampler->rate_.store(0, std::memory_order_relaxed);
    Republish();
  }
  return taken ? sampler->collector_ : nullptr;
}

TraceSettings TraceManager::CurrentOf(const TraceSampler& sampler) const {
  TraceSettings settings = sampler.settings_;
  if (sampler.collector_) settings.count = sampler.collector_->remaining();
  return settings;
}

TraceSettings TraceManager::Current(const std::string& model) const {
  MutexLock lock(&mu_);
  if (!model.empty()) {
    auto found = models_.find(model);
    if (found != models_.end() && !found->second->overrides.empty()) {
      return CurrentOf(found->second->own);
    }
  }
  return CurrentOf(global_);
}

void TraceManager::Install(TraceSampler& sampler, const TraceSettings& settings,
                           Retired* retired) {
  if (sampler.collector_) retired->push_back(std::move(sampler.collector_));
  sampler.settings_ = settings;
  sampler.collector_ =
      std::make_shared<TraceCollector>(file_, settings.log_frequency, settings.count, exporter_);
  sampler.uncounted_.store(settings.Traces() && settings.count < 0 ? sampler.collector_ : nullptr,
                           std::memory_order_release);
  sampler.seen_.store(0, std::memory_order_relaxed);
  sampler.rate_.store(settings.Sampling() ? settings.rate : 0, std::memory_order_relaxed);
}

TraceSettings TraceManager::ResolveModel(const ModelTrace& model, const TraceOverrides& overrides,
                                         bool keep_count) const {
  TraceSettings settings = Resolve(CurrentOf(global_), overrides);
  if (keep_count && overrides.count && model.own.collector_) {
    settings.count = model.own.collector_->remaining();
  }
  return settings;
}

Status TraceManager::Update(const std::string& model, const TraceSettingsUpdate& update) {
  // Declared before the lock: replaced collectors flush after it is released.
  Retired retired;
  MutexLock lock(&mu_);
  const bool keep_count = update.count.keep();
  if (model.empty()) {
    const TraceOverrides overrides = ApplyUpdate(global_overrides_, update);
    TraceSettings settings = Resolve(defaults_, overrides);
    if (keep_count) settings.count = CurrentOf(global_).count;
    RETURN_IF_ERROR(Check(settings, model));
    global_overrides_ = overrides;
    Install(global_, settings, &retired);
    // Models that state only some fields take the others from the new global
    // setting, as in Triton.
    for (auto& [name, trace] : models_) {
      if (trace->overrides.empty()) continue;
      Install(trace->own, ResolveModel(*trace, trace->overrides, true), &retired);
    }
  } else {
    ModelTrace& trace = ModelFor(model);
    const TraceOverrides overrides = ApplyUpdate(trace.overrides, update);
    if (overrides.empty()) {
      trace.overrides = overrides;
      trace.own.uncounted_.store(nullptr, std::memory_order_release);
      if (trace.own.collector_) retired.push_back(std::move(trace.own.collector_));
      trace.own.rate_.store(0, std::memory_order_relaxed);
    } else {
      const TraceSettings settings = ResolveModel(trace, overrides, keep_count);
      RETURN_IF_ERROR(Check(settings, model));
      trace.overrides = overrides;
      Install(trace.own, settings, &retired);
    }
  }
  Republish();
  return Status::Ok();
}

void TraceManager::Republish() {
  for (auto& [name, trace] : models_) PublishEntry(*trace);
}

void TraceManager::PublishEntry(ModelTrace& trace) {
  TraceSampler* sampler = trace.overrides.empty() ? &global_ : &trace.own;
  const bool sampling = sampler->rate_.load(std::memory_order_relaxed) > 0;
  trace.entry.active_.store(sampling ? sampler : nullptr, std::memory_order_release);
  const bool forced = exporter_ != nullptr && sampler->settings_.Traces() &&
                      sampler->collector_ != nullptr && sampler->collector_->remaining() != 0;
  trace.entry.forced_.store(forced ? sampler : nullptr, std::memory_order_release);
}

void TraceManager::Flush() {
  Retired collectors;
  {
    MutexLock lock(&mu_);
    if (global_.collector_) collectors.push_back(global_.collector_);
    for (auto& [name, trace] : models_) {
      if (trace->own.collector_) collectors.push_back(trace->own.collector_);
    }
  }
  for (const auto& collector : collectors) collector->Flush();
  if (exporter_ != nullptr) exporter_->Flush();
}

}  // namespace inferd
