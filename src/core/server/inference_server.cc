#include "core/server/inference_server.h"

#include <chrono>

#include "core/common/clock.h"
#include "core/common/logging.h"
#include "core/infer/inference_request.h"
#include "core/infer/request_validator.h"
#include "core/model/model_version.h"
#include "core/scheduler/scheduler.h"
#include "core/server/metadata_json.h"
#include "core/stats/statistics_json.h"

namespace inferd {
InferenceServer::InferenceServer(ServerOptions options) : options_(std::move(options)) {}

InferenceServer::~InferenceServer() {
  Status status = Stop();
  (void)status;
}

StatusOr<std::unique_ptr<InferenceServer>> InferenceServer::Create(ServerOptions options) {
  if (options.repository_paths.empty()) {
    return Status::InvalidArg("no model repository given (--model-repository)");
  }
  std::vector<std::filesystem::path> roots(options.repository_paths.begin(),
                                           options.repository_paths.end());
  ASSIGN_OR_RETURN(std::vector<ModelLocation> models, ScanRepositories(roots));

  std::unique_ptr<InferenceServer> server(new InferenceServer(std::move(options)));
  server->backends_ = std::make_unique<BackendManager>(server->options_.backend_directory,
                                                       server->options_.backend_settings);
  server->lifecycle_ = std::make_unique<ModelLifecycle>(
      ModelLoader(server.get(), server->backends_.get(), server->options_.strict_model_config),
      server->options_.model_load_threads);
  server->lifecycle_->LoadAll(models);
  return server;
}

Status InferenceServer::Stop() {
  if (stopping_.exchange(true)) return Status::Ok();
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(options_.exit_timeout_secs);
  if (lifecycle_) lifecycle_->UnloadAll(deadline);
  stopped_.store(true);
  return Status::Ok();
}

bool InferenceServer::IsReady() const {
  if (stopping_.load()) return false;
  return !options_.strict_readiness || lifecycle_->AllReady();
}

std::string InferenceServer::MetadataJson() const {
  return ServerMetadataJson(options_.server_id, INFERD_VERSION,
                            {"binary_tensor_data", "model_configuration", "parameters", "statistics",
                             "schedule_policy"});
}

StatusOr<std::string> InferenceServer::ModelMetadataJson(std::string_view name,
                                                         int64_t version) const {
  ASSIGN_OR_RETURN(std::shared_ptr<ModelVersion> model, lifecycle_->Get(name, version));
  std::vector<int64_t> versions =
      version < 0 ? lifecycle_->ReadyVersions(name) : std::vector<int64_t>{version};
  return inferd::ModelMetadataJson(model->config(), versions);
}

StatusOr<std::string> InferenceServer::ModelConfigJson(std::string_view name,
                                                       int64_t version) const {
  ASSIGN_OR_RETURN(std::shared_ptr<ModelVersion> model, lifecycle_->Get(name, version));
  return model->config_json();
}

std::string InferenceServer::IndexJson(bool ready_only) const {
  return inferd::IndexJson(lifecycle_->Index(), ready_only);
}

namespace {

std::vector<NamedStatistics> Named(const std::vector<std::shared_ptr<ModelVersion>>& models) {
  std::vector<NamedStatistics> named;
  for (const auto& model : models) {
    named.push_back(
        {model->name(), model->version(), &model->stats(), model->scheduler().InflightCount()});
  }
  return named;
}

}  // namespace

StatusOr<std::string> InferenceServer::StatisticsJson(std::string_view name,
                                                      int64_t version) const {
  std::vector<std::shared_ptr<ModelVersion>> models;
  if (name.empty()) {
    models = lifecycle_->Loaded();
  } else if (version >= 0) {
    ASSIGN_OR_RETURN(std::shared_ptr<ModelVersion> model, lifecycle_->Get(name, version));
    models.push_back(std::move(model));
  } else {
    for (int64_t v : lifecycle_->ReadyVersions(name)) {
      auto model = lifecycle_->Get(name, v);
      if (model.ok()) models.push_back(std::move(model).value());
    }
    if (models.empty()) RETURN_IF_ERROR(lifecycle_->Get(name, -1).status());
  }
  return inferd::StatisticsJson(Named(models));
}

std::string InferenceServer::MetricsText() const {
  return PrometheusText(Named(lifecycle_->Loaded()));
}

Status InferenceServer::InferAsync(InferenceRequest* request) {
  if (stopping_.load(std::memory_order_relaxed)) {
    return Status::Unavailable("the server is shutting down");
  }
  ASSIGN_OR_RETURN(std::shared_ptr<ModelVersion> model,
                   lifecycle_->Get(request->model_name(), request->requested_version()));
  RETURN_IF_ERROR(ValidateRequest(model->config(), model->all_outputs(), request));
  ModelVersion* version = model.get();
  version->OnRequestAdmitted();
  request->Bind(std::move(model));
  request->queue_start_ns = NowNs();
  Status status = version->scheduler().Enqueue(request);
  if (!status.ok()) {
    version->OnRequestReleased();
    request->Bind(nullptr);
  }
  return status;
}

}  // namespace inferd
