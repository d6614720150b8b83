// The gRPC ceiling of bench/: the least a KServe v2 gRPC server can do per
// ModelInfer on this machine. It answers every ModelInfer at once with the
// request's own tensors as outputs (what the identity model returns), with the
// same server settings and API as inferd's gRPC frontend (one completion queue
// polled by one thread); no model, no queue, no core.
// Metadata and config of one identity model make inferd-loadgen and
// perf_analyzer accept it; its statistics count the ModelInfer calls answered,
// so a bench can divide the CPU it used by the requests it served.
//
//   inferd-grpc-ceiling --port N [--model identity_fp32] [--dims 16]
//                       [--api async|callback|hybrid] [--threads 1]
// `--api async` (the default, inferd's) answers through completion queues,
// each of --threads threads polling its own queue and answering on it;
// `--api callback` on gRPC's callback API (inferd's frontend until
// 2026-11-29), and `--api hybrid` every method on the callback API but
// ModelInfer, which comes through the queues: to show what the API choice
// itself costs per request.
// Prints "listening on 127.0.0.1:<port>" once serving; runs until SIGINT/SIGTERM.
#include <absl/synchronization/mutex.h>
#include <grpcpp/grpcpp.h>
#include <signal.h>

#include <atomic>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "grpc_service.grpc.pb.h"

namespace {

using inference::GRPCInferenceService;

struct Options {
  int port = 0;
  std::string model = "identity_fp32";
  int64_t dims = 16;
  bool async = true;
  bool hybrid = false;  // callback API but ModelInfer on completion queues
  int threads = 1;
};

// What the ceiling answers, whichever API carries it.
class CannedAnswers {
 public:
  explicit CannedAnswers(const Options& options) : options_(options) {}

  // The identity model's answer: the request's tensors back as outputs.
  void Infer(const inference::ModelInferRequest& request, inference::ModelInferResponse* response) {
    response->set_model_name(request.model_name());
    response->set_model_version("1");
    response->set_id(request.id());
    for (int i = 0; i < request.inputs_size(); ++i) {
      const auto& input = request.inputs(i);
      auto* output = response->add_outputs();
      output->set_name("OUTPUT" + std::to_string(i));
      output->set_datatype(input.datatype());
      *output->mutable_shape() = input.shape();
    }
    *response->mutable_raw_output_contents() = request.raw_input_contents();
    answered_.fetch_add(1, std::memory_order_relaxed);
  }

  void Metadata(const inference::ModelMetadataRequest&, inference::ModelMetadataResponse* response) {
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
  }

  void Config(const inference::ModelConfigRequest&, inference::ModelConfigResponse* response) {
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
  }

  void Statistics(const inference::ModelStatisticsRequest&,
                  inference::ModelStatisticsResponse* response) {
    auto* stats = response->add_model_stats();
    stats->set_name(options_.model);
    stats->set_version("1");
    const uint64_t answered = answered_.load(std::memory_order_relaxed);
    stats->set_inference_count(answered);
    stats->set_execution_count(answered);
    stats->mutable_inference_stats()->mutable_success()->set_count(answered);
  }

 private:
  const Options options_;
  std::atomic<uint64_t> answered_{0};
};

grpc::ServerUnaryReactor* Done(grpc::CallbackServerContext* context) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  reactor->Finish(grpc::Status::OK);
  return reactor;
}

using Svc = GRPCInferenceService;
// Every method on the callback API but ModelInfer, which is on completion queues.
using HybridBase = Svc::WithCallbackMethod_ServerLive<Svc::WithCallbackMethod_ServerReady<
    Svc::WithCallbackMethod_ModelReady<Svc::WithCallbackMethod_ServerMetadata<
        Svc::WithCallbackMethod_ModelMetadata<Svc::WithAsyncMethod_ModelInfer<
            Svc::WithCallbackMethod_ModelStreamInfer<Svc::WithCallbackMethod_ModelConfig<
                Svc::WithCallbackMethod_ModelStatistics<Svc::WithCallbackMethod_RepositoryIndex<
                    Svc::WithCallbackMethod_RepositoryModelLoad<
                        Svc::WithCallbackMethod_RepositoryModelUnload<
                            Svc::WithCallbackMethod_SystemSharedMemoryStatus<
                                Svc::WithCallbackMethod_SystemSharedMemoryRegister<
                                    Svc::WithCallbackMethod_SystemSharedMemoryUnregister<
                                        Svc::WithCallbackMethod_CudaSharedMemoryStatus<
                                            Svc::WithCallbackMethod_CudaSharedMemoryRegister<
                                                Svc::WithCallbackMethod_CudaSharedMemoryUnregister<
                                                    Svc::WithCallbackMethod_TraceSetting<
                                                        Svc::WithCallbackMethod_LogSettings<
                                                            Svc::Service>>>>>>>>>>>>>>>>>>>>;

// The callback API, as inferd's frontend uses it.
template <class Base>
class CallbackMethods : public Base {
 public:
  explicit CallbackMethods(CannedAnswers* answers) : answers_(answers) {}

 protected:
  CannedAnswers* answers() const { return answers_; }

 public:
  grpc::ServerUnaryReactor* ModelMetadata(grpc::CallbackServerContext* context,
                                          const inference::ModelMetadataRequest* request,
                                          inference::ModelMetadataResponse* response) override {
    answers_->Metadata(*request, response);
    return Done(context);
  }
  grpc::ServerUnaryReactor* ModelConfig(grpc::CallbackServerContext* context,
                                        const inference::ModelConfigRequest* request,
                                        inference::ModelConfigResponse* response) override {
    answers_->Config(*request, response);
    return Done(context);
  }
  grpc::ServerUnaryReactor* ModelStatistics(
      grpc::CallbackServerContext* context, const inference::ModelStatisticsRequest* request,
      inference::ModelStatisticsResponse* response) override {
    answers_->Statistics(*request, response);
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

 private:
  CannedAnswers* const answers_;
};

class CallbackCeiling final : public CallbackMethods<Svc::CallbackService> {
 public:
  using CallbackMethods::CallbackMethods;
  grpc::ServerUnaryReactor* ModelInfer(grpc::CallbackServerContext* context,
                                       const inference::ModelInferRequest* request,
                                       inference::ModelInferResponse* response) override {
    answers()->Infer(*request, response);
    return Done(context);
  }
};

class HybridCeiling final : public CallbackMethods<HybridBase> {
 public:
  using CallbackMethods::CallbackMethods;
};

// The completion-queue API: every method async, the ones the load tools call
// answered by AsyncUnaryCall objects posted on each queue.
using AsyncService = GRPCInferenceService::AsyncService;

class AsyncCall {
 public:
  virtual ~AsyncCall() = default;
  // The queue handed this call's tag back: a call arrived, or its answer went.
  virtual void Proceed(bool ok) = 0;
};

template <class Request, class Response, class Service = AsyncService>
class AsyncUnaryCall final : public AsyncCall {
 public:
  using Writer = grpc::ServerAsyncResponseWriter<Response>;
  using Post = void (Service::*)(grpc::ServerContext*, Request*, Writer*,
                                      grpc::CompletionQueue*, grpc::ServerCompletionQueue*, void*);
  using Answer = std::function<void(const Request&, Response*)>;

  AsyncUnaryCall(Service* service, grpc::ServerCompletionQueue* queue, Post post,
                 Answer answer)
      : service_(service), queue_(queue), post_(post), answer_(std::move(answer)),
        writer_(&context_) {
    (service_->*post_)(&context_, &request_, &writer_, queue_, queue_, this);
  }

  void Proceed(bool ok) override {
    if (ok && !answered_) {
      new AsyncUnaryCall(service_, queue_, post_, answer_);  // the next call of this method
      answer_(request_, &response_);
      answered_ = true;
      writer_.Finish(response_, grpc::Status::OK, this);
      return;
    }
    delete this;
  }

 private:
  Service* const service_;
  grpc::ServerCompletionQueue* const queue_;
  const Post post_;
  const Answer answer_;
  grpc::ServerContext context_;
  Request request_;
  Response response_;
  Writer writer_;
  bool answered_ = false;
};

// Posts the first call of each method on `queue`, then serves it until shutdown.
void PollQueue(AsyncService* service, CannedAnswers* answers, grpc::ServerCompletionQueue* queue) {
  using namespace inference;
  auto bind = [answers](auto method) {
    return [answers, method](const auto& request, auto* response) {
      (answers->*method)(request, response);
    };
  };
  for (int posted = 0; posted < 4; ++posted) {
    new AsyncUnaryCall<ModelInferRequest, ModelInferResponse>(
        service, queue, &AsyncService::RequestModelInfer, bind(&CannedAnswers::Infer));
  }
  new AsyncUnaryCall<ModelMetadataRequest, ModelMetadataResponse>(
      service, queue, &AsyncService::RequestModelMetadata, bind(&CannedAnswers::Metadata));
  new AsyncUnaryCall<ModelConfigRequest, ModelConfigResponse>(
      service, queue, &AsyncService::RequestModelConfig, bind(&CannedAnswers::Config));
  new AsyncUnaryCall<ModelStatisticsRequest, ModelStatisticsResponse>(
      service, queue, &AsyncService::RequestModelStatistics, bind(&CannedAnswers::Statistics));
  new AsyncUnaryCall<ServerMetadataRequest, ServerMetadataResponse>(
      service, queue, &AsyncService::RequestServerMetadata,
      [](const ServerMetadataRequest&, ServerMetadataResponse* response) {
        response->set_name("inferd-grpc-ceiling");
      });
  new AsyncUnaryCall<ServerLiveRequest, ServerLiveResponse>(
      service, queue, &AsyncService::RequestServerLive,
      [](const ServerLiveRequest&, ServerLiveResponse* response) { response->set_live(true); });
  new AsyncUnaryCall<ServerReadyRequest, ServerReadyResponse>(
      service, queue, &AsyncService::RequestServerReady,
      [](const ServerReadyRequest&, ServerReadyResponse* response) { response->set_ready(true); });
  new AsyncUnaryCall<ModelReadyRequest, ModelReadyResponse>(
      service, queue, &AsyncService::RequestModelReady,
      [](const ModelReadyRequest&, ModelReadyResponse* response) { response->set_ready(true); });
  void* tag = nullptr;
  bool ok = false;
  while (queue->Next(&tag, &ok)) static_cast<AsyncCall*>(tag)->Proceed(ok);
}

// Hybrid: only ModelInfer comes through the queue.
void PollInferQueue(HybridCeiling* service, CannedAnswers* answers,
                    grpc::ServerCompletionQueue* queue) {
  using namespace inference;
  for (int posted = 0; posted < 4; ++posted) {
    new AsyncUnaryCall<ModelInferRequest, ModelInferResponse, HybridCeiling>(
        service, queue, &HybridCeiling::RequestModelInfer,
        [answers](const ModelInferRequest& request, ModelInferResponse* response) {
          answers->Infer(request, response);
        });
  }
  void* tag = nullptr;
  bool ok = false;
  while (queue->Next(&tag, &ok)) static_cast<AsyncCall*>(tag)->Proceed(ok);
}

bool ParseOptions(int argc, char** argv, Options* options) {
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--port") == 0) {
      options->port = std::atoi(argv[i + 1]);
    } else if (std::strcmp(argv[i], "--model") == 0) {
      options->model = argv[i + 1];
    } else if (std::strcmp(argv[i], "--dims") == 0) {
      options->dims = std::atoll(argv[i + 1]);
    } else if (std::strcmp(argv[i], "--api") == 0) {
      options->async = std::strcmp(argv[i + 1], "async") == 0;
      options->hybrid = std::strcmp(argv[i + 1], "hybrid") == 0;
      if (!options->async && !options->hybrid && std::strcmp(argv[i + 1], "callback") != 0) {
        return false;
      }
    } else if (std::strcmp(argv[i], "--threads") == 0) {
      options->threads = std::atoi(argv[i + 1]);
    } else {
      return false;
    }
  }
  return argc % 2 == 1 && options->port > 0 && options->threads > 0;
}

// Blocked in every thread (the server's included), so that main's sigwait
// takes SIGINT and SIGTERM.
sigset_t BlockStopSignals() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  return signals;
}

// The service of `--api`: completion queues, hybrid, or the callback API.
grpc::Service* ChosenService(const Options& options, AsyncService* async_service,
                             HybridCeiling* hybrid_service, CallbackCeiling* callback_service) {
  if (options.async) return async_service;
  if (options.hybrid) return hybrid_service;
  return callback_service;
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  if (!ParseOptions(argc, argv, &options)) {
    std::fprintf(stderr,
                 "usage: %s --port N [--model NAME] [--dims N] [--api callback|async] "
                 "[--threads N]\n",
                 argv[0]);
    return 2;
  }
  sigset_t signals = BlockStopSignals();

  // As inferd's frontend does (grpc_server.cc): Debian's Abseil checks every
  // lock of gRPC's for deadlock cycles unless told not to.
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  CannedAnswers answers(options);
  CallbackCeiling callback_service(&answers);
  AsyncService async_service;
  HybridCeiling hybrid_service(&answers);
  grpc::ServerBuilder builder;
  const std::string address = "127.0.0.1:" + std::to_string(options.port);
  builder.AddListeningPort(address, grpc::InsecureServerCredentials());
  builder.RegisterService(
      ChosenService(options, &async_service, &hybrid_service, &callback_service));
  // As inferd's frontend (src/frontends/grpc/grpc_server.cc).
  builder.SetMaxReceiveMessageSize(INT_MAX);
  builder.SetMaxSendMessageSize(INT_MAX);
  std::vector<std::unique_ptr<grpc::ServerCompletionQueue>> queues;
  for (int i = 0; (options.async || options.hybrid) && i < options.threads; ++i) {
    queues.push_back(builder.AddCompletionQueue());
  }
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (server == nullptr) {
    std::fprintf(stderr, "cannot listen on %s\n", address.c_str());
    return 1;
  }
  std::vector<std::thread> pollers;
  for (auto& queue : queues) {
    if (options.hybrid) {
      pollers.emplace_back(PollInferQueue, &hybrid_service, &answers, queue.get());
    } else {
      pollers.emplace_back(PollQueue, &async_service, &answers, queue.get());
    }
  }
  std::printf("listening on %s\n", address.c_str());
  std::fflush(stdout);
  int signal_number = 0;
  sigwait(&signals, &signal_number);
  server->Shutdown();
  for (auto& queue : queues) queue->Shutdown();
  for (auto& poller : pollers) poller.join();
  return 0;
}
