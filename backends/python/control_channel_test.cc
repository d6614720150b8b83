#include "control_channel.h"

#include <sys/socket.h>

#include <gtest/gtest.h>

namespace inferd::python {
namespace {

TEST(ControlChannelTest, CarriesWholeMessagesInOrder) {
  ControlChannel a, b;
  ASSERT_TRUE(ControlChannel::Pair(&a, &b));
  for (uint64_t i = 0; i < 3; ++i) {
    ControlMessage m;
    m.type = static_cast<uint32_t>(MessageType::kResponse);
    m.flags = kFlagFinal;
    m.id = i;
    m.offset = 64 * i;
    m.size = 7;
    m.ring_end = ~0ull;
    ASSERT_TRUE(a.Send(m));
  }
  for (uint64_t i = 0; i < 3; ++i) {
    ControlMessage m;
    ASSERT_TRUE(b.Receive(&m));
    EXPECT_EQ(m.type, static_cast<uint32_t>(MessageType::kResponse));
    EXPECT_EQ(m.id, i);
    EXPECT_EQ(m.offset, 64 * i);
    EXPECT_EQ(m.ring_end, ~0ull);
  }
}

TEST(ControlChannelTest, ReceiveFailsAtEndOfStream) {
  ControlChannel a, b;
  ASSERT_TRUE(ControlChannel::Pair(&a, &b));
  a.Close();
  ControlMessage m;
  EXPECT_FALSE(b.Receive(&m));
  EXPECT_FALSE(b.Send(m));  // the peer is gone: no SIGPIPE, just false
}

TEST(ControlChannelTest, RejectsDatagramsOfTheWrongSize) {
  ControlChannel a, b;
  ASSERT_TRUE(ControlChannel::Pair(&a, &b));
  const char small[8] = {};
  ASSERT_EQ(send(a.fd(), small, sizeof small, 0), 8);
  char big[64] = {};
  ASSERT_EQ(send(a.fd(), big, sizeof big, 0), 64);
  ControlMessage m;
  EXPECT_FALSE(b.Receive(&m));
  EXPECT_FALSE(b.Receive(&m));
}

TEST(ControlChannelTest, SpinningReceiveGetsAWaitingMessageOrBlocks) {
  ControlChannel a, b;
  ASSERT_TRUE(ControlChannel::Pair(&a, &b));
  ControlMessage m;
  m.id = 5;
  ASSERT_TRUE(a.Send(m));
  ControlMessage got;
  ASSERT_TRUE(b.Receive(&got, 1'000'000));
  EXPECT_EQ(got.id, 5u);
  a.Close();  // nothing comes: the spin ends and the blocking receive sees the end
  EXPECT_FALSE(b.Receive(&got, 1'000));
}

TEST(AdaptiveSpinTest, PollsOnlyWhileWaitsEndWithinTheWindow) {
  ControlChannel a, b;
  ASSERT_TRUE(ControlChannel::Pair(&a, &b));
  ControlMessage m;
  // A message already there is a short wait against a 10 s window: keep polling.
  AdaptiveSpin patient(10'000'000'000);
  EXPECT_TRUE(patient.polling());
  ASSERT_TRUE(a.Send(m));
  ASSERT_TRUE(patient.Receive(b, &m));
  EXPECT_TRUE(patient.polling());
  // No receive is within 1 ns: the next one sleeps at once, and stays so.
  AdaptiveSpin hasty(1);
  for (int i = 0; i < 2; ++i) {
    ASSERT_TRUE(a.Send(m));
    ASSERT_TRUE(hasty.Receive(b, &m));
    EXPECT_FALSE(hasty.polling());
  }
  // A zero window (the default spin-us) never polls and still receives.
  AdaptiveSpin off(0);
  EXPECT_FALSE(off.polling());
  ASSERT_TRUE(a.Send(m));
  EXPECT_TRUE(off.Receive(b, &m));
  a.Close();
  EXPECT_FALSE(patient.Receive(b, &m));  // the end of stream, polling or not
}

TEST(ControlChannelTest, ShutdownWakesABlockedReader) {
  ControlChannel a, b;
  ASSERT_TRUE(ControlChannel::Pair(&a, &b));
  b.Shutdown();
  ControlMessage m;
  EXPECT_FALSE(b.Receive(&m));
}

}  // namespace
}  // namespace inferd::python
