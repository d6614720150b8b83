#include "core/config/scheduling_config_validator.h"

#include "core/config/validator_test_fixture.h"

namespace inferd {
namespace {

class ModelConfigSchedulingValidatorTest : public ConfigValidatorFixture {};

constexpr const char* kEnsemble = R"pb(
  platform: "ensemble"
  backend: ""
  ensemble_scheduling { step
                        [ {
                          model_name: "a"
                          model_version: -1
                          input_map { key: "IN" value: "INPUT0" }
                          output_map { key: "OUT" value: "OUTPUT0" }
                        }] }
)pb";

TEST_F(ModelConfigSchedulingValidatorTest, PreferredBatchSizeWithinMaxBatchSize) {
  ExpectError(With("dynamic_batching { preferred_batch_size: [ 4, 16 ] }"),
              "dynamic_batching preferred_batch_size[1]",
              "between 1 and max_batch_size (8), got 16");
  ExpectError(With("dynamic_batching { preferred_batch_size: [ 0 ] }"),
              "dynamic_batching preferred_batch_size[0]", "got 0");
}

TEST_F(ModelConfigSchedulingValidatorTest, PreferredBatchSizeNeedsBatching) {
  ExpectError(With("max_batch_size: 0 dynamic_batching { preferred_batch_size: [ 1 ] }"),
              "dynamic_batching preferred_batch_size[0]", "does not batch (max_batch_size is 0)");
}

TEST_F(ModelConfigSchedulingValidatorTest, DynamicBatchingWithoutBatchingIsAllowedAsTritonDoes) {
  ExpectValid(With("max_batch_size: 0 dynamic_batching { max_queue_delay_microseconds: 100 }"));
}

TEST_F(ModelConfigSchedulingValidatorTest, DefaultPriorityLevelWithinLevels) {
  ExpectError(With("dynamic_batching { priority_levels: 3 default_priority_level: 4 }"),
              "dynamic_batching default_priority_level",
              "between 1 and priority_levels (3), got 4");
  ExpectError(With("dynamic_batching { priority_levels: 3 }"),
              "dynamic_batching default_priority_level", "got 0");
  ExpectValid(With("dynamic_batching { priority_levels: 3 default_priority_level: 2 }"));
}

TEST_F(ModelConfigSchedulingValidatorTest, PriorityQueuePolicyKeysWithinLevels) {
  ExpectError(With("dynamic_batching { priority_levels: 2 default_priority_level: 1 "
                   "priority_queue_policy { key: 3 value { max_queue_size: 4 } } }"),
              "dynamic_batching priority_queue_policy",
              "key 3 must be between 1 and priority_levels (2)");
}

TEST_F(ModelConfigSchedulingValidatorTest, PreserveOrderingWithOnePriorityLevel) {
  ExpectError(With("dynamic_batching { preserve_ordering: true priority_levels: 2 "
                   "default_priority_level: 1 }"),
              "dynamic_batching preserve_ordering", "more than one priority level");
}

TEST_F(ModelConfigSchedulingValidatorTest, ControlInputNeedsName) {
  ExpectError(With("sequence_batching { control_input [ { control [ { kind: CONTROL_SEQUENCE_START "
                   "int32_false_true: [ 0, 1 ] } ] } ] }"),
              "sequence_batching control_input[0] name", "must not be empty");
}

TEST_F(ModelConfigSchedulingValidatorTest, BooleanControlNeedsOneFalseTrueList) {
  ExpectError(With("sequence_batching { control_input [ { name: \"START\" control [ { kind: "
                   "CONTROL_SEQUENCE_START } ] } ] }"),
              "sequence_batching control_input 'START' control[0]",
              "exactly one of int32_false_true");
  ExpectError(
      With("sequence_batching { control_input [ { name: \"START\" control [ { kind: "
           "CONTROL_SEQUENCE_START int32_false_true: [ 0, 1 ] fp32_false_true: [ 0, 1 ] } ] } ] }"),
      "sequence_batching control_input 'START' control[0]", "exactly one of int32_false_true");
}

TEST_F(ModelConfigSchedulingValidatorTest, FalseTrueListHasTwoEntries) {
  ExpectError(With("sequence_batching { control_input [ { name: \"END\" control [ { kind: "
                   "CONTROL_SEQUENCE_END fp32_false_true: [ 1 ] } ] } ] }"),
              "sequence_batching control_input 'END' control[0]", "exactly 2 entries, got 1");
}

TEST_F(ModelConfigSchedulingValidatorTest, CorrelationIdControlNeedsIntegerOrStringType) {
  ExpectError(With("sequence_batching { control_input [ { name: \"CORRID\" control [ { kind: "
                   "CONTROL_SEQUENCE_CORRID data_type: TYPE_FP32 } ] } ] }"),
              "sequence_batching control_input 'CORRID' control[0] data_type", "got TYPE_FP32");
  ExpectValid(
      With("sequence_batching { control_input [ { name: \"CORRID\" control [ { kind: "
           "CONTROL_SEQUENCE_CORRID data_type: TYPE_UINT64 } ] } ] }"));
}

TEST_F(ModelConfigSchedulingValidatorTest, ControlKindAppearsOnce) {
  ExpectError(With("sequence_batching { control_input [ "
                   "{ name: \"A\" control [ { kind: CONTROL_SEQUENCE_READY bool_false_true: [ "
                   "false, true ] } ] },"
                   "{ name: \"B\" control [ { kind: CONTROL_SEQUENCE_READY bool_false_true: [ "
                   "false, true ] } ] }"
                   " ] }"),
              "sequence_batching control_input 'B' control[0]",
              "CONTROL_SEQUENCE_READY is given more than once");
}

TEST_F(ModelConfigSchedulingValidatorTest, StateNeedsNamesAndDataType) {
  ExpectError(With("sequence_batching { state [ { input_name: \"in\" data_type: TYPE_FP32 dims: [ "
                   "1 ] } ] }"),
              "sequence_batching state 'in' output_name", "must not be empty");
  ExpectError(With("sequence_batching { state [ { input_name: \"in\" output_name: \"out\" dims: [ "
                   "1 ] } ] }"),
              "sequence_batching state 'in' data_type", "must be set");
  ExpectValid(
      With("sequence_batching { state [ { input_name: \"in\" output_name: \"out\" "
           "data_type: TYPE_FP32 dims: [ 1 ] } ] }"));
}

TEST_F(ModelConfigSchedulingValidatorTest, OldestPreferredBatchSizeWithinMaxBatchSize) {
  ExpectError(With("sequence_batching { oldest { preferred_batch_size: [ 9 ] } }"),
              "sequence_batching oldest preferred_batch_size[0]", "got 9");
}

TEST_F(ModelConfigSchedulingValidatorTest, EnsembleIsValid) { ExpectValid(With(kEnsemble)); }

TEST_F(ModelConfigSchedulingValidatorTest, EnsemblePlatformNeedsScheduling) {
  ExpectError(With("platform: \"ensemble\" backend: \"\""), "ensemble_scheduling",
              "platform 'ensemble' needs an ensemble_scheduling section");
}

TEST_F(ModelConfigSchedulingValidatorTest, EnsembleSchedulingOnlyForEnsembles) {
  ExpectError(With("ensemble_scheduling { step [ { model_name: \"a\" } ] }"), "ensemble_scheduling",
              "only for platform 'ensemble'");
}

TEST_F(ModelConfigSchedulingValidatorTest, EnsembleNeedsSteps) {
  inference::ModelConfig config = With(kEnsemble);
  config.mutable_ensemble_scheduling()->clear_step();
  ExpectError(config, "ensemble_scheduling step", "at least one step");
}

TEST_F(ModelConfigSchedulingValidatorTest, EnsembleStepNeedsModelAndMaps) {
  inference::ModelConfig config = With(kEnsemble);
  config.mutable_ensemble_scheduling()->mutable_step(0)->clear_model_name();
  ExpectError(config, "ensemble_scheduling step[0] model_name", "must not be empty");
  config = With(kEnsemble);
  config.mutable_ensemble_scheduling()->mutable_step(0)->clear_output_map();
  ExpectError(config, "ensemble_scheduling step[0] output_map", "at least one output");
}

TEST_F(ModelConfigSchedulingValidatorTest, EnsembleHasNoInstanceGroup) {
  ExpectError(With(std::string(kEnsemble) + "instance_group [ { count: 1 } ]"), "instance_group",
              "an ensemble has no instances");
}

}  // namespace
}  // namespace inferd
