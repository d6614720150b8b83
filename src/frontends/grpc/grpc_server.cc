// The gRPC listener: builder settings, start, graceful stop.
#include "grpc/grpc_server.h"

#include <absl/synchronization/mutex.h>
#include <grpc/grpc.h>
#include <grpcpp/resource_quota.h>
#include <grpcpp/server.h>
#include <grpcpp/server_builder.h>
#include <grpcpp/server_posix.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <thread>
#include <vector>

#include "common/blocking_worker.h"
#include "common/header_forward.h"
#include "common/output_allocator.h"
#include "grpc/inference_service.h"
#include "grpc/output_destination.h"
#include "grpc/queue_call.h"
#include "grpc/server_credentials.h"
#include "grpc/service_context.h"
#include "grpc/stream_reactor.h"
#include "grpc/stream_registry.h"

namespace inferd::grpc_frontend {
namespace {

// How long Stop lets calls in progress (open streams included) go on.
constexpr std::chrono::seconds kStopGrace{3};

grpc_compression_level ToGrpcLevel(CompressionLevel level) {
  switch (level) {
    case CompressionLevel::kNone:
      return GRPC_COMPRESS_LEVEL_NONE;
    case CompressionLevel::kLow:
      return GRPC_COMPRESS_LEVEL_LOW;
    case CompressionLevel::kMedium:
      return GRPC_COMPRESS_LEVEL_MED;
    case CompressionLevel::kHigh:
      return GRPC_COMPRESS_LEVEL_HIGH;
  }
  return GRPC_COMPRESS_LEVEL_NONE;
}

// The message size, stream and memory limits (docs/limits.md).
void SetLimits(const GrpcOptions& options, grpc::ServerBuilder* builder) {
  builder->SetMaxReceiveMessageSize(options.max_input_size);
  if (options.max_concurrent_streams > 0) {
    builder->AddChannelArgument(GRPC_ARG_MAX_CONCURRENT_STREAMS, options.max_concurrent_streams);
  }
  if (options.memory_quota_bytes > 0) {
    grpc::ResourceQuota quota("inferd-grpc");
    quota.Resize(static_cast<size_t>(options.memory_quota_bytes));
    builder->SetResourceQuota(quota);
  }
}

void SetKeepalive(const GrpcOptions& options, grpc::ServerBuilder* builder) {
  builder->AddChannelArgument(GRPC_ARG_KEEPALIVE_TIME_MS, options.keepalive_time_ms);
  builder->AddChannelArgument(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, options.keepalive_timeout_ms);
  builder->AddChannelArgument(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS,
                              options.keepalive_permit_without_calls ? 1 : 0);
  builder->AddChannelArgument(GRPC_ARG_HTTP2_MAX_PINGS_WITHOUT_DATA,
                              options.http2_max_pings_without_data);
  builder->AddChannelArgument(GRPC_ARG_HTTP2_MIN_RECV_PING_INTERVAL_WITHOUT_DATA_MS,
                              options.http2_min_recv_ping_interval_without_data_ms);
  builder->AddChannelArgument(GRPC_ARG_HTTP2_MAX_PING_STRIKES, options.http2_max_ping_strikes);
  if (options.max_connection_age_ms > 0) {
    builder->AddChannelArgument(GRPC_ARG_MAX_CONNECTION_AGE_MS, options.max_connection_age_ms);
  }
  if (options.max_connection_age_grace_ms > 0) {
    builder->AddChannelArgument(GRPC_ARG_MAX_CONNECTION_AGE_GRACE_MS,
                                options.max_connection_age_grace_ms);
  }
}

// Keeps gRPC's library initialized until the process ends. Destroying the
// last grpc::Server otherwise runs grpc_shutdown, which joins gRPC's executor
// threads; in gRPC 1.51 one of them can be inside a poll of up to 10 s, and
// the exit waited for it (seen as an exit that took ten seconds after every
// request had been answered). The process is ending; the OS takes the rest.
void HoldGrpcLibrary() {
  static const bool held = [] {
    grpc_init();
    return true;
  }();
  (void)held;
}

}  // namespace

class GrpcServer::Impl {
 public:
  Impl(INFERD_Server* server, GrpcOptions options)
      : options_(std::move(options)), service_(context_) {
    context_.server = server;
    context_.worker = &worker_;
    context_.shared_memory = options_.shared_memory;
    context_.restrictions = options_.restrictions;
    context_.access = options_.access;
    context_.infer_compression = ToGrpcLevel(options_.infer_response_compression);
    context_.streams = &streams_;
  }

  ~Impl() { Stop(); }

  Status Start() {
    HoldGrpcLibrary();
    if (Status s = allocator_.Init(); !s.ok()) return s.WithPrefix("response allocator: ");
    context_.allocator = allocator_.get();
    if (!options_.header_forward_pattern.empty()) {
      ASSIGN_OR_RETURN(header_forwarder_,
                       HeaderForwarder::Create(options_.header_forward_pattern,
                                               "--grpc-header-forward-pattern"));
      context_.header_forwarder = header_forwarder_.get();
    }
    // Debian builds Abseil without NDEBUG, so every absl::Mutex that gRPC takes
    // also records its lock order in a global graph to detect deadlock cycles
    // (about 1.3% of the gRPC ceiling's CPU per request, bench section 17).
    // Production builds of gRPC run without it.
    absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
    grpc::ServerBuilder builder;
    const std::string address = options_.address + ":" + std::to_string(options_.port);
    int bound_port = 0;
    if (options_.listen) {
      ASSIGN_OR_RETURN(std::shared_ptr<grpc::ServerCredentials> credentials,
                       MakeServerCredentials(options_));
      builder.AddListeningPort(address, credentials, &bound_port);
    }
    builder.RegisterService(service_.grpc_service());
    // One queue polled by one thread by default: gRPC 1.51's pollers share
    // one epoll set, so a second polling thread takes over some of each
    // call's events and wakes the first (queue_call.h, bench section 17).
    for (int i = 0; i < std::max(1, options_.thread_count); ++i) {
      queues_.push_back(builder.AddCompletionQueue());
    }
    // Responses are as large as the model makes them; gRPC's 4 MiB default is not.
    builder.SetMaxSendMessageSize(INT_MAX);
    SetLimits(options_, &builder);
    SetKeepalive(options_, &builder);
    // Explicit either way: gRPC's own default on Linux is to allow it.
    builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, options_.reuse_port ? 1 : 0);
    server_ = builder.BuildAndStart();
    if (server_ != nullptr) {
      loads_ = std::make_unique<QueueLoad[]>(queues_.size());
      for (size_t i = 0; i < queues_.size(); ++i) {
        service_.AwaitCalls(queues_[i].get(), &loads_[i], &live_calls_);
        pollers_.emplace_back(PollQueue, queues_[i].get(), &loads_[i]);
      }
    }
    if (server_ != nullptr && !options_.listen) return Status::Ok();
    if (server_ == nullptr || bound_port == 0) {
      Stop();
      return Status::Unavailable(
          "cannot listen on " + address + " (address in use or invalid?" +
          (options_.reuse_port ? ")"
                               : " To share the port, start every server on it with "
                                 "--reuse-grpc-port=true)"));
    }
    port_ = static_cast<uint16_t>(bound_port);
    return Status::Ok();
  }

  uint16_t port() const { return port_; }

  void ServeConnection(int fd) {
    if (server_ == nullptr) {
      close(fd);
      return;
    }
    grpc::AddInsecureChannelFromFd(server_.get(), fd);
  }

  // gRPC's Shutdown closes the listener and sends GOAWAY at once, then waits
  // for the calls in progress until `bound`: on a thread of its own, so that
  // the server drains meanwhile. Open streams end once their requests are
  // answered, or Shutdown would wait for their clients.
  void BeginDrain(std::chrono::seconds bound) {
    if (server_ == nullptr || draining_.joinable()) return;
    const auto deadline = std::chrono::system_clock::now() + bound;
    draining_ = std::thread([this, deadline] { server_->Shutdown(deadline); });
    for (StreamReactor* stream : streams_.BeginDrain()) stream->FinishForExit();
  }

  void Stop() {
    if (server_ != nullptr) {
      if (draining_.joinable()) {
        draining_.join();
      } else {
        server_->Shutdown(std::chrono::system_clock::now() + kStopGrace);
      }
      server_->Wait();
      // Calls finish only after the server released their requests, so once
      // none is alive no server callback is left to run; their last
      // operations end on the queue, which is polled until then.
      live_calls_.WaitForNone();
    }
    for (auto& queue : queues_) queue->Shutdown();
    for (std::thread& poller : pollers_) poller.join();
    // Queues whose poller never started (the server did not): drained here.
    for (size_t i = pollers_.size(); i < queues_.size(); ++i) {
      PollQueue(queues_[i].get(), nullptr);
    }
    pollers_.clear();
    server_.reset();
    queues_.clear();
    worker_.Stop();
  }

 private:
  // Constant after Start.
  GrpcOptions options_;
  OutputAllocator<OutputDestination> allocator_;  // outlives server_: declared before it
  std::unique_ptr<const HeaderForwarder> header_forwarder_;  // likewise; null: none
  BlockingWorker worker_;      // likewise
  StreamRegistry streams_;     // likewise
  ServiceContext context_;
  InferenceService service_;
  LiveCalls live_calls_;  // every call's object, awaited ones included
  // Controlling thread only.
  std::vector<std::unique_ptr<grpc::ServerCompletionQueue>> queues_;  // outlive server_'s calls
  std::unique_ptr<grpc::Server> server_;
  std::vector<std::thread> pollers_;  // one per queue
  std::unique_ptr<QueueLoad[]> loads_;  // one per queue, each its poller's
  std::thread draining_;  // BeginDrain's Shutdown, joined by Stop
  uint16_t port_ = 0;
};

GrpcServer::GrpcServer(INFERD_Server* server, GrpcOptions options)
    : impl_(std::make_unique<Impl>(server, std::move(options))) {}

GrpcServer::~GrpcServer() = default;

Status GrpcServer::Start() { return impl_->Start(); }

uint16_t GrpcServer::port() const { return impl_->port(); }

void GrpcServer::ServeConnection(int fd) { impl_->ServeConnection(fd); }

void GrpcServer::BeginDrain(std::chrono::seconds bound) { impl_->BeginDrain(bound); }

void GrpcServer::Stop() { impl_->Stop(); }

}  // namespace inferd::grpc_frontend
