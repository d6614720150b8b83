// One model instance's Python stub and everything between it and the server:
// the shared memory region, the control channels, the requests in flight.
//
// A supervisor thread (one per instance, not per request) starts the stub,
// runs initialize(), then reads every message the stub sends: responses (sent
// to their requests from that thread), the end of each execute(), questions
// (is_cancelled). When the stub dies it fails only the requests the stub held,
// naming how the process ended, and starts a new stub. Execute runs on the
// server's instance thread: it copies a batch into shared memory, hands the
// requests' ownership to response senders, and waits until the stub's
// execute() returned, so the dynamic batcher sees the instance busy meanwhile.
// Thread-safe.
#ifndef INFERD_BACKENDS_PYTHON_STUB_INSTANCE_H_
#define INFERD_BACKENDS_PYTHON_STUB_INSTANCE_H_

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "bls_call.h"
#include "control_channel.h"
#include "inferd/backend.h"
#include "inferd/base/mutex.h"
#include "inferd/base/status.h"
#include "model_settings.h"
#include "request_reply.h"
#include "shm_allocator.h"
#include "shm_region.h"
#include "stub_process.h"
#include "turnaround_spin.h"
#include "wire_format.h"

namespace inferd::python {

class StubInstance final : public BlsSink {
 public:
  // `server` is where the model's own requests (BLS) go.
  StubInstance(const ModelSettings& settings, INFERD_Server* server, std::string name,
               std::string kind, int32_t device_id);
  ~StubInstance() override;  // Stop() if the caller did not
  StubInstance(const StubInstance&) = delete;
  StubInstance& operator=(const StubInstance&) = delete;

  // Starts the stub and runs initialize(); its Python error if it fails.
  Status Start();
  // Takes ownership of the requests (each is answered, whatever happens).
  // Reports the span the stub held the batch as the compute time of
  // `instance`, so statistics split the backend's copying (compute_input and
  // compute_output) from the Python (compute_infer).
  void Execute(INFERD_ModelInstance* instance, INFERD_Request** requests, uint32_t count);
  // Runs finalize() (killing a stub that takes longer than `kFinalizeTimeout`)
  // and ends the supervisor.
  void Stop();

  // BlsSink: a response to one of the stub's requests, into shared memory and
  // onto the call channel; the end of such a request.
  void OnBlsResponse(uint64_t id, uint64_t generation, const ResponseView* response,
                     bool final) override EXCLUDES(mu_);
  void OnBlsReleased() override EXCLUDES(mu_);

 private:
  // A request handed to the stub, known by its handle.
  struct InFlight {
    RequestReply reply;
    uint64_t batch_block = 0;  // freed when the last request of its batch ends
  };
  enum class State { kStarting, kReady, kBroken, kStopped };

  void Supervise();
  // Spawns a stub and runs initialize(), on the supervisor thread.
  Status Launch();
  // Reads the stub's messages until its channel ends (decoupled models: they
  // answer at any time).
  void Serve();
  // Waits for the stub's process to end (other models: Execute reads their
  // answers itself, on the thread that waits for them anyway).
  void WatchExit();
  // Handles one message from the stub, on whichever thread read it.
  void Dispatch(const ControlMessage& message);
  // Execute's reading of its batch's answers; false when the stub is gone.
  bool ReadBatch(uint64_t batch) EXCLUDES(mu_);
  void OnResponse(const ControlMessage& message);
  // Moves the reply of `it` out and forgets it; its batch block is freed once
  // the batch's last request ended.
  RequestReply TakeInFlight(std::unordered_map<uint64_t, InFlight>::iterator it) REQUIRES(mu_);
  void OnIsCancelled(const ControlMessage& message);
  // execute() rescheduled a request (set_release_flags): it goes back to the
  // server to run again, or, when the model may not, ends with the error.
  void OnReschedule(const ControlMessage& message) EXCLUDES(mu_);
  void OnBlsRequest(const ControlMessage& message);
  void OnBlsFree(const ControlMessage& message) EXCLUDES(mu_);
  // Custom metrics and the model loading API (stub_control.cc).
  void OnControlCall(const ControlMessage& message) EXCLUDES(mu_);
  void OnMetricUpdate(const ControlMessage& message);
  void OnModelControl(const ControlMessage& message, const std::vector<std::string_view>& parts)
      EXCLUDES(mu_);
  std::function<Status()> LoadCall(const std::string& name, bool has_config,
                                   const std::vector<std::string_view>& parts);
  // Runs a load or unload on a thread of its own and answers call `id` when it
  // ends; at once when it is this model's own.
  void StartModelControl(uint64_t id, const std::string& name, bool load,
                         std::function<Status()> op) EXCLUDES(mu_);
  // Answers the stub's call `id`: `result`, or the error.
  void ControlReply(uint64_t id, const Status& status, uint64_t result) EXCLUDES(mu_);
  // Drops the metric handles the stub held (it ended; a new one makes its own).
  void DropMetricHandles() EXCLUDES(mu_);
  // Stop's reading of the channel while a stub that is not decoupled runs
  // finalize() (which may use its metrics), until it is done or `deadline`.
  void ReadFinalize(std::chrono::steady_clock::time_point deadline) EXCLUDES(mu_);
  // Reaps the stub and fails what it held; `served`: it had started (the
  // launch did not fail).
  void Bury(bool served);
  // Fails requests that never reached a stub.
  static void FailAll(std::vector<RequestReply>* replies, const Status& error);
  // Execute's steps. Waits while a stub starts; false (each request failed)
  // when none can run, else the stub's generation in *generation.
  bool AwaitReady(INFERD_Request** requests, uint32_t count, uint64_t* generation)
      EXCLUDES(mu_);
  // Reads each request and opens its reply; one the ABI refuses fails alone.
  void OpenRequests(INFERD_Request** requests, uint32_t count, std::vector<RequestView>* views,
                    std::vector<RequestReply>* replies);
  // The batch block of `size` bytes, handles given to `views`; nullopt (each
  // request failed) when shared memory has no room.
  std::optional<uint64_t> PlaceBatch(uint64_t size, std::vector<RequestView>* views,
                                     std::vector<RequestReply>* replies) EXCLUDES(mu_);
  // Hands the written batch block to the stub and waits until its execute()
  // returned, unless it restarted since `generation` (then fails the batch).
  void RunBatch(INFERD_ModelInstance* instance, uint64_t generation, uint64_t block,
                uint64_t size, uint64_t first_handle, std::vector<RequestReply>* replies)
      EXCLUDES(mu_);
  // A line to stderr (the backend ABI has no logger; the server logs stderr).
  static void LogLine(char level, const std::string& text);
  // Execute's wait is over: the stub's execute() returned.
  void MarkBatchDone() EXCLUDES(mu_);
  // The text of a ring block (error text, JSON), consumed.
  std::string TakeRingText(const ControlMessage& message);
  // Places `text` in the request area; 0 when it does not fit.
  uint64_t PutText(const std::string& text) EXCLUDES(mu_);
  bool InRing(const ControlMessage& message) const;
  void Consume(const ControlMessage& message);
  std::string InitializeArgs() const;
  std::string Label() const;

  // Constant after construction.
  const ModelSettings& settings_;
  const std::string name_;
  const std::string kind_;
  const int32_t device_id_;
  INFERD_Server* const server_;
  ShmRegion region_;  // created in Start, before the supervisor runs

  // The supervisor's own (only it touches them while it runs).
  ControlChannel main_;
  ControlChannel call_;
  // How main_'s reader (Execute for a model that is not decoupled, else the
  // supervisor; one at a time) polls before sleeping (settings' spin_us).
  AdaptiveSpin main_spin_;
  // How Execute (a model that is not decoupled) polls for its batch's answers.
  TurnaroundSpin execute_spin_;
  StubProcess process_;

  Mutex mu_;
  CondVar cv_;
  State state_ GUARDED_BY(mu_) = State::kStarting;
  Status broken_ GUARDED_BY(mu_);  // why the stub cannot run (kBroken)
  bool stopping_ GUARDED_BY(mu_) = false;
  pid_t live_pid_ GUARDED_BY(mu_) = 0;  // killable until reaped
  // The channel Execute sends on, -1 while no stub runs. Owned by main_.
  int send_fd_ GUARDED_BY(mu_) = -1;
  int call_fd_ GUARDED_BY(mu_) = -1;  // the same for call_: BLS responses
  uint64_t generation_ GUARDED_BY(mu_) = 0;  // stubs started so far
  uint64_t next_batch_ GUARDED_BY(mu_) = 0;
  uint64_t done_batch_ GUARDED_BY(mu_) = 0;  // the last batch whose execute() returned
  uint64_t next_handle_ GUARDED_BY(mu_) = 1;
  std::optional<ShmAllocator> allocator_ GUARDED_BY(mu_);  // made in Start
  std::unordered_map<uint64_t, InFlight> in_flight_ GUARDED_BY(mu_);
  std::unordered_map<uint64_t, uint32_t> batch_pending_ GUARDED_BY(mu_);  // block -> requests
  std::unordered_set<uint64_t> bls_blocks_ GUARDED_BY(mu_);  // BLS responses the stub holds
  int bls_in_flight_ GUARDED_BY(mu_) = 0;  // submitted, not yet released by the server
  // Metric and family handles the running stub holds (backend_metrics.h).
  std::unordered_set<uint64_t> metric_handles_ GUARDED_BY(mu_);
  int control_in_flight_ GUARDED_BY(mu_) = 0;  // loads and unloads being waited for
  std::atomic<bool> executing_{false};  // a batch is in the stub (the supervisor polls)
  bool reading_ GUARDED_BY(mu_) = false;  // Execute is reading main_ (not decoupled)
  std::thread supervisor_;
};

}  // namespace inferd::python

#endif  // INFERD_BACKENDS_PYTHON_STUB_INSTANCE_H_
