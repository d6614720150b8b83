// The trace extension's state: the global trace setting, each model's
// overrides, and the sampling of requests.
//
// A model's setting falls back, field by field, to the global one; clearing
// every field a model states removes its override. Each setting samples with
// its own counter (every rate-th request) and count, and its traces go to its
// own collector, replaced whenever the setting changes (so a change starts a
// fresh sample, as in Triton).
//
// The request path is lock-free until a request is sampled: a loaded model
// version keeps its model's TraceEntry, and MaybeTrace costs one atomic load
// when tracing is off for the model; when it is on, a second load (the rate)
// and one shared increment. No lock, no allocation. A sampled request takes
// the manager's lock only while its setting has a count (trace_count), which
// the lock keeps exact; without one (the default) its trace id comes from an
// atomic counter and its collector from an atomic pointer.
// Thread-safe.
#ifndef INFERD_CORE_TRACE_TRACE_MANAGER_H_
#define INFERD_CORE_TRACE_TRACE_MANAGER_H_

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "inferd/base/status.h"
#include "inferd/base/mutex.h"
#include "core/trace/otlp_exporter.h"
#include "core/trace/request_trace.h"
#include "core/trace/trace_context.h"
#include "core/trace/trace_collector.h"
#include "core/trace/trace_file.h"
#include "core/trace/trace_settings.h"

namespace inferd {

// One trace setting in force (the global one or a model's): its effective
// values and its sampling counter. Lives as long as its manager.
class TraceSampler {
 public:
  // True for every rate-th call while the setting samples.
  bool Hit() {
    const uint32_t rate = rate_.load(std::memory_order_relaxed);
    if (rate == 0) return false;
    return (seen_.fetch_add(1, std::memory_order_relaxed) + 1) % rate == 0;
  }

 private:
  friend class TraceManager;
  std::atomic<uint32_t> rate_{0};  // 0 while not sampling
  std::atomic<uint64_t> seen_{0};
  // The collector while the setting traces without a count (-1): a trace
  // taken from it cannot run the count out, so Begin takes it without the
  // manager's lock. Null otherwise (Begin locks). Replaced with collector_.
  std::atomic<std::shared_ptr<TraceCollector>> uncounted_;
  // Guarded by the manager's mutex.
  TraceSettings settings_;
  std::shared_ptr<TraceCollector> collector_;
};

// What a model's loaded versions hold: the sampler in force for the model,
// null while its requests are not sampled; and, in opentelemetry mode, the
// one that traces a request its caller sampled, null while the model's level
// is OFF or its count is used up (so such a request costs no lock then).
// Lives as long as its manager.
class TraceEntry {
 private:
  friend class TraceManager;
  std::atomic<TraceSampler*> active_{nullptr};
  std::atomic<TraceSampler*> forced_{nullptr};
};

class TraceManager {
 public:
  // `defaults` are the startup settings (--trace-config); INVALID_ARG when
  // they ask for tracing that cannot run (no file, rate 0).
  static StatusOr<std::unique_ptr<TraceManager>> Create(TraceSettings defaults);
  // Writes every buffered trace.
  ~TraceManager();
  TraceManager(const TraceManager&) = delete;
  TraceManager& operator=(const TraceManager&) = delete;

  // The entry of `model`, created on first use.
  TraceEntry* EntryFor(const std::string& model) EXCLUDES(mu_);

  // A new trace, REQUEST_START recorded, when this request of `entry`'s model
  // is sampled; null otherwise (almost always, and then without a lock).
  std::shared_ptr<RequestTrace> MaybeTrace(TraceEntry* entry, const std::string& model_name,
                                           int64_t model_version, const std::string& request_id) {
    TraceSampler* sampler = entry->active_.load(std::memory_order_acquire);
    if (sampler == nullptr || !sampler->Hit()) return nullptr;
    return Begin(sampler, model_name, model_version, request_id);
  }

  // The same for a request whose caller sent a W3C traceparent: a trace
  // joins the caller's (its spans are children of the caller's span). In
  // opentelemetry mode a request the caller sampled is traced whatever the
  // rate, as in Triton (rate=0 then traces only those).
  std::shared_ptr<RequestTrace> MaybeTrace(TraceEntry* entry, const std::string& model_name,
                                           int64_t model_version, const std::string& request_id,
                                           const TraceContext& context) EXCLUDES(mu_);

  // A trace of a request made for `parent`'s request (an ensemble step),
  // written with it, whatever the sampling of `model_name`; not counted
  // against trace_count. REQUEST_START recorded.
  std::shared_ptr<RequestTrace> BeginChild(const RequestTrace& parent,
                                           const std::string& model_name, int64_t model_version,
                                           const std::string& request_id) EXCLUDES(mu_);

  // The settings in force for `model` (the global ones when empty), with the
  // count left, as TraceSettingsJson renders them.
  TraceSettings Current(const std::string& model) const EXCLUDES(mu_);
  // Applies `update` to `model`'s setting (the global one when empty). When
  // the result would trace but cannot (no file, rate 0) nothing changes and
  // the answer is INVALID_ARG.
  Status Update(const std::string& model, const TraceSettingsUpdate& update) EXCLUDES(mu_);

  // Writes every trace buffered so far (shutdown), and sends the spans queued.
  void Flush() EXCLUDES(mu_);

  // Spans sent to the collector, and spans dropped (the queue was full or the
  // collector did not take them); 0 in triton mode.
  uint64_t spans_exported() const { return exporter_ ? exporter_->exported() : 0; }
  uint64_t spans_dropped() const { return exporter_ ? exporter_->dropped() : 0; }
  bool opentelemetry() const { return exporter_ != nullptr; }

 private:
  struct ModelTrace {
    TraceEntry entry;
    TraceSampler own;  // in force while `overrides` is not empty
    TraceOverrides overrides;
  };
  using Retired = std::vector<std::shared_ptr<TraceCollector>>;

  TraceManager(TraceSettings defaults, std::shared_ptr<OtlpExporter> exporter);

  std::shared_ptr<RequestTrace> Begin(TraceSampler* sampler, const std::string& model_name,
                                      int64_t model_version, const std::string& request_id,
                                      const TraceContext* context = nullptr) EXCLUDES(mu_);
  // Takes a trace from `sampler`'s count (none left: null), stopping its
  // sampling when the count runs out.
  std::shared_ptr<TraceCollector> TakeCounted(TraceSampler* sampler, bool forced) EXCLUDES(mu_);
  TraceSettings CurrentOf(const TraceSampler& sampler) const REQUIRES(mu_);
  // Puts `settings` in force on `sampler` with a fresh collector and counter;
  // the old collector goes to `retired`, to be flushed outside the lock.
  void Install(TraceSampler& sampler, const TraceSettings& settings, Retired* retired)
      REQUIRES(mu_);
  // A model's effective settings for `overrides`; `keep_count` keeps what is
  // left of its own count.
  TraceSettings ResolveModel(const ModelTrace& model, const TraceOverrides& overrides,
                             bool keep_count) const REQUIRES(mu_);
  // Points every entry at the sampler in force for its model.
  void Republish() REQUIRES(mu_);
  // The same for one model's entry.
  void PublishEntry(ModelTrace& trace) REQUIRES(mu_);
  ModelTrace& ModelFor(const std::string& model) REQUIRES(mu_);

  const TraceSettings defaults_;
  const std::shared_ptr<TraceFile> file_;
  const std::shared_ptr<OtlpExporter> exporter_;  // opentelemetry mode only
  mutable Mutex mu_;
  TraceSampler global_;
  TraceOverrides global_overrides_ GUARDED_BY(mu_);
  std::map<std::string, std::unique_ptr<ModelTrace>, std::less<>> models_ GUARDED_BY(mu_);
  std::atomic<uint64_t> next_id_{1};
};

}  // namespace inferd

#endif  // INFERD_CORE_TRACE_TRACE_MANAGER_H_
