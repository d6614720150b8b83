// Loading one model version for the ONNX Runtime backend (see model_state.h).
#include "model_state.h"

#include <algorithm>

#include "common/model_loading.h"
#include "config_completion.h"
#include "ort_session.h"
#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"

namespace inferd::onnxruntime {
namespace {

INFERD_Error* ReadSettings(INFERD_Model* model, ModelSettings* settings, std::string* json) {
  return backend_common::ReadSettings(model, &ParseModelSettings, settings, json);
}

// Completes the configuration from `io` and hands it to the server, unless
// completing changed nothing (*changed false): the server's parsing it back
// would cost as much as the rest of a small model's load, and the server checks
// the configuration is whole after initialize either way.
INFERD_Error* AutoComplete(INFERD_Model* model, const ModelIo& io, int64_t default_max_batch_size,
                           const std::string& json, bool* changed) {
  rapidjson::Document doc;
  doc.Parse(json.data(), json.size());
  rapidjson::Document original;
  original.CopyFrom(doc, original.GetAllocator());
  if (std::string problem = CompleteConfig(io, default_max_batch_size, &doc); !problem.empty()) {
    return MakeError(INFERD_ERROR_INVALID_ARG, "cannot complete the configuration: " + problem);
  }
  *changed = doc != original;
  if (!*changed) return nullptr;
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  doc.Accept(writer);
  return INFERD_ModelSetConfig(model, buffer.GetString());
}

}  // namespace

INFERD_Error* ModelState::Create(INFERD_Model* model, OrtEnv* env, int64_t default_max_batch_size,
                                 std::unique_ptr<ModelState>* state) {
  std::unique_ptr<ModelState> self(new ModelState());
  self->env_ = env;
  if (auto* err = backend_common::RequestErrorPrefix(model, &self->error_prefix_)) return err;

  std::string json;
  if (auto* err = ReadSettings(model, &self->settings_, &json)) return err;
  // model.onnx may be a folder holding model.onnx and its external data.
  const backend_common::ModelFileRule rule{"onnxruntime", "model.onnx", true};
  if (auto* err = backend_common::FindModelFile(model, self->settings_.default_model_filename,
                                                rule, &self->path_)) {
    return err;
  }
  SessionSettings probe_settings;
  if (auto* err = self->ProbeModel(&probe_settings)) return err;
  bool auto_complete = false;
  if (auto* err = INFERD_ModelAutoCompleteConfig(model, &auto_complete)) return err;
  if (auto_complete) {
    bool changed = false;
    if (auto* err = AutoComplete(model, self->io_, default_max_batch_size, json, &changed)) {
      return err;
    }
    if (changed) {
      if (auto* err = ReadSettings(model, &self->settings_, &json)) return err;
    }
  }
  if (std::string problem = CheckConfigMatchesModel(self->settings_, self->io_); !problem.empty()) {
    return MakeError(INFERD_ERROR_INVALID_ARG,
                     "the configuration does not match " + self->path_ + ": " + problem);
  }
  if (std::string problem =
          ResolveSessionSettings(self->settings_, MachineCores(), &self->session_settings_);
      !problem.empty()) {
    return MakeError(INFERD_ERROR_INVALID_ARG, problem);
  }
  if (self->session_settings_ != probe_settings) {
    // Completion changed what the instances need (their count): load afresh.
    MutexLock lock(&self->mu_);
    self->loaded_.reset();
  }
  *state = std::move(self);
  return nullptr;
}

INFERD_Error* ModelState::ProbeModel(SessionSettings* used) {
  // Creating a session costs as much as the rest of a model's load together, so
  // the probe is the instances' session whenever it can be.
  if (ResolveSessionSettings(settings_, MachineCores(), used).empty()) {
    OrtPtr<OrtSession> session;
    ErrorPtr failed(CreateSession(env_, path_, *used, &session));
    if (!failed) {
      if (auto* err = ReadModelIo(*session, &io_)) return err;
      MutexLock lock(&mu_);
      loaded_ = std::move(session);
      return nullptr;
    }
  }
  OrtPtr<OrtSession> probe;
  if (auto* err = CreateSession(env_, path_, MetadataSessionSettings(), &probe)) return err;
  return ReadModelIo(*probe, &io_);
}

INFERD_Error* ModelState::InstanceSession(std::shared_ptr<OrtSession>* session) {
  MutexLock lock(&mu_);
  if (loaded_ == nullptr) {
    OrtPtr<OrtSession> fresh;
    if (auto* err = CreateSession(env_, path_, session_settings_, &fresh)) return err;
    loaded_ = std::move(fresh);
  }
  *session = session_settings_.share_session ? loaded_ : std::move(loaded_);
  return nullptr;
}

}  // namespace inferd::onnxruntime
