#include "core/lifecycle/arrivals.h"

#include <gtest/gtest.h>

#include <thread>

namespace inferd {
namespace {

TEST(ArrivalsTest, WhatArrivedIsPreparedFirstThenLoadedInTheOrderItWasPrepared) {
  Arrivals arrivals;
  arrivals.Push(2, Status::Ok());
  arrivals.Push(0, Status::Unavailable("no copy"));
  auto first = arrivals.Next();
  ASSERT_TRUE(first && first->prepare);
  EXPECT_EQ(first->index, 2u);
  auto second = arrivals.Next();
  ASSERT_TRUE(second && second->prepare);
  EXPECT_EQ(second->index, 0u);
  EXPECT_EQ(second->status.message(), "no copy");
  arrivals.Prepared(0);
  arrivals.Prepared(2);
  arrivals.Push(1, Status::Ok());
  auto third = arrivals.Next();  // an arrival goes before the loads waiting
  ASSERT_TRUE(third && third->prepare);
  EXPECT_EQ(third->index, 1u);
  auto load = arrivals.Next();
  ASSERT_TRUE(load && !load->prepare);
  EXPECT_EQ(load->index, 0u);
  arrivals.Prepared(1);
  arrivals.Close();
  EXPECT_EQ(arrivals.Next()->index, 2u);
  EXPECT_EQ(arrivals.Next()->index, 1u);
  EXPECT_FALSE(arrivals.Next());
}

TEST(ArrivalsTest, ClosedItStillWaitsForAPrepareInFlight) {
  Arrivals arrivals;
  arrivals.Push(0, Status::Ok());
  arrivals.Close();
  ASSERT_TRUE(arrivals.Next()->prepare);
  // Most often Next() waits here for the thread's Prepared (a thread takes
  // longer to start than Next to be called): a closed queue with a prepare
  // in flight is not done yet.
  std::thread preparer([&] { arrivals.Prepared(0); });
  auto load = arrivals.Next();
  preparer.join();
  ASSERT_TRUE(load.has_value());
  EXPECT_FALSE(load->prepare);
  EXPECT_EQ(load->index, 0u);
  EXPECT_FALSE(arrivals.Next());
}

}  // namespace
}  // namespace inferd
