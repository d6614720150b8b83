// The cloud endpoints' flags (Triton's --allow-sagemaker, --sagemaker-*,
// --allow-vertex-ai, --vertex-ai-*) and the environment variables Triton and
// its SageMaker launch script read: they set the defaults, so a container
// that SageMaker or Vertex AI starts with only its environment works, and a
// flag given on the command line wins. Used by main only.
#ifndef INFERD_CLOUD_FLAGS_H_
#define INFERD_CLOUD_FLAGS_H_

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "cloud/sagemaker_frontend.h"
#include "cloud/vertex_ai_frontend.h"

namespace inferd {

struct CloudFlags {
  bool allow_sagemaker = false;
  int sagemaker_port = 8080;  // SAGEMAKER_BIND_TO_PORT
  std::string sagemaker_safe_port_range;  // "<lo>-<hi>"; SAGEMAKER_SAFE_PORT_RANGE
  int sagemaker_thread_count = 8;  // SAGEMAKER_TRITON_THREAD_COUNT
  std::string sagemaker_default_model;  // SAGEMAKER_TRITON_DEFAULT_MODEL_NAME
  std::string sagemaker_ping_mode = "ready";  // SAGEMAKER_TRITON_[OVERRIDE_]PING_MODE
  bool sagemaker_multi_model = false;  // SAGEMAKER_MULTI_MODEL=true
  bool allow_vertex_ai = false;  // true when AIP_MODE=PREDICTION
  int vertex_ai_port = 8080;  // AIP_HTTP_PORT
  int vertex_ai_thread_count = 8;
  std::string vertex_ai_default_model;
  std::string vertex_ai_predict_route;  // AIP_PREDICT_ROUTE
  std::string vertex_ai_health_route;  // AIP_HEALTH_ROUTE
  std::string vertex_ai_storage_uri;  // AIP_STORAGE_URI
  // Set when AIP_MODE=PREDICTION: Triton then serves neither HTTP nor gRPC
  // unless their flags ask for them.
  bool vertex_ai_prediction_mode = false;
};

// Reads the environment into `flags` (the defaults the flags then override).
// An unusable value (AIP_HTTP_PORT=abc) is an error naming the variable.
bool ReadCloudEnvironment(CloudFlags& flags);

// Declares the cloud flags on `app`, to be parsed into `flags`.
void AddCloudFlags(CLI::App& app, CloudFlags& flags);

// One endpoint that will listen, for CheckCloudPorts.
struct Listener {
  std::string service;  // "HTTP", "GRPC", "metrics", "SageMaker", "Vertex AI"
  std::string address;
  int port = 0;
};

// Triton's start-up checks once the flags are parsed: with
// --sagemaker-safe-port-range, every other endpoint on the SageMaker address
// must listen inside the range; no two endpoints may share an address and
// port (0, any free port, excepted); SAGEMAKER_MULTI_MODEL is not supported.
// Prints what is wrong (naming the flags) and returns false.
bool CheckCloudFlags(const CloudFlags& flags, const std::vector<Listener>& listeners);

// The Vertex AI repository: AIP_STORAGE_URI when the endpoint is allowed and
// no --model-repository was given. Appends it to `repositories`; false (with
// the reason printed) for a URI this build cannot read (gs://, s3://, ...).
bool AddVertexAiRepository(const CloudFlags& flags, std::vector<std::string>& repositories);

// The frontends' options from the flags.
cloud::SageMakerOptions SageMakerOptionsFrom(const CloudFlags& flags);
cloud::VertexAiOptions VertexAiOptionsFrom(const CloudFlags& flags);

}  // namespace inferd

#endif  // INFERD_CLOUD_FLAGS_H_
