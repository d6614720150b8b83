// The gRPC ceiling of bench/: the least a KServe v2 gRPC server can do per
// ModelInfer on this machine. It answers every ModelInfer at once with the
// request's own tensors as outputs (what the identity model returns), on the
// same gRPC callback API, thread pool and server settings as inferd's gRPC
// frontend; no model, no queue, no core. Metadata and config of one identity
// model make inferd-loadgen and perf_analyzer accept it.
//
//   inferd-grpc-ceiling --port N [--model identity_fp32] [--dims 16]
// Prints "listening on 127.0.0.1:<port>" once serving; runs until SIGINT/SIGTERM.
#include <grpcpp/grpcpp.h>
#include <signal.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "grpc_service.grpc.pb.h"

namespace {

struct Options {
  int port = 0;
  std::string model = "identity_fp32";
  int64_t dims = 16;
};

class CannedService final : public inference::GRPCInferenceService::CallbackService {
 public:
  explicit CannedService(const Options& options) : options_(options) {}

  grpc::ServerUnaryReactor* ModelInfer(grpc::CallbackServerContext* context,
                                       const inference::ModelInferRequest* request,
                                       inference::ModelInferResponse* response) override {
    response->set_model_name(request->model_name());
    response->set_model_version("1");
    response->set_id(request->id());
    for (int i = 0; i < request->inputs_size(); ++i) {
      const auto& input = request->inputs(i);
      auto* output = response->add_outputs();
      output->set_name("OUTPUT" + std::to_string(i));
      output->set_datatype(input.datatype());
      *output->mutable_shape() = input.shape();
    }
    *response->mutable_raw_output_contents() = request->raw_input_contents();
    return Done(context);
  }

  grpc::ServerUnaryReactor* ModelMetadata(grpc::CallbackServerContext* context,
                                          const inference::ModelMetadataRequest*,
                                          inference::ModelMetadataResponse* response) override {
    response->set_name(options_.model);
    response->add_versions("1");
    response->set_platform("identity");
    for (const char* name : {"INPUT0", "OUTPUT0"}) {
      auto* tensor = name[0] == 'I' ? response->add_inputs() : response->add_outputs();
      tensor->set_name(name);
      tensor->set_datatype("FP32");
      tensor->add_shape(-1);
      tensor->add_shape(options_.dims);
    }
    return Done(context);
  }

  grpc::ServerUnaryReactor* ModelConfig(grpc::CallbackServerContext* context,
                                        const inference::ModelConfigRequest*,
                                        inference::ModelConfigResponse* response) override {
    auto* config = response->mutable_config();
    config->set_name(options_.model);
    config->set_backend("identity");
    config->set_max_batch_size(64);
    inference::ModelInput* input = config->add_input();
    input->set_name("INPUT0");
    input->set_data_type(inference::TYPE_FP32);
    input->add_dims(options_.dims);
    inference::ModelOutput* output = config->add_output();
    output->set_name("OUTPUT0");
    output->set_data_type(inference::TYPE_FP32);
    output->add_dims(options_.dims);
    return Done(context);
  }

  grpc::ServerUnaryReactor* ServerLive(grpc::CallbackServerContext* context,
                                       const inference::ServerLiveRequest*,
                                       inference::ServerLiveResponse* response) override {
    response->set_live(true);
    return Done(context);
  }

  grpc::ServerUnaryReactor* ServerReady(grpc::CallbackServerContext* context,
                                        const inference::ServerReadyRequest*,
                                        inference::ServerReadyResponse* response) override {
    response->set_ready(true);
    return Done(context);
  }

  grpc::ServerUnaryReactor* ModelReady(grpc::CallbackServerContext* context,
                                       const inference::ModelReadyRequest*,
                                       inference::ModelReadyResponse* response) override {
    response->set_ready(true);
    return Done(context);
  }

  grpc::ServerUnaryReactor* ModelStatistics(
      grpc::CallbackServerContext* context, const inference::ModelStatisticsRequest*,
      inference::ModelStatisticsResponse* response) override {
    auto* stats = response->add_model_stats();
    stats->set_name(options_.model);
    stats->set_version("1");
    return Done(context);
  }

 private:
  static grpc::ServerUnaryReactor* Done(grpc::CallbackServerContext* context) {
    grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
    reactor->Finish(grpc::Status::OK);
    return reactor;
  }

  const Options options_;
};

bool ParseOptions(int argc, char** argv, Options* options) {
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--port") == 0) {
      options->port = std::atoi(argv[i + 1]);
    } else if (std::strcmp(argv[i], "--model") == 0) {
      options->model = argv[i + 1];
    } else if (std::strcmp(argv[i], "--dims") == 0) {
      options->dims = std::atoll(argv[i + 1]);
    } else {
      return false;
    }
  }
  return argc % 2 == 1 && options->port > 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  if (!ParseOptions(argc, argv, &options)) {
    std::fprintf(stderr, "usage: %s --port N [--model NAME] [--dims N]\n", argv[0]);
    return 2;
  }
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  CannedService service(options);
  grpc::ServerBuilder builder;
  const std::string address = "127.0.0.1:" + std::to_string(options.port);
  builder.AddListeningPort(address, grpc::InsecureServerCredentials());
  builder.RegisterService(&service);
  // As inferd's frontend (src/frontends/grpc/grpc_server.cc).
  builder.SetMaxReceiveMessageSize(INT_MAX);
  builder.SetMaxSendMessageSize(INT_MAX);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (server == nullptr) {
    std::fprintf(stderr, "cannot listen on %s\n", address.c_str());
    return 1;
  }
  std::printf("listening on %s\n", address.c_str());
  std::fflush(stdout);
  int signal_number = 0;
  sigwait(&signals, &signal_number);
  server->Shutdown();
  return 0;
}
