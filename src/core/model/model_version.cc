#include "core/model/model_version.h"

#include "core/cache/response_cache.h"

#include <fstream>

#include "core/common/c_error.h"
#include "core/backend/backend_library.h"
#include "core/common/logging.h"
#include "core/config/model_config_json.h"
#include "core/config/model_config_normalizer.h"
#include "core/config/model_config_validator.h"
#include "core/model/model_instance.h"
#include "core/model/model_warmup.h"
#include "core/rate_limiter/rate_limiter.h"
#include "core/stats/custom_metrics.h"
#include "core/infer/response_sender.h"
#include "core/scheduler/default_scheduler.h"
#include "core/scheduler/dynamic_batcher.h"
#include "core/scheduler/ensemble_scheduler.h"
#include "core/scheduler/sequence_batcher.h"
#include "core/timing/queue_sweeper.h"

namespace inferd {
namespace {

INFERD_InstanceKind ToInstanceKind(inference::ModelInstanceGroup::Kind kind) {
  switch (kind) {
    case inference::ModelInstanceGroup::KIND_GPU: return INFERD_INSTANCE_KIND_GPU;
    case inference::ModelInstanceGroup::KIND_CPU: return INFERD_INSTANCE_KIND_CPU;
    case inference::ModelInstanceGroup::KIND_MODEL: return INFERD_INSTANCE_KIND_MODEL;
    default: return INFERD_INSTANCE_KIND_AUTO;
  }
}

}  // namespace

namespace {

std::atomic<uint64_t> next_cache_owner{1};

}  // namespace

ModelVersion::ModelVersion(ModelVersionSpec spec)
    : spec_(std::move(spec)),
      services_(spec_.services != nullptr ? *spec_.services : ModelServices{}),
      config_(spec_.config),
      cache_owner_(next_cache_owner.fetch_add(1, std::memory_order_relaxed)),
      last_used_ns_(services_.clock->NowNs()) {
  OnConfigChanged();
}

void ModelVersion::OnConfigChanged() {
  config_json_ = ModelConfigToJson(config_);
  auto outputs = std::make_shared<std::vector<std::string>>();
  labels_.clear();
  for (const auto& output : config_.output()) {
    outputs->push_back(output.name());
    if (output.label_filename().empty() || spec_.model_dir.empty()) continue;
    // The validator made sure the file exists; one label per line.
    std::ifstream file(spec_.model_dir / output.label_filename());
    std::vector<std::string>& labels = labels_[output.name()];
    for (std::string line; std::getline(file, line);) {
      if (!line.empty() && line.back() == '\r') line.pop_back();
      labels.push_back(std::move(line));
    }
  }
  all_outputs_ = std::move(outputs);
}

const std::vector<std::string>& ModelVersion::OutputLabels(std::string_view name) const {
  static const std::vector<std::string> kNone;
  const auto found = labels_.find(name);
  return found == labels_.end() ? kNone : found->second;
}

Status ModelVersion::CompleteConfig(inference::ModelConfig config) {
  if (!completing_config_) {
    return Status::Unavailable("model '" + name() +
                               "': the configuration can only be completed during model "
                               "initialize, unless --disable-auto-complete-config is given");
  }
  ConfigContext ctx = spec_.config_context;
  ctx.allow_incomplete_io = false;
  if (config.name().empty()) config.set_name(name());
  RETURN_IF_ERROR(NormalizeModelConfig(ctx, &config));
  RETURN_IF_ERROR(ValidateModelConfig(ctx, config));
  config_ = std::move(config);
  OnConfigChanged();
  return ResolveAdmission();
}

ModelVersion::~ModelVersion() {
  if (!unloaded_) Unload(clock().NowNs());
}

StatusOr<std::shared_ptr<ModelVersion>> ModelVersion::Load(ModelVersionSpec spec) {
  std::shared_ptr<ModelVersion> model(new ModelVersion(std::move(spec)));
  const std::string where =
      "model '" + model->name() + "' version " + std::to_string(model->version()) + ": ";
  if (model->config().has_dynamic_batching() && model->services_.sweeper == nullptr) {
    model->unloaded_ = true;
    return Status::Internal(where + "dynamic batching needs the server's queue sweeper");
  }
  StatusOr<SequenceStates> states = SequenceStates::Load(model->config(), model->model_dir());
  if (!states.ok()) {
    model->unloaded_ = true;
    return states.status().WithPrefix(where);
  }
  model->sequence_states_ = std::move(*states);
  if (Status admission = model->ResolveAdmission(); !admission.ok()) {
    model->unloaded_ = true;
    return admission.WithPrefix(where);
  }
  if (model->is_ensemble()) return LoadEnsemble(std::move(model));
  Status status = Initialize(model);
  if (!status.ok()) {
    model->unloaded_ = true;
    return status.WithPrefix(where);
  }
  model->UseResponseCache();
  model->StartScheduling();
  LOG_INFO("successfully loaded model '{}' version {} ({} instance(s), backend '{}')",
           model->name(), model->version(), model->instances_.size(), model->backend().name());
  return model;
}

Status ModelVersion::Initialize(const std::shared_ptr<ModelVersion>& model) {
  if (auto init = model->backend().model_initialize()) {
    model->completing_config_ = model->spec_.config_context.allow_incomplete_io;
    Status status = TakeError(init(model->handle()));
    model->completing_config_ = false;
    RETURN_IF_ERROR(status);
  }
  model->model_initialized_ = true;
  Status status;
  if (model->spec_.config_context.allow_incomplete_io) {
    // Whatever the backend completed (or not), the result must now be whole.
    ConfigContext ctx = model->spec_.config_context;
    ctx.allow_incomplete_io = false;
    status = ValidateModelConfig(ctx, model->config_);
  }
  if (status.ok()) status = model->CreateInstances();
  if (status.ok()) {
    model->stats_ = std::make_unique<ModelStatistics>(model->config().max_batch_size(),
                                                      model->services_.metrics,
                                                      model->services_.clock, model->decoupled());
    for (const auto& instance : model->instances_) {
      status = RunWarmup(model, *instance);
      if (!status.ok()) break;
    }
  }
  if (!status.ok()) model->FinalizeAll();
  return status;
}

void ModelVersion::UseResponseCache() {
  if (!config().response_cache().enable()) return;
  if (services_.response_cache != nullptr) {
    response_cache_ = services_.response_cache;
    stats_->EnableCache();
  } else {
    LOG_WARNING("model '{}' version {}: response_cache is enabled in its config but the "
                "server has no response cache (start inferd with --cache-config "
                "local,size=<bytes>): its responses are not cached",
                name(), version());
  }
}

StatusOr<std::shared_ptr<ModelVersion>> ModelVersion::LoadEnsemble(
    std::shared_ptr<ModelVersion> model) {
  if (model->services_.submitter == nullptr) {
    model->unloaded_ = true;
    return Status::Internal("ensemble '" + model->name() + "' needs the server to submit to");
  }
  model->stats_ = std::make_unique<ModelStatistics>(model->config().max_batch_size(),
                                                    model->services_.metrics,
                                                    model->services_.clock, model->decoupled());
  if (model->config().response_cache().enable()) {
    LOG_WARNING("ensemble '{}' version {}: response_cache is enabled in its config, but inferd "
                "does not cache an ensemble's own responses (its composing models may enable it)",
                model->name(), model->version());
  }
  model->scheduler_ = std::make_unique<EnsembleScheduler>(
      model->config_, model->services_.submitter, model->spec_.sequence_steps);
  LOG_INFO("successfully loaded ensemble '{}' version {} ({} step(s))", model->name(),
           model->version(), model->config().ensemble_scheduling().step_size());
  return model;
}

Status ModelVersion::CreateInstances() {
  // What the rate limiter needs of each active instance. Passive instances
  // never execute, so they take no part: they neither wait nor size pools.
  std::vector<LimitedInstance> limited;
  std::vector<ModelInstance*> active;
  for (const auto& group : config_.instance_group()) {
    const INFERD_InstanceKind kind = ToInstanceKind(group.kind());
    if (kind == INFERD_INSTANCE_KIND_GPU) {
      return Status::Unavailable("instance_group '" + group.name() +
                                 "' asks for KIND_GPU but inferd has no GPU support here");
    }
    std::vector<ResourceAsk> asks;
    for (const auto& resource : group.rate_limiter().resources()) {
      asks.push_back({resource.name(), resource.count(), resource.global()});
    }
    for (int i = 0; i < group.count(); ++i) {
      auto instance = std::make_unique<ModelInstance>(this, group.name() + "_" + std::to_string(i),
                                                      kind, 0, group.passive());
      RETURN_IF_ERROR(instance->Initialize());
      if (services_.host_policies != nullptr) {
        // Triton's default policy names: "cpu" and "model" by kind.
        const std::string policy = !group.host_policy().empty() ? group.host_policy()
                                   : kind == INFERD_INSTANCE_KIND_MODEL ? "model"
                                                                        : "cpu";
        auto found = services_.host_policies->find(policy);
        if (found != services_.host_policies->end()) instance->FollowHostPolicy(&found->second);
      }
      if (!instance->passive()) {
        limited.push_back({instance->name(), instance->device_id(),
                           group.rate_limiter().priority(), asks});
        active.push_back(instance.get());
      }
      instances_.push_back(std::move(instance));
    }
  }
  if (instances_.empty()) return Status::InvalidArg("the configuration yields no instance");
  if (services_.rate_limiter == nullptr) return Status::Ok();
  const std::string label = "model '" + name() + "' version " + std::to_string(version());
  ASSIGN_OR_RETURN(std::vector<RateLimiter::Ticket*> tickets,
                   services_.rate_limiter->AddModel(this, label, limited));
  for (size_t i = 0; i < active.size(); ++i) {
    active[i]->LimitBy(services_.rate_limiter, tickets[i]);
  }
  return Status::Ok();
}

void ModelVersion::StartScheduling() {
  BatchSource* source = nullptr;
  for (const auto& instance : instances_) {
    if (!instance->passive()) active_.Add(instance.get());
  }
  const size_t active = active_.size();
  if (config_.has_sequence_batching()) {
    auto batcher = std::make_unique<SequenceBatcher>(config_, active, clock(), sequence_states_);
    source = batcher.get();
    scheduler_ = std::move(batcher);
  } else if (config_.has_dynamic_batching()) {
    auto batcher = std::make_unique<DynamicBatcher>(config_, services_.sweeper, admission_.shed);
    source = batcher.get();
    scheduler_ = std::move(batcher);
  } else {
    auto fifo = std::make_unique<DefaultScheduler>(active, &clock(), &active_);
    source = fifo.get();
    scheduler_ = std::move(fifo);
  }
  batch_source_ = source;
}

void ModelVersion::StartInstances() {
  MutexLock lock(&start_mu_);
  if (instances_settled_.load(std::memory_order_relaxed)) return;
  for (size_t index = 0; index < active_.size(); ++index) {
    active_[index]->Start(batch_source_, index);
  }
  instances_settled_.store(true, std::memory_order_release);
}

void ModelVersion::FinalizeAll() {
  if (services_.rate_limiter != nullptr) services_.rate_limiter->RemoveModel(this);
  for (auto it = instances_.rbegin(); it != instances_.rend(); ++it) (*it)->Finalize();
  active_.Clear();
  instances_.clear();
  if (model_initialized_) {
    model_initialized_ = false;
    if (auto fini = backend().model_finalize()) {
      Status status = TakeError(fini(handle()));
      if (!status.ok()) {
        LOG_ERROR("model '{}' version {} failed to finalize: {}", name(), version(),
                  status.message());
      }
    }
  }
  // What the backend registered for this version goes with it (a failed
  // load's too).
  if (services_.custom_metrics != nullptr) services_.custom_metrics->RemoveOwner(this);
}

void ModelVersion::EndOpenRequests() {
  const Status why = Status::Internal("model '" + name() + "' version " +
                                      std::to_string(version()) +
                                      " was unloaded before its backend sent the final response");
  for (const auto& sender : senders_.TakeAll()) sender->ForceEnd(why);
}

void ModelVersion::OnRequestReleased() {
  // seq_cst, paired with Unload's store of unloading_ and read of inflight_:
  // one of the two sides always sees the other's write, so Unload never waits
  // out its deadline for a release it missed.
  if (inflight_.fetch_sub(1, std::memory_order_seq_cst) == 1 &&
      unloading_.load(std::memory_order_seq_cst)) {
    MutexLock lock(&mu_);
    drained_.SignalAll();
  }
}

void ModelVersion::Unload(uint64_t deadline_ns) {
  if (unloaded_) return;
  unloaded_ = true;
  unloading_.store(true, std::memory_order_seq_cst);
  {
    MutexLock lock(&mu_);
    while (inflight() != 0 && clock().NowNs() < deadline_ns) {
      clock().WaitUntil(&drained_, &mu_, deadline_ns);
    }
    if (inflight() != 0) {
      LOG_WARNING("model '{}' version {}: unloading with {} request(s) still in flight", name(),
                  version(), inflight());
    }
  }
  {
    // No thread starts after this: the ones that run are joined below.
    MutexLock lock(&start_mu_);
    instances_settled_.store(true, std::memory_order_release);
  }
  if (scheduler_) scheduler_->Stop();
  for (const auto& instance : instances_) instance->Join();
  FinalizeAll();
  EndOpenRequests();
  if (response_cache_ != nullptr) response_cache_->RemoveOwner(cache_owner_);
  LOG_INFO("unloaded model '{}' version {}", name(), version());
}

}  // namespace inferd
