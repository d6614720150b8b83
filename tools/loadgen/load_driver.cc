// The closed- and open-loop step of load_driver.h. The calling thread keeps
// time (and in open loop sends); completions arrive on the client's threads.
#include "loadgen/load_driver.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <random>
#include <thread>

#include "inferd/base/mutex.h"
#include "inferd/base/thread_annotations.h"
#include "loadgen/report.h"

namespace inferd::loadgen {
namespace {

using Clock = std::chrono::steady_clock;

// State shared with the completions; they hold it alive, so a request that
// never answers cannot reach freed memory.
class Step : public std::enable_shared_from_this<Step> {
 public:
  Step(InferClient& client, const StepPlan& plan) : client_(client), plan_(plan) {}

  StepResult Run() EXCLUDES(mu_);

 private:
  // Sends one request, its latency counted from `start`.
  void Issue(Clock::time_point start) EXCLUDES(mu_);
  void PrintProgress(Clock::time_point now, Clock::time_point t0, bool measuring);
  // After the window: waits (30 s at most) for the requests still in flight.
  // Whether none is left.
  bool AwaitDrained() EXCLUDES(mu_);

  InferClient& client_;
  const StepPlan plan_;
  LatencyRecorder recorder_;
  std::atomic<bool> running_{true};
  uint64_t last_total_ = 0;              // progress: completions at the last line
  Clock::time_point last_progress_{};    // progress: time of the last line

  Mutex mu_;
  CondVar drained_;  // signalled when in_flight_ drops to 0
  int64_t in_flight_ GUARDED_BY(mu_) = 0;
};

void Step::Issue(Clock::time_point start) {
  {
    MutexLock lock(&mu_);
    ++in_flight_;
  }
  client_.AsyncInfer([self = shared_from_this(), start](bool ok, std::string_view error) {
    if (ok) {
      self->recorder_.RecordSuccess(std::chrono::nanoseconds(Clock::now() - start).count());
    } else {
      self->recorder_.RecordError(error);
    }
    // Closed loop: the next request goes out before this one stops counting.
    if (!self->plan_.open_loop && self->running_.load()) self->Issue(Clock::now());
    MutexLock lock(&self->mu_);
    if (--self->in_flight_ == 0) self->drained_.SignalAll();
  });
}

void Step::PrintProgress(Clock::time_point now, Clock::time_point t0, bool measuring) {
  const uint64_t total = recorder_.total_successes() + recorder_.total_errors();
  const double since_last = std::chrono::duration<double>(now - last_progress_).count();
  const double rate = since_last > 0 ? double(total - last_total_) / since_last : 0;
  last_total_ = total;
  last_progress_ = now;
  std::fprintf(stderr, "\r%s", ProgressLine(plan_, std::chrono::duration<double>(now - t0).count(),
                                            measuring, recorder_.total_successes(),
                                            recorder_.total_errors(), rate).c_str());
  std::fflush(stderr);
}

bool Step::AwaitDrained() {
  const Clock::time_point give_up = Clock::now() + std::chrono::seconds(30);
  MutexLock lock(&mu_);
  while (in_flight_ != 0) {
    if (!drained_.WaitUntil(&mu_, give_up)) break;
  }
  return in_flight_ == 0;
}

StepResult Step::Run() {
  using std::chrono::duration_cast;
  auto seconds = [](double s) { return duration_cast<Clock::duration>(std::chrono::duration<double>(s)); };
  const Clock::time_point t0 = Clock::now();
  const Clock::time_point window_start = t0 + seconds(plan_.warmup_secs);
  const Clock::time_point window_end = window_start + seconds(plan_.duration_secs);
  const Clock::duration progress_every = std::chrono::milliseconds(500);
  last_progress_ = t0;

  std::mt19937_64 rng(plan_.seed);
  std::exponential_distribution<double> gaps(plan_.value);
  auto next_gap = [&] {
    const double gap = plan_.distribution == RateDistribution::kPoisson ? gaps(rng) : 1 / plan_.value;
    return seconds(gap);
  };
  if (!plan_.open_loop) {
    for (int i = 0; i < int(plan_.value); ++i) Issue(t0);
  }
  Clock::time_point next_send = t0;
  Clock::time_point next_progress = t0 + progress_every;
  bool measuring = false;
  LatencySummary summary;
  double window_seconds = plan_.duration_secs;
  for (;;) {
    Clock::time_point now = Clock::now();
    if (plan_.open_loop) {
      // Behind schedule, send back to back until caught up: the rate holds.
      while (next_send <= now && next_send < window_end) {
        Issue(next_send);
        next_send += next_gap();
      }
    }
    if (!measuring && now >= window_start) {
      recorder_.StartWindow();
      measuring = true;
    }
    if (now >= window_end) {
      window_seconds = std::chrono::duration<double>(now - window_start).count();
      summary = recorder_.EndWindow(window_seconds);
      break;
    }
    if (now >= next_progress) {
      if (plan_.progress) PrintProgress(now, t0, measuring);
      next_progress += progress_every;
    }
    Clock::time_point wake = std::min({next_progress, measuring ? window_end : window_start});
    if (plan_.open_loop) wake = std::min(wake, next_send);
    std::this_thread::sleep_until(wake);
  }
  running_ = false;
  StepResult result{plan_, summary, 0, true};
  result.drained = AwaitDrained();
  if (plan_.progress) std::fprintf(stderr, "\r%*s\r", 100, "");
  result.connections = client_.connection_count();
  return result;
}

}  // namespace

StepResult RunStep(InferClient& client, const StepPlan& plan) {
  return std::make_shared<Step>(client, plan)->Run();
}

}  // namespace inferd::loadgen
