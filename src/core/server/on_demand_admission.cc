// InferenceServer with a memory budget (--model-memory-budget): the on-demand
// loader's creation, the models loaded at start, the repository API's load
// (pinned), and the admission of a request whose model is not loaded: it
// waits for the model's one load and is then submitted as if it had just
// arrived (its model is loaded, so it no longer waits), or answered with the
// reason the model did not load.
#include <optional>

#include "core/common/logging.h"
#include "core/infer/inference_request.h"
#include "core/server/inference_server.h"

namespace inferd {

Status InferenceServer::StartOnDemand() {
  const ServerOptions& o = options_;
  OnDemandOptions loading;
  loading.budget_bytes = o.model_memory_budget_bytes;
  loading.wait_timeout_ns = o.model_load_wait_timeout_ms * 1'000'000;
  on_demand_ = std::make_unique<OnDemandLoader>(lifecycle_.get(), clock_, loading);
  sweeper_.Register(on_demand_.get());
  LOG_INFO("Model memory budget: {} bytes; models load on their first request and the least "
           "recently used idle ones make room",
           o.model_memory_budget_bytes);
  std::vector<std::string> startup = o.pinned_models;
  if (o.control_mode == ModelControlMode::kExplicit) {
    for (const std::string& name : o.startup_models) {
      if (name != "*") startup.push_back(name);  // "*": every model, on demand
    }
  }
  for (const std::string& name : startup) {
    Status status = LoadPinned(name, {});
    if (status.ok()) continue;
    LOG_ERROR("{}", status.message());
    if (o.exit_on_error) return status;
  }
  return Status::Ok();
}

Status InferenceServer::LoadPinned(const std::string& name, const LoadOverrides& overrides) {
  return on_demand_->LoadNow(name, [&]() -> Status {
    RETURN_IF_ERROR(lifecycle_->Load(name, overrides));
    // Pinned before the next load may look for room.
    lifecycle_->SetPinned(name, true);
    return Status::Ok();
  });
}

bool InferenceServer::AwaitOnDemandLoad(InferenceRequest* request, bool from_client,
                                        int waits_left) {
  std::optional<std::string> key =
      lifecycle_->OnDemandKey(request->model_name(), request->model_namespace);
  if (!key) return false;
  const uint64_t deadline =
      on_demand_->Await(*key, [this, request, from_client, waits_left](Status status) {
        // On the loader's thread, before its next load can evict the model.
        if (status.ok()) status = SubmitRequest(request, from_client, waits_left);
        if (!status.ok()) {
          request->RespondWithError(status);
          request->Release();
        }
      });
  if (deadline != 0) sweeper_.Schedule(on_demand_.get(), deadline);
  return true;
}

Status InferenceServer::AwaitLoaded(std::string_view name) {
  if (!on_demand_) return Status::Ok();
  std::optional<std::string> key = lifecycle_->OnDemandKey(name, {});
  if (!key) return Status::Ok();
  struct Outcome {
    Mutex mu;
    CondVar answered;
    std::optional<Status> status GUARDED_BY(mu);
  };
  auto outcome = std::make_shared<Outcome>();
  const uint64_t deadline = on_demand_->Await(*key, [outcome](Status status) {
    MutexLock lock(&outcome->mu);
    outcome->status = std::move(status);
    outcome->answered.SignalAll();
  });
  if (deadline != 0) sweeper_.Schedule(on_demand_.get(), deadline);
  // The sweeper answers by the deadline at the latest.
  MutexLock lock(&outcome->mu);
  while (!outcome->status.has_value()) outcome->answered.Wait(&outcome->mu);
  return *outcome->status;
}

}  // namespace inferd
