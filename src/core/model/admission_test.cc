#include "core/model/admission.h"

#include <google/protobuf/text_format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <deque>

#include "core/model/admission_priority.h"
#include "core/model/queue_time_estimator.h"
#include "core/timing/fake_clock.h"

namespace inferd {
namespace {

using ::testing::HasSubstr;
constexpr uint64_t kMs = 1'000'000;

inference::ModelConfig Config(const std::string& text) {
  inference::ModelConfig config;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &config)) << text;
  return config;
}

TEST(QueueTimeEstimatorTest, KnowsNothingBeforeAnExecution) {
  QueueTimeEstimator estimator;
  EXPECT_EQ(estimator.ExpectedQueueNs(100, 1), 0u);
}

TEST(QueueTimeEstimatorTest, QueuedTimesBatchTimeOverInstancesAndBatchSize) {
  QueueTimeEstimator estimator;
  estimator.Observe(1, 10 * kMs);
  EXPECT_EQ(estimator.ExpectedQueueNs(5, 1), 50 * kMs);
  EXPECT_EQ(estimator.ExpectedQueueNs(5, 2), 25 * kMs);
  EXPECT_EQ(estimator.ExpectedQueueNs(0, 1), 0u);
  EXPECT_EQ(estimator.ExpectedQueueNs(5, 0), 0u);  // an ensemble: no estimate

  QueueTimeEstimator batched;
  batched.Observe(4, 10 * kMs);
  EXPECT_EQ(batched.ExpectedQueueNs(8, 1), 20 * kMs);
}

TEST(QueueTimeEstimatorTest, MovesAnEighthTowardEachNewExecution) {
  QueueTimeEstimator estimator;
  estimator.Observe(1, 80 * kMs);
  estimator.Observe(1, 160 * kMs);
  EXPECT_EQ(estimator.batch_ns(), 90 * kMs);
  for (int i = 0; i < 100; ++i) estimator.Observe(1, 160 * kMs);
  EXPECT_NEAR(static_cast<double>(estimator.batch_ns()), 160.0 * kMs, 0.5 * kMs);
  estimator.Observe(0, 1);  // an execution of nothing changes nothing
  EXPECT_NEAR(static_cast<double>(estimator.batch_ns()), 160.0 * kMs, 0.5 * kMs);
}

TEST(AdmissionLimitsTest, ServerSettingsUnlessTheConfigSaysOtherwise) {
  AdmissionOptions server{.enabled = false, .queue_target_ms = 0, .max_inflight = 7,
                          .max_queued = 9};
  StatusOr<AdmissionLimits> limits = AdmissionLimitsFor(server, 64, Config(""), "m");
  ASSERT_TRUE(limits.ok()) << limits.status().ToString();
  EXPECT_EQ(limits->model_max_inflight, 64u);
  EXPECT_FALSE(limits->model_inflight_from_config);
  EXPECT_EQ(limits->model_max_queued, 0u);
  EXPECT_EQ(limits->server_max_inflight, 7u);
  EXPECT_EQ(limits->server_max_queued, 9u);
  EXPECT_FALSE(limits->shed);
  EXPECT_EQ(limits->queue_target_ns, 0u);

  limits = AdmissionLimitsFor(server, 64, Config(R"(
      parameters { key: "inferd.max_queue_size" value { string_value: "5" } }
      parameters { key: "inferd.max_inflight_requests" value { string_value: "0" } }
      parameters { key: "inferd.admission_queue_target_ms" value { string_value: "250" } })"),
                              "m");
  ASSERT_TRUE(limits.ok()) << limits.status().ToString();
  EXPECT_EQ(limits->model_max_queued, 5u);
  EXPECT_EQ(limits->model_max_inflight, 0u);
  EXPECT_TRUE(limits->model_inflight_from_config);
  EXPECT_TRUE(limits->shed);  // a target turns admission control on
  EXPECT_EQ(limits->queue_target_ns, 250 * kMs);
}

TEST(AdmissionLimitsTest, AModelMayOptOutOfTheServersAdmissionControl) {
  AdmissionOptions server{.enabled = true, .queue_target_ms = 100};
  StatusOr<AdmissionLimits> limits = AdmissionLimitsFor(
      server, 0,
      Config(R"(parameters { key: "inferd.admission_control" value { string_value: "false" } })"),
      "m");
  ASSERT_TRUE(limits.ok());
  EXPECT_FALSE(limits->shed);
  EXPECT_EQ(limits->queue_target_ns, 0u);
  limits = AdmissionLimitsFor(server, 0, Config(""), "m");
  ASSERT_TRUE(limits.ok());
  EXPECT_TRUE(limits->shed);
  EXPECT_EQ(limits->queue_target_ns, 100 * kMs);
}

TEST(AdmissionLimitsTest, ABadParameterNamesModelParameterAndValue) {
  for (const char* bad : {"-1", "ten", "", "5ms"}) {
    StatusOr<AdmissionLimits> limits = AdmissionLimitsFor(
        {}, 0,
        Config(std::string(R"(parameters { key: "inferd.max_queue_size" value { string_value: ")") +
               bad + "\" } }"),
        "slow");
    ASSERT_FALSE(limits.ok()) << bad;
    EXPECT_EQ(limits.status().code(), Status::Code::kInvalidArg);
    EXPECT_THAT(limits.status().message(), HasSubstr("model 'slow'"));
    EXPECT_THAT(limits.status().message(), HasSubstr("inferd.max_queue_size"));
    EXPECT_THAT(limits.status().message(), HasSubstr(std::string("'") + bad + "'"));
  }
  StatusOr<AdmissionLimits> limits = AdmissionLimitsFor(
      {}, 0, Config(R"(parameters { key: "inferd.admission_control" value { string_value: "yes" } })"),
      "slow");
  ASSERT_FALSE(limits.ok());
  EXPECT_THAT(limits.status().message(), HasSubstr("true or false"));
}

TEST(QueueTimeoutTest, TheDynamicBatchersPolicyOrTheRequestsOwn) {
  EXPECT_EQ(QueueTimeoutNs(Config(""), 0, 300), 300'000u);
  EXPECT_EQ(QueueTimeoutNs(Config(""), 0, 0), 0u);
  const auto batching = Config(R"(dynamic_batching {
      priority_levels: 2 default_priority_level: 2
      default_queue_policy { default_timeout_microseconds: 1000 allow_timeout_override: true }
      priority_queue_policy { key: 1 value { default_timeout_microseconds: 5000 } } })");
  EXPECT_EQ(QueueTimeoutNs(batching, 0, 0), 1'000'000u);      // default level 2
  EXPECT_EQ(QueueTimeoutNs(batching, 0, 400), 400'000u);      // may shorten
  EXPECT_EQ(QueueTimeoutNs(batching, 0, 9000), 1'000'000u);   // never extend
  EXPECT_EQ(QueueTimeoutNs(batching, 1, 400), 5'000'000u);    // level 1 allows no override
  EXPECT_EQ(QueueTimeoutNs(batching, 7, 0), 1'000'000u);      // unknown level: the default
}

AdmissionLimits Shedding(uint64_t target_ms) {
  AdmissionLimits limits;
  limits.shed = true;
  limits.queue_target_ns = target_ms * kMs;
  return limits;
}

TEST(DecideAdmissionTest, EachCapRefusesAtItsCount) {
  AdmissionLimits limits;
  limits.server_max_inflight = 10;
  limits.server_max_queued = 8;
  limits.model_max_inflight = 6;
  limits.model_max_queued = 4;
  AdmissionLoad load;
  EXPECT_FALSE(DecideAdmission(limits, load).reject);
  load.model_queued = 4;
  EXPECT_EQ(DecideAdmission(limits, load).reject, RejectReason::kQueueFull);
  load.model_inflight = 6;
  EXPECT_EQ(DecideAdmission(limits, load).reject, RejectReason::kModelInflight);
  load.server_queued = 8;
  EXPECT_EQ(DecideAdmission(limits, load).reject, RejectReason::kServerQueued);
  load.server_inflight = 10;
  const AdmissionVerdict verdict = DecideAdmission(limits, load);
  EXPECT_EQ(verdict.reject, RejectReason::kServerInflight);
  EXPECT_EQ(verdict.limit, 10u);
  EXPECT_EQ(verdict.observed, 10u);
  EXPECT_EQ(verdict.retry_after_ms, 1000u);  // no estimate yet: the least advice
  load.continues_sequence = true;  // a live sequence's request always goes in
  EXPECT_FALSE(DecideAdmission(limits, load).reject);
}

TEST(DecideAdmissionTest, ShedsPastTheTighterOfTargetAndTimeout) {
  AdmissionLoad load;
  load.expected_queue_ns = 300 * kMs;
  EXPECT_FALSE(DecideAdmission(AdmissionLimits{}, load).reject);  // admission control off
  EXPECT_FALSE(DecideAdmission(Shedding(300), load).reject);      // at the target: in
  AdmissionVerdict verdict = DecideAdmission(Shedding(100), load);
  EXPECT_EQ(verdict.reject, RejectReason::kQueueTarget);
  EXPECT_EQ(verdict.retry_after_ms, 1000u);  // 200 ms to drain below it: at least 1 s
  load.expected_queue_ns = 4500 * kMs;
  verdict = DecideAdmission(Shedding(100), load);
  EXPECT_EQ(verdict.retry_after_ms, 4400u);
  load.timeout_ns = 50 * kMs;
  verdict = DecideAdmission(Shedding(100), load);
  EXPECT_EQ(verdict.reject, RejectReason::kTimeout);
  EXPECT_EQ(verdict.limit, 50 * kMs);
  load.timeout_ns = 500 * kMs;  // the target is tighter
  EXPECT_EQ(DecideAdmission(Shedding(100), load).reject, RejectReason::kQueueTarget);
  // A timeout alone sheds too.
  EXPECT_EQ(DecideAdmission(Shedding(0), load).reject, RejectReason::kTimeout);
  load.continues_sequence = true;
  EXPECT_FALSE(DecideAdmission(Shedding(100), load).reject);
}

TEST(DecideAdmissionTest, CapAdviceIsTheTimeTheExcessTakesToDrain) {
  AdmissionLimits limits;
  limits.model_max_queued = 10;
  AdmissionLoad load;
  load.model_queued = 14;
  load.expected_queue_ns = 14 * 500 * kMs;  // 500 ms per queued request
  EXPECT_EQ(DecideAdmission(limits, load).retry_after_ms, 2500u);
}

TEST(RejectionStatusTest, TritonsUnavailableUnlessAdmissionControlIsOn) {
  AdmissionLimits limits;
  limits.model_max_queued = 4;
  AdmissionLoad load;
  load.model_queued = 4;
  Status status = RejectionStatus("m", limits, DecideAdmission(limits, load));
  EXPECT_EQ(status.code(), Status::Code::kUnavailable);
  EXPECT_EQ(status.retry_after_ms(), 0u);
  EXPECT_THAT(status.message(), HasSubstr("model 'm'"));
  EXPECT_THAT(status.message(), HasSubstr("inferd.max_queue_size=4"));

  limits.shed = true;
  status = RejectionStatus("m", limits, DecideAdmission(limits, load));
  EXPECT_EQ(status.code(), Status::Code::kResourceExhausted);
  EXPECT_EQ(status.retry_after_ms(), 1000u);
  EXPECT_THAT(status.message(), HasSubstr("retry after 1 s"));

  AdmissionLimits server;
  server.server_max_inflight = 2;
  load.server_inflight = 2;  // the server-wide caps are inferd's own: always 429
  status = RejectionStatus("m", server, DecideAdmission(server, load));
  EXPECT_EQ(status.code(), Status::Code::kResourceExhausted);
  EXPECT_THAT(status.message(), HasSubstr("--max-inflight-requests=2"));
}

TEST(AdmissionPriorityTest, LowerPrioritiesAreHeldToAShareOfTheTarget) {
  EXPECT_EQ(PriorityTargetNs(300 * kMs, 0, 1), 300 * kMs);  // no levels
  EXPECT_EQ(PriorityTargetNs(300 * kMs, 3, 1), 300 * kMs);
  EXPECT_EQ(PriorityTargetNs(300 * kMs, 3, 2), 200 * kMs);
  EXPECT_EQ(PriorityTargetNs(300 * kMs, 3, 3), 100 * kMs);
  EXPECT_EQ(PriorityTargetNs(0, 3, 3), 0u);  // no target stays none

  const auto config = Config("dynamic_batching { priority_levels: 3 default_priority_level: 2 }");
  EXPECT_EQ(PriorityLevelOf(config, 0), 2u);
  EXPECT_EQ(PriorityLevelOf(config, 3), 3u);
  EXPECT_EQ(PriorityLevelOf(config, 9), 2u);
  EXPECT_EQ(PriorityLevelOf(Config(""), 3), 1u);

  // With the queue at 250 ms, level 1 is admitted and levels 2 and 3 are shed.
  AdmissionLoad load;
  load.expected_queue_ns = 250 * kMs;
  for (uint64_t level = 1; level <= 3; ++level) {
    const AdmissionLimits limits = Shedding(PriorityTargetNs(300, 3, level));
    EXPECT_EQ(DecideAdmission(limits, load).reject.has_value(), level > 1) << level;
  }
}

// Ten times a one-instance model's capacity, in simulated time: requests
// arrive every 2 ms, each execution takes 20 ms. With a 200 ms target the
// accepted ones wait at most the target and one execution, and about nine
// in ten are refused; the queue stays short.
TEST(AdmissionSimulationTest, OverloadKeepsAcceptedRequestsUnderTheTarget) {
  FakeClock clock;
  QueueTimeEstimator estimator;
  const AdmissionLimits limits = Shedding(200);
  std::deque<uint64_t> queue;  // arrival times
  uint64_t busy_until = 0, max_wait = 0, accepted = 0, refused = 0;
  size_t max_queue = 0;
  for (int tick = 0; tick < 10'000; ++tick) {  // 10 s in 1 ms steps
    clock.Advance(std::chrono::milliseconds(1));
    const uint64_t now = clock.NowNs();
    if (tick % 2 == 0) {
      AdmissionLoad load;
      load.model_queued = queue.size();
      load.expected_queue_ns = estimator.ExpectedQueueNs(queue.size(), 1);
      if (DecideAdmission(limits, load).reject) {
        ++refused;
      } else {
        ++accepted;
        queue.push_back(now);
      }
      max_queue = std::max(max_queue, queue.size());
    }
    if (now >= busy_until && !queue.empty()) {
      max_wait = std::max(max_wait, now - queue.front());
      queue.pop_front();
      busy_until = now + 20 * kMs;
      estimator.Observe(1, 20 * kMs);
    }
  }
  EXPECT_LE(max_wait, 220 * kMs);
  EXPECT_LE(max_queue, 12u);
  EXPECT_GT(accepted, 450u);  // the model stays busy: about 500 in 10 s
  EXPECT_NEAR(static_cast<double>(refused) / (accepted + refused), 0.9, 0.02);
}

}  // namespace
}  // namespace inferd
