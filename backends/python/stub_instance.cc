// A Python stub's life (see stub_instance.h): starting it and running
// initialize(), supervising it, burying a dead one, and stopping.
#include "stub_instance.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <cstdio>
#include <utility>

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "backend_io.h"
#include "wire_format.h"

namespace inferd::python {

namespace {

// How long finalize() may take before its stub is killed.
constexpr std::chrono::seconds kFinalizeTimeout(10);
// Pauses between attempts to restart a stub whose initialize() failed.
constexpr std::chrono::milliseconds kFirstBackoff(200);
constexpr std::chrono::milliseconds kMaxBackoff(10'000);

}  // namespace

// The backend ABI has no logger: lines go to stderr, where the server logs.
void StubInstance::LogLine(char level, const std::string& text) {
  std::fprintf(stderr, "%c python backend: %s\n", level, text.c_str());
}

StubInstance::StubInstance(const ModelSettings& settings, INFERD_Server* server,
                           std::string name, std::string kind, int32_t device_id)
    : settings_(settings), name_(std::move(name)), kind_(std::move(kind)),
      device_id_(device_id), server_(server), main_spin_(settings.spin_us * 1000),
      execute_spin_(settings.execute_spin_us * 1000) {}

StubInstance::~StubInstance() { Stop(); }

std::string StubInstance::Label() const {
  return settings_.Label() + " instance '" + name_ + "'";
}

Status StubInstance::Start() {
  if (Status s = region_.Create("inferd-python-" + name_, settings_.shm_request_bytes,
                                settings_.shm_ring_bytes);
      !s.ok()) {
    return s.WithPrefix(Label() + ": ");
  }
  {
    MutexLock lock(&mu_);
    allocator_.emplace(region_.request_begin(), region_.request_bytes());
  }
  supervisor_ = std::thread([this] { Supervise(); });
  MutexLock lock(&mu_);
  while (state_ == State::kStarting) cv_.Wait(&mu_);
  if (state_ == State::kReady) return Status::Ok();
  Status error = broken_;
  lock.Unlock();
  Stop();  // the first start failing fails the load: no retries
  return error;
}

void StubInstance::Supervise() {
  auto backoff = kFirstBackoff;
  for (bool first = true;; first = false) {
    const Status launched = Launch();
    {
      MutexLock lock(&mu_);
      state_ = launched.ok() ? State::kReady : State::kBroken;
      broken_ = launched;
      cv_.SignalAll();
      // Stop() came while the stub started and found nothing to tell.
      if (launched.ok() && stopping_) {
        ControlChannel::SendTo(send_fd_, MakeMessage(MessageType::kFinalize));
      }
    }
    if (launched.ok()) {
      backoff = kFirstBackoff;
      if (settings_.decoupled) {
        Serve();
      } else {
        WatchExit();
      }
    }
    Bury(launched.ok());
    MutexLock lock(&mu_);
    if (first && !launched.ok()) {
      stopping_ = true;  // the load fails with this error; no retries
    } else if (!launched.ok() && !stopping_) {
      LogLine('E', launched.message() + "; trying again in " +
                       std::to_string(backoff.count()) + " ms");
      cv_.WaitFor(&mu_, backoff);
      backoff = std::min(backoff * 2, kMaxBackoff);
    }
    if (stopping_) {
      state_ = State::kStopped;
      cv_.SignalAll();
      return;
    }
    state_ = State::kStarting;
  }
}

std::string StubInstance::InitializeArgs() const {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
  const std::string version = std::to_string(settings_.version);
  const std::string device = std::to_string(device_id_);
  w.StartObject();
  w.Key("model_file");
  w.String(settings_.model_file.c_str());
  w.Key("decoupled");
  w.Bool(settings_.decoupled);
  w.Key("iterative");
  w.Bool(settings_.iterative);
  w.Key("label");
  w.String(Label().c_str());
  w.Key("spin_us");
  w.Uint64(settings_.spin_us);
  // Triton's initialize(args): every value a string.
  w.Key("args");
  w.StartObject();
  w.Key("model_config");
  w.String(settings_.config_json.c_str());
  w.Key("model_instance_kind");
  w.String(kind_.c_str());
  w.Key("model_instance_name");
  w.String(name_.c_str());
  w.Key("model_instance_device_id");
  w.String(device.c_str());
  w.Key("model_repository");
  w.String(settings_.repository_path.c_str());
  w.Key("model_version");
  w.String(version.c_str());
  w.Key("model_name");
  w.String(settings_.model_name.c_str());
  w.EndObject();
  w.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize());
}

uint64_t StubInstance::PutText(const std::string& text) {
  MutexLock lock(&mu_);
  const auto at = allocator_->Allocate(text.size());
  if (!at) return 0;
  std::memcpy(region_.base() + *at, text.data(), text.size());
  return *at;
}

Status StubInstance::Launch() {
  ControlChannel stub_main, stub_call;
  if (!ControlChannel::Pair(&main_, &stub_main) || !ControlChannel::Pair(&call_, &stub_call)) {
    return Status::Unavailable(Label() + ": cannot create the stub's control channels");
  }
  region_.ring_consumed().store(0, std::memory_order_release);
  Status started =
      process_.Start(settings_.StubArgv(), stub_main.fd(), stub_call.fd(), region_.fd());
  // The stub holds the other ends now: its exit is our end of stream.
  stub_main.Close();
  stub_call.Close();
  if (!started.ok()) return started.WithPrefix(Label() + ": ");
  {
    MutexLock lock(&mu_);
    live_pid_ = process_.pid();
    call_fd_ = call_.fd();  // initialize() may already call other models
  }
  const std::string args = InitializeArgs();
  const uint64_t args_at = PutText(args);
  if (args_at == 0) return Status::Internal(Label() + ": no shared memory for initialize()");
  main_.Send(MakeMessage(MessageType::kInitialize, 0, args_at, args.size()));
  ControlMessage m;
  Status result;
  for (;;) {
    if (!main_.Receive(&m)) {
      result = Status::Unavailable(Label() + ": the Python stub ended during initialize()");
      break;
    }
    if (m.type != static_cast<uint32_t>(MessageType::kInitializeDone)) {
      Dispatch(m);  // initialize() may call other models (BLS)
      continue;
    }
    if (m.flags & kFlagError) {
      result = Status::Unavailable(Label() + ": initialize() failed: " + TakeRingText(m));
    }
    break;
  }
  {
    MutexLock lock(&mu_);
    allocator_->Free(args_at);
    if (result.ok()) send_fd_ = main_.fd();
  }
  return result;
}

void StubInstance::Serve() {
  ControlMessage m;
  // Poll while an execute() runs in the stub, if answers come soon: then
  // they are due in tens of microseconds. Between executions, sleep.
  for (;;) {
    const bool received = executing_.load(std::memory_order_acquire)
                              ? main_spin_.Receive(main_, &m)
                              : main_.Receive(&m);
    if (!received) return;
    Dispatch(m);
  }
}

void StubInstance::WatchExit() {
  const int exit_fd = process_.OpenExitFd();
  if (exit_fd < 0) {
    // No pidfd (a kernel before 5.3): look every 100 ms.
    while (!process_.HasExited()) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    return;
  }
  pollfd p{exit_fd, POLLIN, 0};
  while (poll(&p, 1, -1) < 0 && errno == EINTR) {
  }
  close(exit_fd);
}

void StubInstance::Bury(bool served) {
  std::unordered_map<uint64_t, InFlight> orphans;
  bool stopping;
  {
    MutexLock lock(&mu_);
    // Executes wait from now until the next stub is ready (or broken).
    if (served && !stopping_) state_ = State::kStarting;
    send_fd_ = -1;
    // An Execute still reading the channel is woken and leaves it to us.
    main_.Shutdown();
    while (reading_) cv_.Wait(&mu_);
    call_fd_ = -1;
    for (uint64_t block : bls_blocks_) allocator_->Free(block);
    bls_blocks_.clear();
    orphans.swap(in_flight_);
    for (const auto& [block, pending] : batch_pending_) allocator_->Free(block);
    batch_pending_.clear();
    ++generation_;
    stopping = stopping_;
    cv_.SignalAll();
  }
  DropMetricHandles();
  const pid_t pid = process_.pid();
  // Our ends closed, a stub still waiting for a command exits by itself.
  main_.Close();
  call_.Close();
  // The channel ended: the stub exited, or broke the protocol and must go.
  // A signal to a process that already exited changes nothing it reports.
  if (!stopping) process_.Kill();
  // Stop() may still kill a stub that hangs in finalize() until it is reaped.
  process_.AwaitExit();
  {
    MutexLock lock(&mu_);
    live_pid_ = 0;
  }
  const std::string how = process_.Wait();
  if (pid <= 0 || !served) return;  // a failed launch reports its own error
  if (!stopping || !orphans.empty()) {
    LogLine(stopping ? 'I' : 'E', Label() + ": the Python stub (pid " + std::to_string(pid) +
                                      ") " + how +
                                      (stopping ? "" : "; starting a new one"));
  }
  if (orphans.empty()) return;
  const Status error = Status::Internal(
      Label() + ": the Python stub process (pid " + std::to_string(pid) + ") died (" + how +
      ") while it held this request; " + std::to_string(orphans.size()) +
      " request(s) failed");
  for (auto& [handle, flight] : orphans) {
    Status sent = flight.reply.SendError(error, true);
    (void)sent;  // the client may have gone; nothing else to tell
  }
}

void StubInstance::Stop() {
  int fd;
  {
    MutexLock lock(&mu_);
    if (!supervisor_.joinable()) return;
    stopping_ = true;
    fd = send_fd_;
    cv_.SignalAll();
    if (fd >= 0) ControlChannel::SendTo(fd, MakeMessage(MessageType::kFinalize));
    const auto deadline = std::chrono::steady_clock::now() + kFinalizeTimeout;
    if (fd >= 0 && !settings_.decoupled) {
      // Nobody else reads the channel of a model that is not decoupled (no
      // execute runs now), and finalize() may use its metrics.
      reading_ = true;
      lock.Unlock();
      ReadFinalize(deadline);
      lock.Lock();
      reading_ = false;
      cv_.SignalAll();
    }
    while (state_ != State::kStopped) {
      if (!cv_.WaitUntil(&mu_, deadline)) {
        if (live_pid_ > 0) {
          LogLine('W', Label() + ": finalize() did not end within " +
                           std::to_string(kFinalizeTimeout.count()) + " s; killing its stub");
          kill(live_pid_, SIGKILL);
        }
        break;
      }
    }
  }
  supervisor_.join();
  // The server still calls back into this object for the stub's requests.
  MutexLock lock(&mu_);
  while (bls_in_flight_ > 0 || control_in_flight_ > 0) {
    if (!cv_.WaitFor(&mu_, kFinalizeTimeout)) {
      LogLine('W', Label() + ": waiting for " + std::to_string(bls_in_flight_) +
                       " request(s) the model sent to other models and " +
                       std::to_string(control_in_flight_) + " model load(s) or unload(s)");
    }
  }
}

void StubInstance::ReadFinalize(std::chrono::steady_clock::time_point deadline) {
  ControlMessage m;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    pollfd p{main_.fd(), POLLIN, 0};
    if (left.count() <= 0 || poll(&p, 1, static_cast<int>(left.count()) + 1) <= 0) return;
    if (!main_.Receive(&m)) return;
    if (m.type == static_cast<uint32_t>(MessageType::kFinalizeDone)) return;
    Dispatch(m);
  }
}

}  // namespace inferd::python
