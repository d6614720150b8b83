// The order an ensemble's composing models load in, and the cycles refused,
// over a repository given as a map: no folder, no thread, no load.
#include "core/lifecycle/ensemble_dependencies.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

namespace inferd {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::Pair;

class EnsembleDependenciesTest : public testing::Test {
 protected:
  DependencyOrder Order(const std::string& root) {
    return OrderDependencies(
        root, steps_[root],
        [this](const std::string& key) {
          auto found = steps_.find(key);
          return found == steps_.end() ? std::vector<std::string>{} : found->second;
        },
        [this](const std::string& key) { return serving_.contains(key); });
  }

  std::map<std::string, std::vector<std::string>> steps_;  // ensemble -> models its steps run
  std::set<std::string> serving_;
};

TEST_F(EnsembleDependenciesTest, AModelIsLoadedAfterTheModelsItRunsAndEachOnce) {
  steps_["outer"] = {"inner", "a", "inner"};
  steps_["inner"] = {"a", "b"};
  const DependencyOrder order = Order("outer");
  EXPECT_THAT(order.load, ElementsAre("a", "b", "inner"));
  EXPECT_THAT(order.refused, IsEmpty());
}

TEST_F(EnsembleDependenciesTest, WhatServesLoadsNothingAndIsNotLookedInto) {
  steps_["outer"] = {"inner", "c"};
  steps_["inner"] = {"a", "b"};
  serving_ = {"inner"};
  EXPECT_THAT(Order("outer").load, ElementsAre("c"));
}

TEST_F(EnsembleDependenciesTest, AStepBackIntoTheEnsembleIsRefusedWithTheChain) {
  steps_["loop_one"] = {"a", "loop_two"};
  steps_["loop_two"] = {"a", "loop_one"};
  const DependencyOrder order = Order("loop_one");
  EXPECT_THAT(order.load, ElementsAre("a"));
  ASSERT_EQ(order.refused.size(), 1u);
  EXPECT_EQ(order.refused.at("loop_two").message(),
            "ensembles form a cycle: 'loop_one' -> 'loop_two' -> 'loop_one'");
}

TEST_F(EnsembleDependenciesTest, AnEnsembleRunningItselfIsACycle) {
  steps_["self"] = {"self"};
  EXPECT_EQ(Order("self").refused.at("self").message(), "ensembles form a cycle: 'self' -> 'self'");
}

TEST_F(EnsembleDependenciesTest, ACycleFurtherDownRefusesTheStepThatLeadsToIt) {
  steps_["top"] = {"fine", "middle"};
  steps_["middle"] = {"x"};
  steps_["x"] = {"y"};
  steps_["y"] = {"x"};
  const DependencyOrder order = Order("top");
  EXPECT_THAT(order.load, ElementsAre("fine"));
  EXPECT_THAT(order.refused, ElementsAre(Pair("middle", testing::_)));
  EXPECT_EQ(order.refused.at("middle").message(),
            "ensembles form a cycle: 'top' -> 'middle' -> 'x' -> 'y' -> 'x'");
}

TEST_F(EnsembleDependenciesTest, ACycleThroughAServingModelIsStillACycleOnceAStepDoesNotServe) {
  steps_["top"] = {"middle"};
  steps_["middle"] = {"served"};
  steps_["served"] = {"top"};
  serving_ = {"served"};
  EXPECT_THAT(Order("top").refused, ElementsAre(Pair("middle", testing::_)));
}

TEST_F(EnsembleDependenciesTest, AModelThatIsNotAnEnsembleNeedsNothing) {
  EXPECT_THAT(Order("plain").load, IsEmpty());
  EXPECT_THAT(Order("plain").refused, IsEmpty());
}

}  // namespace
}  // namespace inferd
