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

// The backend ABI has no logger: lines go to stderr, where the server logs.
void LogLine(char level, const std::string& text) {
  std::fprintf(stderr, "%c python backend: %s\n", level, text.c_str());
}

uint64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

ControlMessage Message(MessageType type, uint64_t id = 0, uint64_t offset = 0,
                       uint64_t size = 0) {
  ControlMessage m;
  m.type = static_cast<uint32_t>(type);
  m.id = id;
  m.offset = offset;
  m.size = size;
  return m;
}

}  // namespace

StubInstance::StubInstance(const ModelSettings& settings, INFERD_Server* server,
                           std::string name, std::string kind, int32_t device_id)
    : settings_(settings), name_(std::move(name)), kind_(std::move(kind)),
      device_id_(device_id), server_(server) {}

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
        ControlChannel::SendTo(send_fd_, Message(MessageType::kFinalize));
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
  main_.Send(Message(MessageType::kInitialize, 0, args_at, args.size()));
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

void StubInstance::Dispatch(const ControlMessage& m) {
  switch (static_cast<MessageType>(m.type)) {
    case MessageType::kResponse:
      OnResponse(m);
      break;
    case MessageType::kExecuteDone:
      MarkBatchDone();
      break;
    case MessageType::kIsCancelled:
      OnIsCancelled(m);
      break;
    case MessageType::kBlsRequest:
      OnBlsRequest(m);
      break;
    case MessageType::kBlsFree:
      OnBlsFree(m);
      break;
    case MessageType::kFinalizeDone:
    case MessageType::kPong:
      break;
    default:
      LogLine('W', Label() + ": unexpected message type " + std::to_string(m.type));
      Consume(m);
  }
}

void StubInstance::Serve() {
  ControlMessage m;
  // Poll while an execute() runs in the stub: its answer is due in tens of
  // microseconds. Between executions, sleep.
  const uint64_t spin_ns = settings_.spin_us * 1000;
  while (main_.Receive(&m, executing_.load(std::memory_order_acquire) ? spin_ns : 0)) {
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

bool StubInstance::ReadBatch(uint64_t batch) {
  const uint64_t spin_ns = settings_.spin_us * 1000;
  ControlMessage m;
  for (;;) {
    if (!main_.Receive(&m, spin_ns)) return false;
    Dispatch(m);
    MutexLock lock(&mu_);
    if (done_batch_ >= batch) return true;
  }
}

bool StubInstance::InRing(const ControlMessage& m) const {
  const uint64_t begin = region_.ring_begin();
  return m.offset >= begin && m.size <= region_.ring_bytes() &&
         m.offset - begin <= region_.ring_bytes() - m.size;
}

void StubInstance::Consume(const ControlMessage& m) {
  // Blocks are consumed in the order the stub wrote them, so the position
  // only moves forward; the stub reuses the space behind it.
  if (m.ring_end != 0) region_.ring_consumed().store(m.ring_end, std::memory_order_release);
}

std::string StubInstance::TakeRingText(const ControlMessage& m) {
  std::string text = InRing(m) ? std::string(region_.base() + m.offset, m.size)
                               : "(the stub sent a text outside its ring)";
  Consume(m);
  return text;
}

void StubInstance::MarkBatchDone() {
  // Batches run one at a time per instance: the one running is the last sent.
  MutexLock lock(&mu_);
  done_batch_ = next_batch_;
  executing_.store(false, std::memory_order_release);
  cv_.SignalAll();
}

void StubInstance::OnResponse(const ControlMessage& m) {
  const bool final = (m.flags & kFlagFinal) != 0;
  RequestReply last;             // the request's reply, when this is its final
  RequestReply* reply = nullptr;  // stays in in_flight_ when not final
  {
    MutexLock lock(&mu_);
    auto it = in_flight_.find(m.id);
    if (it != in_flight_.end()) {
      reply = &it->second.reply;
      if (final) {
        last = std::move(it->second.reply);
        reply = &last;
        const uint64_t block = it->second.batch_block;
        in_flight_.erase(it);
        if (--batch_pending_[block] == 0) {
          batch_pending_.erase(block);
          allocator_->Free(block);
        }
      }
    }
  }
  Status sent;
  if (reply == nullptr) {
    // The stub's Python sent after FINAL; the user's error, logged once per send.
    LogLine('W', Label() + ": a response for a request that already ended was dropped");
  } else if (m.flags & kFlagHasBlock) {
    ResponseView view;
    Status parsed = InRing(m) ? ParseResponseBlock(region_.base() + m.offset, m.size, &view)
                              : Status::Internal("the Python stub sent a block outside its ring");
    sent = parsed.ok() ? reply->Send(view, final)
                       : reply->SendError(parsed.WithPrefix(Label() + ": "), final);
  } else if (final) {
    sent = reply->SendFinal();
  }
  Consume(m);
  if (!sent.ok()) LogLine('W', Label() + ": " + sent.message());
  if (m.flags & kFlagBatchDone) MarkBatchDone();
}

void StubInstance::OnIsCancelled(const ControlMessage& m) {
  bool cancelled = true;  // an ended request is as good as cancelled
  {
    // The supervisor alone answers requests, so the reply stays while it asks.
    MutexLock lock(&mu_);
    auto it = in_flight_.find(m.id);
    if (it != in_flight_.end()) cancelled = it->second.reply.IsCancelled();
  }
  ControlMessage reply = Message(MessageType::kCancelledReply, m.id);
  reply.flags = cancelled ? 1 : 0;
  call_.Send(reply);
}

void StubInstance::OnBlsRequest(const ControlMessage& m) {
  uint64_t generation;
  {
    MutexLock lock(&mu_);
    generation = generation_;
    ++bls_in_flight_;
  }
  BlsRequestView request;
  Status s = InRing(m) ? ParseBlsRequest(region_.base() + m.offset, m.size, &request)
                       : Status::Internal("the Python stub sent a block outside its ring");
  // SubmitBls copies the inputs: the ring space can go back to the stub after.
  if (s.ok()) s = SubmitBls(server_, request, m.id, generation, this);
  Consume(m);
  if (s.ok()) return;
  ResponseView error;
  error.has_error = true;
  error.error_code = static_cast<uint32_t>(s.code());
  error.error = s.message();
  OnBlsResponse(m.id, generation, &error, true);
  OnBlsReleased();
}

void StubInstance::OnBlsResponse(uint64_t id, uint64_t generation, const ResponseView* response,
                                 bool final) {
  ControlMessage message = Message(MessageType::kBlsResponse, id);
  message.flags = final ? static_cast<uint32_t>(kFlagFinal) : 0u;
  MutexLock lock(&mu_);
  // A stub that died with the call open is not told; its successor never asked.
  if (generation != generation_ || call_fd_ < 0) return;
  if (response != nullptr) {
    ResponseView too_large;
    const ResponseView* written = response;
    uint64_t size = ResponseBlockSize(*response);
    std::optional<uint64_t> block = allocator_->Allocate(size);
    if (!block) {
      too_large.has_error = true;
      too_large.error_code = INFERD_ERROR_UNAVAILABLE;
      too_large.error = "the response of " + std::to_string(size) +
                        " bytes does not fit the free shared memory; raise "
                        "--backend-config=python,shm-region-size=BYTES";
      written = &too_large;
      size = ResponseBlockSize(too_large);
      block = allocator_->Allocate(size);
    }
    if (block) {
      WriteResponseBlock(*written, region_.base() + *block);
      bls_blocks_.insert(*block);
      message.flags |= kFlagHasBlock;
      message.offset = *block;
      message.size = size;
    }
  }
  ControlChannel::SendTo(call_fd_, message);
}

void StubInstance::OnBlsReleased() {
  MutexLock lock(&mu_);
  --bls_in_flight_;
  cv_.SignalAll();
}

void StubInstance::OnBlsFree(const ControlMessage& m) {
  MutexLock lock(&mu_);
  if (bls_blocks_.erase(m.offset) > 0) allocator_->Free(m.offset);
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

void StubInstance::FailAll(std::vector<RequestReply>* replies, const Status& error) {
  for (RequestReply& reply : *replies) {
    Status sent = reply.SendError(error, true);
    (void)sent;
  }
  replies->clear();
}

void StubInstance::Execute(INFERD_ModelInstance* instance, INFERD_Request** requests,
                           uint32_t count) {
  uint64_t generation;
  {
    MutexLock lock(&mu_);
    while (state_ == State::kStarting) cv_.Wait(&mu_);
    if (state_ != State::kReady) {
      const Status error = state_ == State::kBroken
                               ? broken_
                               : Status::Unavailable(Label() + ": the instance is stopping");
      lock.Unlock();
      for (uint32_t i = 0; i < count; ++i) FailRequest(requests[i], error);
      return;
    }
    generation = generation_;
  }
  // Read every request; one the ABI refuses fails alone.
  std::vector<RequestView> views;
  std::vector<RequestReply> replies;
  views.reserve(count);
  replies.reserve(count);
  for (uint32_t i = 0; i < count; ++i) {
    RequestView view;
    Status s = GatherRequest(requests[i], 0, &view);
    StatusOr<RequestReply> reply = s.ok() ? RequestReply::Open(requests[i], settings_.decoupled)
                                          : StatusOr<RequestReply>(s);
    if (!reply.ok()) {
      FailRequest(requests[i], reply.status().WithPrefix(Label() + ": "));
      continue;
    }
    views.push_back(std::move(view));
    replies.push_back(std::move(reply).value());
  }
  if (replies.empty()) return;
  const uint64_t size = BatchBlockSize(views);
  std::optional<uint64_t> block;
  {
    MutexLock lock(&mu_);
    block = allocator_->Allocate(size);
    for (auto& view : views) view.handle = next_handle_++;
    if (!block) {
      const Status error = Status::Unavailable(
          Label() + ": the batch's inputs take " + std::to_string(size) +
          " bytes of shared memory, more than the " + std::to_string(allocator_->largest_free()) +
          " free (of " + std::to_string(allocator_->capacity()) +
          "); raise --backend-config=python,shm-region-size=BYTES");
      lock.Unlock();
      FailAll(&replies, error);
      return;
    }
  }
  WriteBatchBlock(views, region_.base() + *block, *block);
  const uint64_t first_handle = views.front().handle;
  views.clear();  // they borrowed from requests that may be released next
  // A decoupled model's inputs are in shared memory: the server may have its
  // requests back; their senders answer them from here on.
  for (RequestReply& reply : replies) reply.Detach();
  MutexLock lock(&mu_);
  if (generation_ != generation || send_fd_ < 0) {
    allocator_->Free(*block);
    lock.Unlock();
    FailAll(&replies, Status::Unavailable(Label() + ": the Python stub restarted meanwhile"));
    return;
  }
  uint64_t handle = first_handle;
  for (RequestReply& reply : replies) in_flight_[handle++] = InFlight{std::move(reply), *block};
  batch_pending_[*block] = static_cast<uint32_t>(replies.size());
  const uint64_t batch = ++next_batch_;
  executing_.store(true, std::memory_order_release);
  const uint64_t compute_start = NowNs();
  ControlChannel::SendTo(send_fd_, Message(MessageType::kExecute, batch, *block, size));
  if (!settings_.decoupled) {
    // Nobody else reads the channel of a model that is not decoupled: this
    // thread waits anyway, so it answers the batch itself (one thread less to
    // wake per execution). A failed send or read means the stub died: the
    // supervisor fails what it held.
    reading_ = true;
    lock.Unlock();
    const bool alive = ReadBatch(batch);
    INFERD_ErrorDelete(INFERD_ModelInstanceReportComputeTimes(instance, compute_start, NowNs()));
    lock.Lock();
    reading_ = false;
    if (!alive && generation_ == generation) {
      // Requests queued behind this batch wait for the next stub. A stub that
      // closed its channel but lives on is of no use: the supervisor sees it
      // end and fails what it held.
      if (!stopping_) state_ = State::kStarting;
      if (live_pid_ > 0) kill(live_pid_, SIGKILL);
    }
    cv_.SignalAll();
    return;
  }
  // A failed send means the stub died: the supervisor fails the batch and
  // bumps the generation, which ends this wait.
  while (done_batch_ < batch && generation_ == generation) cv_.Wait(&mu_);
  lock.Unlock();
  INFERD_ErrorDelete(INFERD_ModelInstanceReportComputeTimes(instance, compute_start, NowNs()));
}

void StubInstance::Stop() {
  int fd;
  {
    MutexLock lock(&mu_);
    if (!supervisor_.joinable()) return;
    stopping_ = true;
    fd = send_fd_;
    cv_.SignalAll();
    if (fd >= 0) ControlChannel::SendTo(fd, Message(MessageType::kFinalize));
    const auto deadline = std::chrono::steady_clock::now() + kFinalizeTimeout;
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
  while (bls_in_flight_ > 0) {
    if (!cv_.WaitFor(&mu_, kFinalizeTimeout)) {
      LogLine('W', Label() + ": waiting for " + std::to_string(bls_in_flight_) +
                       " request(s) the model sent to other models");
    }
  }
}

}  // namespace inferd::python
