#include "core/config/scheduling_config_validator.h"

#include <set>
#include <string>

#include "core/config/model_platform.h"

namespace inferd {
namespace {

using Sequence = inference::ModelSequenceBatching;

Status CheckPreferredSizes(const ConfigErrors& errors, const std::string& field,
                           const google::protobuf::RepeatedField<int32_t>& sizes) {
  const int32_t max_batch_size = errors.config().max_batch_size();
  for (int i = 0; i < sizes.size(); ++i) {
    const std::string element = field + "[" + std::to_string(i) + "]";
    if (max_batch_size == 0) {
      return errors.At(element,
                       "the model does not batch (max_batch_size is 0), so no "
                       "preferred batch size may be given",
                       "remove preferred_batch_size, or set max_batch_size > 0");
    }
    if (sizes[i] < 1 || sizes[i] > max_batch_size) {
      return errors.At(element, "must be between 1 and max_batch_size (" +
                                    std::to_string(max_batch_size) + "), got " +
                                    std::to_string(sizes[i]),
                       "preferred_batch_size: [ " + std::to_string(max_batch_size) +
                           " ] (or raise max_batch_size)");
    }
  }
  return Status::Ok();
}

Status CheckDynamicBatching(const ConfigErrors& errors) {
  const inference::ModelDynamicBatching& batching = errors.config().dynamic_batching();
  RETURN_IF_ERROR(CheckPreferredSizes(errors, "dynamic_batching preferred_batch_size",
                                      batching.preferred_batch_size()));
  const uint64_t levels = batching.priority_levels();
  const std::string range = "between 1 and priority_levels (" + std::to_string(levels) + ")";
  if (levels > 0 &&
      (batching.default_priority_level() < 1 || batching.default_priority_level() > levels)) {
    return errors.At(
        "dynamic_batching default_priority_level",
        "must be " + range + ", got " + std::to_string(batching.default_priority_level()),
        "default_priority_level: " + std::to_string(levels));
  }
  for (const auto& [level, policy] : batching.priority_queue_policy()) {
    if (level >= 1 && level <= levels) {
      continue;
    }
    return errors.At("dynamic_batching priority_queue_policy",
                     "key " + std::to_string(level) + " must be " + range,
                     "priority_levels: " + std::to_string(level) + " or more");
  }
  if (batching.preserve_ordering()) {
    if (levels > 1) {
      return errors.At("dynamic_batching preserve_ordering",
                       "cannot be used with more than one priority level",
                       "remove preserve_ordering or priority_levels");
    }
    auto delays = [](const inference::ModelQueuePolicy& policy) {
      return policy.timeout_action() == inference::ModelQueuePolicy::DELAY &&
             policy.default_timeout_microseconds() != 0;
    };
    bool any_delay = delays(batching.default_queue_policy());
    for (const auto& [level, policy] : batching.priority_queue_policy()) {
      any_delay |= delays(policy);
    }
    if (any_delay) {
      return errors.At("dynamic_batching preserve_ordering",
                       "cannot be used with a queue policy whose timeout_action is DELAY",
                       "timeout_action: REJECT");
    }
  }
  return Status::Ok();
}

// One control of a control input: START/END/READY carry exactly one
// two-entry false/true list; CORRID carries a data_type and no list.
Status CheckControl(const ConfigErrors& errors, const std::string& field,
                    const Sequence::Control& control) {
  if (!Sequence::Control::Kind_IsValid(control.kind())) {
    return errors.At(field + " kind", "unknown control kind " + std::to_string(control.kind()));
  }
  const int lists = (control.int32_false_true_size() > 0) + (control.fp32_false_true_size() > 0) +
                    (control.bool_false_true_size() > 0);
  const std::string kind = Sequence::Control::Kind_Name(control.kind());
  if (control.kind() == Sequence::Control::CONTROL_SEQUENCE_CORRID) {
    if (lists > 0) {
      return errors.At(field, kind + " takes data_type, not a *_false_true list",
                       "remove the *_false_true list; data_type: TYPE_UINT64");
    }
    const inference::DataType type = control.data_type();
    if (type != inference::TYPE_UINT64 && type != inference::TYPE_INT64 &&
        type != inference::TYPE_UINT32 && type != inference::TYPE_INT32 &&
        type != inference::TYPE_STRING) {
      return errors.At(field + " data_type", kind +
                                                 " needs TYPE_UINT64, TYPE_INT64, TYPE_UINT32, "
                                                 "TYPE_INT32 or TYPE_STRING, got " +
                                                 inference::DataType_Name(type),
                       "data_type: TYPE_UINT64");
    }
    return Status::Ok();
  }
  if (lists != 1) {
    return errors.At(field, kind +
                                " needs exactly one of int32_false_true, fp32_false_true "
                                "and bool_false_true",
                     "int32_false_true: [ 0, 1 ]");
  }
  const int entries = control.int32_false_true_size() + control.fp32_false_true_size() +
                      control.bool_false_true_size();
  if (entries != 2) {
    return errors.At(
        field, kind + " false/true list needs exactly 2 entries, got " + std::to_string(entries),
        "the value for false, then for true: int32_false_true: [ 0, 1 ]");
  }
  return Status::Ok();
}

Status CheckControlInputs(const ConfigErrors& errors, const Sequence& batching) {
  std::set<std::string> names;
  std::set<int> kinds;
  for (int i = 0; i < batching.control_input_size(); ++i) {
    const Sequence::ControlInput& input = batching.control_input(i);
    const std::string label = ElementLabel("sequence_batching control_input", input.name(), i);
    if (input.name().empty()) {
      return errors.At(label + " name", "must not be empty");
    }
    if (!names.insert(input.name()).second) {
      return errors.At(label, "the name is used more than once",
                       "give each control input a tensor name of its own");
    }
    if (input.control_size() == 0) {
      return errors.At(label + " control", "must list at least one control",
                       "control [ { kind: CONTROL_SEQUENCE_START int32_false_true: [ 0, 1 ] } ]");
    }
    for (int c = 0; c < input.control_size(); ++c) {
      const std::string field = label + " control[" + std::to_string(c) + "]";
      RETURN_IF_ERROR(CheckControl(errors, field, input.control(c)));
      if (!kinds.insert(input.control(c).kind()).second) {
        return errors.At(field, Sequence::Control::Kind_Name(input.control(c).kind()) +
                                    " is given more than once",
                         "keep one " + Sequence::Control::Kind_Name(input.control(c).kind()) +
                             " control and remove the other");
      }
    }
  }
  return Status::Ok();
}

Status CheckStates(const ConfigErrors& errors, const Sequence& batching) {
  for (int i = 0; i < batching.state_size(); ++i) {
    const Sequence::State& state = batching.state(i);
    const std::string label = ElementLabel("sequence_batching state", state.input_name(), i);
    if (state.input_name().empty()) {
      return errors.At(label + " input_name", "must not be empty");
    }
    if (state.output_name().empty()) {
      return errors.At(label + " output_name", "must not be empty");
    }
    if (state.data_type() == inference::TYPE_INVALID) {
      return errors.At(label + " data_type", "must be set");
    }
    if (state.dims_size() == 0) {
      return errors.At(label + " dims", "must have at least one dimension");
    }
    for (int s = 0; s < state.initial_state_size(); ++s) {
      const Sequence::InitialState& initial = state.initial_state(s);
      const std::string field = ElementLabel(label + " initial_state", initial.name(), s);
      if (initial.name().empty()) {
        return errors.At(field + " name", "must not be empty");
      }
      if (initial.data_type() == inference::TYPE_INVALID) {
        return errors.At(field + " data_type", "must be set");
      }
      if (initial.state_data_case() == Sequence::InitialState::STATE_DATA_NOT_SET) {
        return errors.At(field, "needs zero_data or data_file", "zero_data: true");
      }
    }
  }
  return Status::Ok();
}

Status CheckSequenceBatching(const ConfigErrors& errors) {
  const Sequence& batching = errors.config().sequence_batching();
  RETURN_IF_ERROR(CheckControlInputs(errors, batching));
  RETURN_IF_ERROR(CheckStates(errors, batching));
  if (batching.has_oldest()) {
    RETURN_IF_ERROR(CheckPreferredSizes(errors, "sequence_batching oldest preferred_batch_size",
                                        batching.oldest().preferred_batch_size()));
  }
  if (batching.has_direct()) {
    const float utilization = batching.direct().minimum_slot_utilization();
    if (!(utilization >= 0.0f && utilization <= 1.0f)) {
      return errors.At("sequence_batching direct minimum_slot_utilization",
                       "must be between 0 and 1, got " + std::to_string(utilization),
                       "minimum_slot_utilization: 1.0");
    }
  }
  if (errors.config().response_cache().enable()) {
    return errors.At("response_cache", "cannot be enabled for a model with sequence_batching",
                     "remove response_cache");
  }
  return Status::Ok();
}

Status CheckEnsembleScheduling(const ConfigErrors& errors) {
  const inference::ModelConfig& config = errors.config();
  if (config.platform() != kEnsemblePlatform) {
    return errors.At("ensemble_scheduling",
                     "is only for platform 'ensemble', got platform '" + config.platform() + "'",
                     "platform: \"ensemble\"");
  }
  const inference::ModelEnsembling& ensemble = config.ensemble_scheduling();
  if (ensemble.step_size() == 0) {
    return errors.At("ensemble_scheduling step", "must list at least one step");
  }
  for (int i = 0; i < ensemble.step_size(); ++i) {
    const inference::ModelEnsembling::Step& step = ensemble.step(i);
    const std::string label = "ensemble_scheduling step[" + std::to_string(i) + "]";
    if (step.model_name().empty()) {
      return errors.At(label + " model_name", "must not be empty");
    }
    if (step.input_map().empty()) {
      return errors.At(label + " input_map", "must map at least one input",
                       "input_map { key: \"<model input>\" value: \"<ensemble tensor>\" }");
    }
    if (step.output_map().empty()) {
      return errors.At(label + " output_map", "must map at least one output",
                       "output_map { key: \"<model output>\" value: \"<ensemble tensor>\" }");
    }
  }
  if (config.instance_group_size() > 0) {
    return errors.At("instance_group",
                     "an ensemble has no instances of its own; set "
                     "instance_group on its composing models",
                     "move instance_group to the composing models");
  }
  if (config.has_optimization()) {
    return errors.At("optimization", "cannot be set for an ensemble");
  }
  if (config.model_warmup_size() > 0) {
    return errors.At("model_warmup", "cannot be set for an ensemble");
  }
  return Status::Ok();
}

}  // namespace

Status ValidateSchedulingChoice(const ConfigErrors& errors) {
  const inference::ModelConfig& config = errors.config();
  switch (config.scheduling_choice_case()) {
    case inference::ModelConfig::kDynamicBatching:
      return CheckDynamicBatching(errors);
    case inference::ModelConfig::kSequenceBatching:
      return CheckSequenceBatching(errors);
    case inference::ModelConfig::kEnsembleScheduling:
      return CheckEnsembleScheduling(errors);
    case inference::ModelConfig::SCHEDULING_CHOICE_NOT_SET:
      break;
  }
  if (config.platform() == kEnsemblePlatform) {
    return errors.At("ensemble_scheduling",
                     "platform 'ensemble' needs an ensemble_scheduling "
                     "section listing its steps",
                     "ensemble_scheduling { step [ { model_name: ... input_map { ... } "
                     "output_map { ... } } ] }");
  }
  return Status::Ok();
}

}  // namespace inferd
