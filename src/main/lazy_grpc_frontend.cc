// The accept loop and the load on the first connection.
#include "lazy_grpc_frontend.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <spdlog/spdlog.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <utility>

#include "common/tcp_listener.h"
#include "grpc/grpc_module.h"
#include "grpc_module_loader.h"

namespace inferd {
namespace {

// How long the loop waits after accept ran out of file descriptors before it
// tries again (the connection stays queued meanwhile), instead of spinning.
constexpr int kOutOfFdsBackoffMs = 100;

bool IsOutOfFds(int error) {
  return error == EMFILE || error == ENFILE || error == ENOBUFS || error == ENOMEM;
}

}  // namespace

bool CanLoadGrpcLazily(const grpc_frontend::GrpcOptions& options) {
  return options.listen && !options.use_ssl && !options.use_mutual_ssl && !options.reuse_port &&
         IsNumericHost(options.address);
}

LazyGrpcFrontend::LazyGrpcFrontend(std::string module_folder, INFERD_Server* server,
                                   grpc_frontend::GrpcOptions options)
    : module_folder_(std::move(module_folder)), server_(server), options_(std::move(options)) {}

LazyGrpcFrontend::~LazyGrpcFrontend() { Stop(); }

Status LazyGrpcFrontend::Start() {
  // A missing module fails the start, as when it is loaded at start.
  const std::string module_path = module_folder_ + "/" + grpc_frontend::kGrpcModuleFile;
  if (access(module_path.c_str(), R_OK) != 0) {
    return Status::Unavailable("cannot load the gRPC frontend (" + module_path + ": " +
                               std::strerror(errno) + "); --allow-grpc=false serves without it");
  }
  ASSIGN_OR_RETURN(TcpListener listener, ListenTcp(options_.address, options_.port));
  wake_fd_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (wake_fd_ < 0) {
    close(listener.fd);
    return Status::Unavailable(std::string("eventfd: ") + std::strerror(errno));
  }
  listen_fd_ = listener.fd;
  port_ = listener.port;
  acceptor_ = std::thread([this] { AcceptLoop(); });
  return Status::Ok();
}

void LazyGrpcFrontend::AcceptLoop() {
  pollfd fds[2] = {{listen_fd_, POLLIN, 0}, {wake_fd_, POLLIN, 0}};
  int timeout_ms = -1;
  while (true) {
    if (poll(fds, 2, timeout_ms) < 0 && errno != EINTR) {
      SPDLOG_ERROR("gRPC listener: poll failed: {}; gRPC connections are refused from now on",
                   std::strerror(errno));
      return CloseListener();
    }
    if (fds[1].revents != 0) return;  // Stop
    timeout_ms = -1;
    while (true) {
      const int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (fd >= 0) {
        Serve(fd);
        if (load_failed_) return CloseListener();
        continue;
      }
      if (IsOutOfFds(errno)) {
        SPDLOG_WARN("gRPC listener: cannot accept a connection: {}", std::strerror(errno));
        timeout_ms = kOutOfFdsBackoffMs;
      }
      break;  // EAGAIN: none left; ECONNABORTED and the like: the client gave up
    }
  }
}

// Clients then get "connection refused" at once rather than a connection
// nobody serves.
void LazyGrpcFrontend::CloseListener() {
  close(listen_fd_);
  listen_fd_ = -1;
}

void LazyGrpcFrontend::Serve(int fd) {
  if (!EnsureLoaded()) {
    close(fd);
    return;
  }
  const int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));  // as gRPC's own listener
  grpc_->ServeConnection(fd);
}

bool LazyGrpcFrontend::EnsureLoaded() {
  if (grpc_ != nullptr) return true;
  if (load_failed_) return false;
  const auto begin = std::chrono::steady_clock::now();
  grpc_frontend::GrpcOptions options = options_;
  options.listen = false;
  StatusOr<std::unique_ptr<ConnectionFrontend>> loaded =
      LoadGrpcFrontend(module_folder_, server_, options);
  Status status = loaded.status();
  if (status.ok()) status = (*loaded)->Start();
  if (!status.ok()) {
    // Logged once; the listener closes (connections are refused), HTTP serves on.
    SPDLOG_ERROR("cannot serve gRPC: loading the gRPC frontend on the first connection failed: {}",
                 status.message());
    load_failed_ = true;
    return false;
  }
  grpc_ = std::move(loaded).value();
  started_.store(grpc_.get(), std::memory_order_release);
  const std::chrono::duration<double, std::milli> took = std::chrono::steady_clock::now() - begin;
  SPDLOG_INFO("loaded the gRPC frontend on the first connection in {:.1f} ms", took.count());
  return true;
}

void LazyGrpcFrontend::StopAccepting() {
  if (acceptor_.joinable()) {
    const uint64_t one = 1;
    (void)!write(wake_fd_, &one, sizeof(one));
    acceptor_.join();
  }
  for (int* fd : {&listen_fd_, &wake_fd_}) {
    if (*fd >= 0) close(*fd);
    *fd = -1;
  }
}

void LazyGrpcFrontend::BeginDrain(std::chrono::seconds bound) {
  StopAccepting();  // a new connection is refused: a proxy tries another replica
  if (grpc_ != nullptr) grpc_->BeginDrain(bound);
}

void LazyGrpcFrontend::Stop() {
  StopAccepting();
  if (grpc_ != nullptr) grpc_->Stop();
}

void LazyGrpcFrontend::AnswerInFlightAtExit(const std::string& why) {
  if (ConnectionFrontend* grpc = started_.load(std::memory_order_acquire)) {
    grpc->AnswerInFlightAtExit(why);
  }
}

}  // namespace inferd
