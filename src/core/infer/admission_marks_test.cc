#include "core/infer/admission_marks.h"

#include <gtest/gtest.h>

namespace inferd {
namespace {

struct Counters {
  std::atomic<int64_t> model_queued{1}, server_queued{1}, server_inflight{1};
  void Expect(int64_t model, int64_t queued, int64_t inflight) const {
    EXPECT_EQ(model_queued.load(), model);
    EXPECT_EQ(server_queued.load(), queued);
    EXPECT_EQ(server_inflight.load(), inflight);
  }
};

TEST(AdmissionMarksTest, QueuedUntilExecutionInFlightUntilRelease) {
  Counters c;  // as admission leaves them: this request counted once in each
  AdmissionMarks marks;
  marks.Adopt(&c.model_queued, &c.server_queued, &c.server_inflight);
  marks.LeaveQueue();
  c.Expect(0, 0, 1);
  marks.LeaveQueue();  // a second batch start changes nothing
  c.Expect(0, 0, 1);
  marks.EnterQueue();  // rescheduled by its backend
  c.Expect(1, 1, 1);
  marks.Release();
  c.Expect(0, 0, 0);
  marks.Release();  // once only
  c.Expect(0, 0, 0);
}

TEST(AdmissionMarksTest, ARequestReleasedWhileQueuedLeavesEveryCounter) {
  Counters c;
  AdmissionMarks marks;
  marks.Adopt(&c.model_queued, &c.server_queued, &c.server_inflight);
  marks.Release();  // answered from its queue: timed out, cancelled, unloaded
  c.Expect(0, 0, 0);
}

TEST(AdmissionMarksTest, AStepCountsInItsModelsQueueOnly) {
  Counters c;
  AdmissionMarks marks;
  marks.Adopt(&c.model_queued, nullptr, nullptr);
  marks.LeaveQueue();
  marks.Release();
  c.Expect(0, 1, 1);
  AdmissionMarks unmarked;  // warm-up requests, a batcher's padding
  unmarked.LeaveQueue();
  unmarked.EnterQueue();
  unmarked.Release();
}

}  // namespace
}  // namespace inferd
