// The repeat backend: a decoupled model for tests and demos. Given N values
// in input 0, a request gets N responses, response k carrying value k (and k
// itself in a second output, if the model has one), a configurable wait
// before each, then FINAL; N = 0 gets FINAL alone. Request parameters
// (request_options.h) change the pacing and where FINAL goes, turn one
// response into an error, and misuse the response sender on purpose, so that
// tests see how the server copes. The model must be decoupled.
//
// Execute only queues each request's stream on the model's worker
// (stream_worker.h) and returns; the request is released at once, its input
// read in place until FINAL (input_values.h).
#include <memory>
#include <string>
#include <utility>

#include "common/config_messages.h"
#include "common/entry_points.h"
#include "inferd/backend.h"
#include "input_values.h"
#include "model_settings.h"
#include "request_options.h"
#include "stream.h"
#include "stream_worker.h"

namespace inferd::repeat {
namespace {

// A loaded model version: its settings, the record files its streams append
// to, and the worker sending its responses. Members are destroyed in reverse
// order, so the worker (and its streams) goes before what they refer to.
struct RepeatModel {
  ModelSettings settings;
  backend_common::Recorder recorder;
  StreamWorker worker;
};

RepeatModel* ModelOf(INFERD_ModelInstance* instance) {
  INFERD_Model* model = nullptr;
  void* state = nullptr;
  INFERD_ErrorDelete(INFERD_ModelInstanceModel(instance, &model));
  INFERD_ErrorDelete(INFERD_ModelState(model, &state));
  return static_cast<RepeatModel*>(state);
}

// Builds the request's stream and queues it, releasing the request. On error
// nothing was sent or released, and no sender is left open.
INFERD_Error* StartStream(RepeatModel& model, INFERD_Request* request) {
  const char* id = nullptr;
  if (INFERD_Error* err = INFERD_RequestId(request, &id)) return err;
  RequestOptions options;
  if (INFERD_Error* err = ReadRequestOptions(request, model.settings, &options)) return err;
  INFERD_Input* input = nullptr;
  if (INFERD_Error* err = INFERD_RequestInputByIndex(request, 0, &input)) return err;
  InputValues values;
  if (INFERD_Error* err = InputValues::Locate(input, &values)) return err;
  INFERD_ResponseSender* sender = nullptr;
  if (INFERD_Error* err = INFERD_ResponseSenderNew(&sender, request)) return err;
  // The server keeps the request, inputs included, until FINAL: released now,
  // its values are still read in place by the stream.
  INFERD_ErrorDelete(INFERD_RequestRelease(request, INFERD_REQUEST_RELEASE_ALL));
  auto stream = std::make_unique<Stream>(model.settings, model.recorder,
                                         id != nullptr && *id != '\0' ? id : "-",
                                         std::move(options), std::move(values), sender);
  const Stream::Clock::time_point due = stream->FirstDue(Stream::Clock::now());
  model.worker.Add(std::move(stream), due);
  return nullptr;
}

// Answers a request the backend cannot stream with `error` and FINAL.
void Refuse(INFERD_Request* request, INFERD_Error* error) {
  INFERD_Response* response = nullptr;
  if (INFERD_Error* err = INFERD_ResponseNew(&response, request)) {
    INFERD_ErrorDelete(err);
    INFERD_ErrorDelete(error);
  } else {
    INFERD_ErrorDelete(INFERD_ResponseSend(response, INFERD_RESPONSE_COMPLETE_FINAL, error));
  }
  INFERD_ErrorDelete(INFERD_RequestRelease(request, INFERD_REQUEST_RELEASE_ALL));
}

}  // namespace
}  // namespace inferd::repeat

extern "C" {

__attribute__((visibility("default"))) INFERD_Error* INFERD_BackendInitialize(INFERD_Backend*) {
  uint32_t major = 0;
  uint32_t minor = 0;
  if (INFERD_Error* err = INFERD_BackendApiVersion(&major, &minor)) return err;
  // Response senders came with minor version 4.
  if (major != INFERD_BACKEND_API_VERSION_MAJOR || minor < 4) {
    const std::string message = "repeat backend: needs backend API " +
                                std::to_string(INFERD_BACKEND_API_VERSION_MAJOR) +
                                ".4 or later (response senders); the server has " +
                                std::to_string(major) + "." + std::to_string(minor);
    return INFERD_ErrorNew(INFERD_ERROR_UNSUPPORTED, message.c_str());
  }
  return nullptr;
}

__attribute__((visibility("default"))) INFERD_Error* INFERD_ModelInitialize(INFERD_Model* model) {
  const char* name = nullptr;
  if (INFERD_Error* err = INFERD_ModelName(model, &name)) return err;
  std::string json;
  if (INFERD_Error* err = inferd::backend_common::ReadModelConfigJson(model, &json)) return err;
  auto state = std::make_unique<inferd::repeat::RepeatModel>();
  if (INFERD_Error* err =
          inferd::repeat::ReadModelSettings(name, json.data(), json.size(), &state->settings)) {
    return err;  // the unique_ptr stops the worker
  }
  return inferd::backend_common::GiveModelState(model, std::move(state));
}

// Deleting the model stops its worker first: held and unfinished streams then
// delete their senders, and the server ends their requests.
__attribute__((visibility("default"))) INFERD_Error* INFERD_ModelFinalize(INFERD_Model* model) {
  return inferd::backend_common::DeleteModelState<inferd::repeat::RepeatModel>(model);
}

__attribute__((visibility("default"))) INFERD_Error* INFERD_ModelInstanceExecute(
    INFERD_ModelInstance* instance, INFERD_Request** requests, uint32_t request_count) {
  inferd::repeat::RepeatModel* model = inferd::repeat::ModelOf(instance);
  for (uint32_t r = 0; r < request_count; ++r) {
    if (INFERD_Error* err = inferd::repeat::StartStream(*model, requests[r])) {
      inferd::repeat::Refuse(requests[r], err);
    }
  }
  return nullptr;
}

}  // extern "C"
