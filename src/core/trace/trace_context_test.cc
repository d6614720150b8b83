#include "core/trace/trace_context.h"

#include <gtest/gtest.h>

namespace inferd {
namespace {

constexpr const char* kExample = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

TEST(TraceContextTest, ReadsTheSpecificationsExample) {
  const auto context = ParseTraceparent(kExample);
  ASSERT_TRUE(context.has_value());
  EXPECT_EQ(Hex(context->trace_id), "4bf92f3577b34da6a3ce929d0e0e4736");
  EXPECT_EQ(Hex(context->span_id), "00f067aa0ba902b7");
  EXPECT_TRUE(context->sampled);
  EXPECT_EQ(FormatTraceparent(context->trace_id, context->span_id, true).view(), kExample);
}

TEST(TraceContextTest, ReadsTheSampledBitOnly) {
  const auto context =
      ParseTraceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-02");
  ASSERT_TRUE(context.has_value());
  EXPECT_FALSE(context->sampled);
}

TEST(TraceContextTest, RefusesMalformedValues) {
  for (const char* bad : {
           "",
           "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7",        // no flags
           "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",     // upper case
           "00-00000000000000000000000000000000-00f067aa0ba902b7-01",     // zero trace id
           "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",     // zero span id
           "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",     // version ff
           "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-xx",  // v00 has no more
           "00_4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",     // separator
           "00-4bf92f3577b34da6a3ce929d0e0e473g-00f067aa0ba902b7-01",     // not hex
       }) {
    EXPECT_FALSE(ParseTraceparent(bad).has_value()) << bad;
  }
}

TEST(TraceContextTest, AcceptsALaterVersionsExtraFields) {
  EXPECT_TRUE(
      ParseTraceparent("01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra").has_value());
  EXPECT_FALSE(
      ParseTraceparent("01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01x").has_value());
}

TEST(TraceContextTest, NewIdsAreNonZeroAndDiffer) {
  const TraceId a = NewTraceId();
  const TraceId b = NewTraceId();
  EXPECT_NE(a, b);
  EXPECT_NE(Hex(a), std::string(32, '0'));
  EXPECT_NE(NewSpanId(), NewSpanId());
}

}  // namespace
}  // namespace inferd
