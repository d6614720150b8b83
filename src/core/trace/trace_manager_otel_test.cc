// The trace manager in opentelemetry mode: sampling with a caller's context,
// span identities, and a collector that is down.
#include <gtest/gtest.h>

#include "core/trace/trace_manager.h"

namespace inferd {
namespace {

constexpr const char* kCaller = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

std::unique_ptr<TraceManager> Make(uint32_t rate, TraceLevel level = TraceLevel::kTimestamps,
                                   int32_t count = -1) {
  TraceSettings settings;
  settings.mode = TraceMode::kOpenTelemetry;
  settings.level = level;
  settings.rate = rate;
  settings.count = count;
  // Nothing listens on port 1: every export fails at once.
  settings.opentelemetry.url = "http://127.0.0.1:1/v1/traces";
  auto manager = TraceManager::Create(std::move(settings));
  EXPECT_TRUE(manager.ok()) << manager.status().message();
  return std::move(manager).value();
}

TEST(TraceManagerOtelTest, ACallersSampledContextIsTracedAtRateZeroAndJoinsItsTrace) {
  auto manager = Make(0);
  TraceEntry* entry = manager->EntryFor("m");
  EXPECT_EQ(manager->MaybeTrace(entry, "m", 1, ""), nullptr);
  const TraceContext caller = *ParseTraceparent(kCaller);
  auto trace = manager->MaybeTrace(entry, "m", 1, "", caller);
  ASSERT_NE(trace, nullptr);
  EXPECT_EQ(trace->span().trace_id, caller.trace_id);
  EXPECT_EQ(trace->span().parent_span_id, caller.span_id);
  EXPECT_EQ(trace->traceparent().view().substr(0, 36), "00-4bf92f3577b34da6a3ce929d0e0e4736-");
  TraceContext unsampled = caller;
  unsampled.sampled = false;
  EXPECT_EQ(manager->MaybeTrace(entry, "m", 1, "", unsampled), nullptr);
}

TEST(TraceManagerOtelTest, ACallersSampledContextIsNotTracedAtLevelOffNorPastTheCount) {
  const TraceContext caller = *ParseTraceparent(kCaller);
  auto off = Make(1, TraceLevel::kOff);
  EXPECT_EQ(off->MaybeTrace(off->EntryFor("m"), "m", 1, "", caller), nullptr);
  auto counted = Make(0, TraceLevel::kTimestamps, /*count=*/1);
  TraceEntry* entry = counted->EntryFor("m");
  EXPECT_NE(counted->MaybeTrace(entry, "m", 1, "", caller), nullptr);
  EXPECT_EQ(counted->MaybeTrace(entry, "m", 1, "", caller), nullptr);
}

TEST(TraceManagerOtelTest, AStepJoinsItsParentsTrace) {
  auto manager = Make(1);
  auto parent = manager->MaybeTrace(manager->EntryFor("e"), "e", 1, "");
  ASSERT_NE(parent, nullptr);
  auto child = manager->BeginChild(*parent, "m", 1, "");
  ASSERT_NE(child, nullptr);
  EXPECT_EQ(child->span().trace_id, parent->span().trace_id);
  EXPECT_EQ(child->span().parent_span_id, parent->span().span_id);
  EXPECT_NE(child->span().span_id, parent->span().span_id);
}

TEST(TraceManagerOtelTest, SpansACollectorThatIsDownDidNotTakeAreCountedAsDropped) {
  auto manager = Make(1);
  {
    auto trace = manager->MaybeTrace(manager->EntryFor("m"), "m", 1, "");
    ASSERT_NE(trace, nullptr);
    trace->Record(TracePoint::kQueueStart, trace->At(TracePoint::kRequestStart) + 1);
    trace->Record(TracePoint::kRequestEnd, trace->At(TracePoint::kRequestStart) + 2);
  }  // finished: its two spans (request, queue) are queued
  manager->Flush();
  EXPECT_EQ(manager->spans_dropped(), 2u);
  EXPECT_EQ(manager->spans_exported(), 0u);
}

}  // namespace
}  // namespace inferd
