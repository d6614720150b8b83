// The rate limiter: pool sizes (largest ask, overrides, per
// device and global), conflicts between models, pools following add and
// remove, resources taken all at once, priority shares and no starvation.
// Turns are played on the test thread with Request/Granted/Release, so every
// case is deterministic; one case runs Acquire from threads.
#include "core/rate_limiter/rate_limiter.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <thread>
#include <vector>

namespace inferd {
namespace {

using ::testing::HasSubstr;
using Ticket = RateLimiter::Ticket;

LimitedInstance Instance(std::vector<ResourceAsk> resources, uint32_t priority = 1,
                         int32_t device = 0) {
  return LimitedInstance{"i", device, priority, std::move(resources)};
}

// Registers one model per call; owners are the addresses of `models_`' slots.
class RateLimiterTest : public testing::Test {
 protected:
  std::vector<Ticket*> Add(RateLimiter& limiter, int owner,
                           const std::vector<LimitedInstance>& instances) {
    StatusOr<std::vector<Ticket*>> tickets =
        limiter.AddModel(&owners_[owner], "model " + std::to_string(owner), instances);
    EXPECT_TRUE(tickets.ok()) << tickets.status().message();
    return tickets.ok() ? *tickets : std::vector<Ticket*>{};
  }
  Status AddFails(RateLimiter& limiter, int owner, const std::vector<LimitedInstance>& instances) {
    StatusOr<std::vector<Ticket*>> tickets =
        limiter.AddModel(&owners_[owner], "model " + std::to_string(owner), instances);
    return tickets.status();
  }
  void Remove(RateLimiter& limiter, int owner) { limiter.RemoveModel(&owners_[owner]); }

  int owners_[8] = {};
};

ResourceOverride Given(const char* name, uint32_t count,
                       int32_t device = ResourceOverride::kEveryDevice) {
  return ResourceOverride{name, count, device};
}

TEST_F(RateLimiterTest, PoolSizeIsTheLargestAsk) {
  RateLimiter limiter({});
  Add(limiter, 0, {Instance({{"R1", 4}, {"R2", 4}})});
  Add(limiter, 1, {Instance({{"R2", 5}, {"R3", 10}, {"R4", 5}})});
  Add(limiter, 2, {Instance({{"R1", 1}, {"R3", 7}, {"R4", 2}})});
  EXPECT_EQ(limiter.Pool("R1", 0).size, 4);
  EXPECT_EQ(limiter.Pool("R2", 0).size, 5);
  EXPECT_EQ(limiter.Pool("R3", 0).size, 10);
  EXPECT_EQ(limiter.Pool("R4", 0).size, 5);
  EXPECT_EQ(limiter.Pool("R1", 1).size, -1);  // nobody on device 1
  EXPECT_EQ(limiter.Pool("R1", RateLimiter::kGlobal).size, -1);
}

TEST_F(RateLimiterTest, OverridesApplyToEveryDeviceOrOneAndToGlobalPools) {
  RateLimiter limiter({Given("R1", 10), Given("R2", 5, 0),
                       Given("R2", 8, 1), Given("R3", 2)});
  Add(limiter, 0,
      {Instance({{"R1", 1}, {"R2", 1}, {"R3", 1, true}}, 1, 0),
       Instance({{"R1", 1}, {"R2", 1}, {"R3", 1, true}}, 1, 1)});
  EXPECT_EQ(limiter.Pool("R1", 0).size, 10);
  EXPECT_EQ(limiter.Pool("R1", 1).size, 10);
  EXPECT_EQ(limiter.Pool("R2", 0).size, 5);
  EXPECT_EQ(limiter.Pool("R2", 1).size, 8);
  EXPECT_EQ(limiter.Pool("R3", RateLimiter::kGlobal).size, 2);
  EXPECT_EQ(limiter.Pool("R3", 0).size, -1);
}

TEST_F(RateLimiterTest, AnAskAboveItsOverrideIsALoadError) {
  RateLimiter limiter({Given("R1", 2)});
  Status status = AddFails(limiter, 0, {Instance({{"R1", 3}})});
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr("asks for 3 of rate_limiter resource 'R1'"));
  EXPECT_THAT(status.message(), HasSubstr("only 2"));
  EXPECT_EQ(limiter.Pool("R1", 0).size, -1);  // nothing registered
}

TEST_F(RateLimiterTest, GlobalAndPerDeviceUsesOfANameConflict) {
  RateLimiter limiter({});
  Add(limiter, 0, {Instance({{"R", 1, true}})});
  Status status = AddFails(limiter, 1, {Instance({{"R", 1, false}})});
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr("rate_limiter resource 'R' is per-device here "
                                          "but global in model 0"));
  // Within one model, too.
  EXPECT_FALSE(AddFails(limiter, 2, {Instance({{"S", 1, true}}), Instance({{"S", 1}})}).ok());
  // Once the first model is gone the name is free again.
  Remove(limiter, 0);
  Add(limiter, 1, {Instance({{"R", 1, false}})});
  EXPECT_EQ(limiter.Pool("R", 0).size, 1);
  EXPECT_EQ(limiter.Pool("R", RateLimiter::kGlobal).size, -1);
}

TEST_F(RateLimiterTest, PoolsFollowAddAndRemove) {
  RateLimiter limiter({});
  Add(limiter, 0, {Instance({{"R", 2}})});
  Add(limiter, 1, {Instance({{"R", 5}})});
  EXPECT_EQ(limiter.Pool("R", 0).size, 5);
  Remove(limiter, 1);
  EXPECT_EQ(limiter.Pool("R", 0).size, 2);
  Remove(limiter, 0);
  EXPECT_EQ(limiter.Pool("R", 0).size, -1);
}

TEST_F(RateLimiterTest, AnInstanceWithoutResourcesGetsNoTicket) {
  RateLimiter limiter({});
  std::vector<Ticket*> tickets = Add(limiter, 0, {Instance({}), Instance({{"R", 1}})});
  ASSERT_EQ(tickets.size(), 2u);
  EXPECT_EQ(tickets[0], nullptr);
  EXPECT_NE(tickets[1], nullptr);
}

TEST_F(RateLimiterTest, ResourcesAreTakenAllAtOnceAndGivenBack) {
  RateLimiter limiter({});
  std::vector<Ticket*> t =
      Add(limiter, 0, {Instance({{"R", 2}, {"S", 1}}), Instance({{"R", 1}}), Instance({{"R", 1}})});
  EXPECT_TRUE(limiter.Request(t[0]));
  EXPECT_EQ(limiter.Pool("R", 0).in_use, 2);
  EXPECT_EQ(limiter.Pool("S", 0).in_use, 1);
  EXPECT_FALSE(limiter.Request(t[1]));
  EXPECT_FALSE(limiter.Request(t[2]));
  limiter.Release(t[0]);
  EXPECT_TRUE(limiter.Granted(t[1]));
  EXPECT_TRUE(limiter.Granted(t[2]));
  EXPECT_EQ(limiter.Pool("R", 0).in_use, 2);
  EXPECT_EQ(limiter.Pool("S", 0).in_use, 0);
  limiter.Release(t[1]);
  limiter.Release(t[2]);
  EXPECT_EQ(limiter.Pool("R", 0).in_use, 0);
}

TEST_F(RateLimiterTest, DevicesHaveTheirOwnPoolsAndGlobalOnesAreShared) {
  RateLimiter limiter({});
  std::vector<Ticket*> local =
      Add(limiter, 0, {Instance({{"R", 1}}, 1, 0), Instance({{"R", 1}}, 1, 1)});
  EXPECT_TRUE(limiter.Request(local[0]));
  EXPECT_TRUE(limiter.Request(local[1]));  // device 1's own R
  std::vector<Ticket*> global =
      Add(limiter, 1, {Instance({{"G", 1, true}}, 1, 0), Instance({{"G", 1, true}}, 1, 1)});
  EXPECT_TRUE(limiter.Request(global[0]));
  EXPECT_FALSE(limiter.Request(global[1]));  // one G for the whole server
  limiter.Release(global[0]);
  EXPECT_TRUE(limiter.Granted(global[1]));
}

// Plays `rounds` turns with every ticket always wanting to execute: the one
// granted executes, gives back, and asks again. Returns grants per ticket.
std::map<Ticket*, int> Play(RateLimiter& limiter, const std::vector<Ticket*>& tickets,
                            int rounds) {
  std::map<Ticket*, int> grants;
  std::vector<Ticket*> running;
  for (Ticket* t : tickets) {
    if (limiter.Request(t)) running.push_back(t);
  }
  for (int i = 0; i < rounds && !running.empty(); ++i) {
    Ticket* done = running.front();
    running.erase(running.begin());
    ++grants[done];
    limiter.Release(done);
    for (Ticket* t : tickets) {
      if (t != done && limiter.Granted(t) &&
          std::find(running.begin(), running.end(), t) == running.end()) {
        running.push_back(t);
      }
    }
    if (limiter.Request(done)) running.push_back(done);
  }
  return grants;
}

TEST_F(RateLimiterTest, PriorityTwoGetsHalfTheTurnsOfPriorityOne) {
  RateLimiter limiter({});
  std::vector<Ticket*> a = Add(limiter, 0, {Instance({{"R", 1}}, 1), Instance({{"R", 1}}, 1)});
  std::vector<Ticket*> b = Add(limiter, 1, {Instance({{"R", 1}}, 2), Instance({{"R", 1}}, 2)});
  std::map<Ticket*, int> grants = Play(limiter, {a[0], a[1], b[0], b[1]}, 3000);
  const int a_turns = grants[a[0]] + grants[a[1]];
  const int b_turns = grants[b[0]] + grants[b[1]];
  EXPECT_EQ(a_turns + b_turns, 3000);
  EXPECT_NEAR(static_cast<double>(a_turns) / b_turns, 2.0, 0.1) << a_turns << " " << b_turns;
}

TEST_F(RateLimiterTest, EqualPrioritiesShareEqually) {
  RateLimiter limiter({});
  std::vector<Ticket*> a = Add(limiter, 0, {Instance({{"R", 1}}), Instance({{"R", 1}})});
  std::vector<Ticket*> b = Add(limiter, 1, {Instance({{"R", 1}}), Instance({{"R", 1}})});
  std::map<Ticket*, int> grants = Play(limiter, {a[0], a[1], b[0], b[1]}, 2000);
  for (Ticket* t : {a[0], a[1], b[0], b[1]}) EXPECT_NEAR(grants[t], 500, 5);
}

TEST_F(RateLimiterTest, ALargeAskIsNotStarvedBySmallOnes) {
  RateLimiter limiter({});
  std::vector<Ticket*> small = Add(limiter, 0, {Instance({{"R", 1}}), Instance({{"R", 1}})});
  std::vector<Ticket*> big = Add(limiter, 1, {Instance({{"R", 2}}, 5)});
  EXPECT_TRUE(limiter.Request(small[0]));
  EXPECT_TRUE(limiter.Request(small[1]));
  EXPECT_FALSE(limiter.Request(big[0]));
  // small[0] comes back at once, but the freed R is kept for the big ask.
  limiter.Release(small[0]);
  EXPECT_FALSE(limiter.Request(small[0]));
  EXPECT_FALSE(limiter.Granted(big[0]));
  limiter.Release(small[1]);
  EXPECT_TRUE(limiter.Granted(big[0]));
  EXPECT_FALSE(limiter.Granted(small[0]));
  limiter.Release(big[0]);
  EXPECT_TRUE(limiter.Granted(small[0]));
}

TEST_F(RateLimiterTest, AWaiterForOtherResourcesPassesABlockedOne) {
  RateLimiter limiter({});
  std::vector<Ticket*> t =
      Add(limiter, 0, {Instance({{"R", 1}}), Instance({{"R", 1}}), Instance({{"S", 1}})});
  EXPECT_TRUE(limiter.Request(t[0]));
  EXPECT_FALSE(limiter.Request(t[1]));
  EXPECT_TRUE(limiter.Request(t[2]));  // needs no R
}

TEST_F(RateLimiterTest, AnIdleInstanceBanksNoTurns) {
  RateLimiter limiter({});
  std::vector<Ticket*> t =
      Add(limiter, 0, {Instance({{"R", 1}}), Instance({{"R", 1}}), Instance({{"R", 1}})});
  Play(limiter, {t[0], t[1]}, 200);
  // t[2] sat idle for 200 turns; back, it shares from now on rather than
  // taking the next 100 turns.
  std::map<Ticket*, int> grants = Play(limiter, {t[0], t[1], t[2]}, 30);
  EXPECT_NEAR(grants[t[2]], 10, 2);
}

TEST_F(RateLimiterTest, AcquireFromThreadsNeverExceedsThePool) {
  RateLimiter limiter({Given("R", 2)});
  std::vector<Ticket*> t = Add(limiter, 0,
                               {Instance({{"R", 1}}), Instance({{"R", 1}}), Instance({{"R", 1}}),
                                Instance({{"R", 2}})});
  std::atomic<int> held{0};
  std::atomic<int> most{0};
  std::vector<std::thread> threads;
  for (size_t i = 0; i < t.size(); ++i) {
    threads.emplace_back([&, i] {
      const int units = i == 3 ? 2 : 1;
      for (int n = 0; n < 300; ++n) {
        limiter.Acquire(t[i]);
        const int now = held.fetch_add(units) + units;
        int seen = most.load();
        while (now > seen && !most.compare_exchange_weak(seen, now)) {
        }
        held.fetch_sub(units);
        limiter.Release(t[i]);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_LE(most.load(), 2);
  EXPECT_EQ(limiter.Pool("R", 0).in_use, 0);
}

}  // namespace
}  // namespace inferd
