#include "core/config/model_config_validator.h"

#include <filesystem>
#include <string>
#include <vector>

#include "core/common/datatype.h"
#include "core/config/closest_name.h"
#include "core/config/config_error.h"
#include "core/config/model_platform.h"
#include "core/config/scheduling_config_validator.h"
#include "core/config/tensor_config_validator.h"

namespace inferd {
namespace {

Status CheckName(const ConfigErrors& errors) {
  const std::string& name = errors.config().name();
  const std::string& folder = errors.ctx().model_name;
  if (name.empty()) {
    return errors.At("name", "must not be empty", "name: \"" + folder + "\" (or leave it out)");
  }
  if (!folder.empty() && name != folder) {
    return errors.At("name",
                     "is '" + name + "' but the model's folder is '" + folder +
                         "'; they must match (or leave name out)",
                     "name: \"" + folder + "\", or rename the folder to " + name);
  }
  return Status::Ok();
}

Status CheckPlatformAndBackend(const ConfigErrors& errors) {
  const std::string& platform = errors.config().platform();
  const std::string& backend = errors.config().backend();
  if (platform == kEnsemblePlatform) {
    if (!backend.empty()) {
      return errors.At("backend", "an ensemble has no backend, got '" + backend + "'",
                       "remove backend: \"" + backend + "\"");
    }
    return Status::Ok();
  }
  if (backend.empty()) {
    if (platform.empty()) {
      return errors.At("platform", "set platform or backend",
                       "add backend: \"onnxruntime\" (or python, pytorch, identity, ...)");
    }
    return errors.At("platform",
                     "unknown platform '" + platform +
                         "'; known are tensorrt_plan, tensorflow_graphdef, "
                         "tensorflow_savedmodel, onnxruntime_onnx, pytorch_libtorch and "
                         "ensemble, or set backend instead",
                     "platform: \"onnxruntime_onnx\" or backend: \"<name>\"");
  }
  if (const PlatformInfo* info = FindPlatform(platform)) {
    if (info->backend != backend) {
      return errors.At("backend",
                       "platform '" + platform + "' is served by backend '" +
                           std::string(info->backend) + "', got '" + backend + "'",
                       "backend: \"" + std::string(info->backend) + "\" (or leave it out)");
    }
  } else if (IsPlatformBackend(backend)) {
    return errors.At("platform",
                     "backend '" + backend + "' needs platform " + PlatformsOfBackend(backend) +
                         ", got '" + platform + "'",
                     "leave platform out: backend '" + backend + "' sets it");
  }
  return Status::Ok();
}

Status CheckVersionPolicy(const ConfigErrors& errors) {
  const inference::ModelConfig& config = errors.config();
  if (!config.has_version_policy()) {
    return errors.At("version_policy", "must be set");
  }
  const inference::ModelVersionPolicy& policy = config.version_policy();
  switch (policy.policy_choice_case()) {
    case inference::ModelVersionPolicy::kLatest:
      if (policy.latest().num_versions() < 1) {
        return errors.At("version_policy latest num_versions", "must be at least 1",
                         "version_policy: { latest: { num_versions: 1 } }");
      }
      break;
    case inference::ModelVersionPolicy::kSpecific:
      if (policy.specific().versions_size() == 0) {
        return errors.At("version_policy specific versions", "must list at least one version",
                         "version_policy: { specific: { versions: [ 1 ] } }");
      }
      for (int i = 0; i < policy.specific().versions_size(); ++i) {
        if (policy.specific().versions(i) > 0) {
          continue;
        }
        return errors.At("version_policy specific versions[" + std::to_string(i) + "]",
                         "must be positive, got " + std::to_string(policy.specific().versions(i)));
      }
      break;
    case inference::ModelVersionPolicy::kAll:
      break;
    case inference::ModelVersionPolicy::POLICY_CHOICE_NOT_SET:
      return errors.At("version_policy", "must be one of latest, all or specific");
  }
  return Status::Ok();
}

Status CheckInstanceGroup(const ConfigErrors& errors, const std::string& label,
                          const inference::ModelInstanceGroup& group) {
  using Group = inference::ModelInstanceGroup;
  const int gpu_count = errors.ctx().gpu_count;
  if (group.count() < 1) {
    return errors.At(label + " count", "must be at least 1, got " + std::to_string(group.count()),
                     "count: 1");
  }
  switch (group.kind()) {
    case Group::KIND_GPU:
      if (gpu_count == 0) {
        return errors.At(label, "asks for KIND_GPU but this machine has no GPU", "kind: KIND_CPU");
      }
      if (group.gpus_size() == 0) {
        return errors.At(label + " gpus", "KIND_GPU needs at least one GPU id");
      }
      for (int i = 0; i < group.gpus_size(); ++i) {
        if (group.gpus(i) >= 0 && group.gpus(i) < gpu_count) {
          continue;
        }
        return errors.At(label + " gpus[" + std::to_string(i) + "]",
                         "GPU " + std::to_string(group.gpus(i)) +
                             " does not exist; this machine has " + std::to_string(gpu_count) +
                             " GPU(s), ids 0 to " + std::to_string(gpu_count - 1));
      }
      break;
    case Group::KIND_CPU:
    case Group::KIND_MODEL:
      if (group.gpus_size() > 0) {
        return errors.At(label + " gpus", Group::Kind_Name(group.kind()) + " cannot list GPUs",
                         "remove gpus, or kind: KIND_GPU");
      }
      break;
    default:
      return errors.At(label + " kind", Group::Kind_Name(group.kind()) +
                                            " should have been resolved to KIND_CPU or KIND_GPU");
  }
  for (int i = 0; i < group.rate_limiter().resources_size(); ++i) {
    if (group.rate_limiter().resources(i).name().empty()) {
      return errors.At(label + " rate_limiter resources[" + std::to_string(i) + "] name",
                       "must not be empty");
    }
  }
  return Status::Ok();
}

Status CheckInstanceGroups(const ConfigErrors& errors) {
  const inference::ModelConfig& config = errors.config();
  // An ensemble's (absent) groups are checked with ensemble_scheduling.
  if (config.platform() == kEnsemblePlatform || config.has_ensemble_scheduling()) {
    return Status::Ok();
  }
  if (config.instance_group_size() == 0) {
    return errors.At("instance_group", "must list at least one group");
  }
  for (int i = 0; i < config.instance_group_size(); ++i) {
    const inference::ModelInstanceGroup& group = config.instance_group(i);
    RETURN_IF_ERROR(
        CheckInstanceGroup(errors, ElementLabel("instance_group", group.name(), i), group));
  }
  return Status::Ok();
}

Status CheckWarmupInput(const ConfigErrors& errors, const std::string& label,
                        const inference::ModelWarmup::Input& input) {
  if (input.data_type() == inference::TYPE_INVALID) {
    return errors.At(label + " data_type", "must be set", "data_type: the input's type");
  }
  if (input.dims_size() == 0) {
    return errors.At(label + " dims", "must have at least one dimension",
                     "dims: the input's shape, without the batch dimension");
  }
  for (int d = 0; d < input.dims_size(); ++d) {
    if (input.dims(d) > 0) {
      continue;
    }
    return errors.At(label + " dims[" + std::to_string(d) + "]",
                     "warmup needs a fixed size, got " + std::to_string(input.dims(d)),
                     "a positive size, e.g. 1");
  }
  if (input.input_data_type_case() == inference::ModelWarmup::Input::INPUT_DATA_TYPE_NOT_SET) {
    return errors.At(label, "needs one of zero_data, random_data or input_data_file",
                     "add zero_data: true");
  }
  const std::filesystem::path& dir = errors.ctx().model_dir;
  if (input.has_input_data_file() && !dir.empty()) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(dir / "warmup" / input.input_data_file(), ec)) {
      return errors.At(
          label + " input_data_file",
          "file '" + input.input_data_file() + "' does not exist in " + (dir / "warmup").string(),
          "put the file there, or use zero_data: true");
    }
  }
  return Status::Ok();
}

// A warm-up sample must fit the input it feeds: a declared name, the same
// type, the input's dims (without the batch dimension, which batch_size gives).
Status CheckWarmupAgainstModel(const ConfigErrors& errors, const std::string& label,
                               const std::string& name,
                               const inference::ModelWarmup::Input& sample) {
  const inference::ModelConfig& config = errors.config();
  if (config.input_size() == 0) return Status::Ok();  // the backend completes the inputs
  std::vector<std::string> names;
  const inference::ModelInput* input = nullptr;
  for (const auto& candidate : config.input()) {
    names.push_back(candidate.name());
    if (candidate.name() == name) input = &candidate;
  }
  if (input == nullptr) {
    const std::string closest = ClosestName(name, names);
    return errors.At(label, "the model has no input '" + name + "'",
                     closest.empty() ? "key: one of the model's inputs"
                                     : "did you mean '" + closest + "'?");
  }
  if (sample.data_type() != input->data_type()) {
    return errors.At(label + " data_type",
                     inference::DataType_Name(sample.data_type()) + " but the input is " +
                         inference::DataType_Name(input->data_type()),
                     "data_type: " + inference::DataType_Name(input->data_type()));
  }
  const auto& want = input->dims();
  const auto& got = sample.dims();
  bool fits = want.size() == got.size();
  for (int d = 0; fits && d < want.size(); ++d) fits = want[d] == -1 || want[d] == got[d];
  if (fits) return Status::Ok();
  const std::string shape = ShapeToString({got.data(), static_cast<size_t>(got.size())});
  const std::string expected = ShapeToString({want.data(), static_cast<size_t>(want.size())});
  if (config.max_batch_size() > 0 && got.size() == want.size() + 1) {
    return errors.At(label + " dims", shape + " does not fit the input's dims " + expected,
                     "leave out the batch dimension (batch_size gives it): dims: " +
                         ShapeToString({got.data() + 1, static_cast<size_t>(want.size())}));
  }
  return errors.At(label + " dims", shape + " does not fit the input's dims " + expected,
                   "dims: " + expected + " (a fixed size for each -1)");
}

Status CheckWarmup(const ConfigErrors& errors) {
  const inference::ModelConfig& config = errors.config();
  const uint32_t largest = config.max_batch_size() > 0 ? config.max_batch_size() : 1;
  for (int i = 0; i < config.model_warmup_size(); ++i) {
    const inference::ModelWarmup& sample = config.model_warmup(i);
    const std::string label = ElementLabel("model_warmup", sample.name(), i);
    if (sample.name().empty()) {
      return errors.At(label + " name", "must not be empty");
    }
    if (sample.batch_size() < 1 || sample.batch_size() > largest) {
      const std::string why =
          config.max_batch_size() > 0
              ? "must be between 1 and max_batch_size (" + std::to_string(largest) + ")"
              : "must be 1 for a model that does not batch (max_batch_size 0)";
      return errors.At(label + " batch_size", why + ", got " + std::to_string(sample.batch_size()),
                       "batch_size: " + std::to_string(largest));
    }
    if (sample.inputs().empty()) {
      return errors.At(label + " inputs", "must list at least one input",
                       "inputs: { key: \"<input>\" value: { data_type: ... dims: [ ... ] "
                       "zero_data: true } }");
    }
    for (const auto& [name, input] : sample.inputs()) {
      if (name.empty()) {
        return errors.At(label + " inputs", "an input name must not be empty");
      }
      RETURN_IF_ERROR(CheckWarmupInput(errors, label + " inputs '" + name + "'", input));
      RETURN_IF_ERROR(CheckWarmupAgainstModel(errors, label + " inputs '" + name + "'", name,
                                              input));
    }
  }
  return Status::Ok();
}

}  // namespace

Status ValidateModelConfig(const ConfigContext& ctx, const inference::ModelConfig& config) {
  const ConfigErrors errors(ctx, config);
  RETURN_IF_ERROR(CheckName(errors));
  RETURN_IF_ERROR(CheckPlatformAndBackend(errors));
  if (config.max_batch_size() < 0) {
    return errors.At("max_batch_size",
                     "must be 0 (no batching) or positive, got " +
                         std::to_string(config.max_batch_size()),
                     "max_batch_size: 0");
  }
  RETURN_IF_ERROR(ValidateModelTensors(errors));
  RETURN_IF_ERROR(CheckVersionPolicy(errors));
  RETURN_IF_ERROR(CheckInstanceGroups(errors));
  RETURN_IF_ERROR(ValidateSchedulingChoice(errors));
  RETURN_IF_ERROR(CheckWarmup(errors));
  if (config.model_transaction_policy().decoupled() && config.response_cache().enable()) {
    return errors.At("response_cache", "cannot be enabled for a decoupled model",
                     "remove response_cache, or make the model not decoupled");
  }
  // Loading without the agent (a checksum, a decryption) would serve what the
  // agent was there to check or transform.
  if (config.model_repository_agents().agents_size() > 0) {
    return errors.At("model_repository_agents",
                     "names agent '" + config.model_repository_agents().agents(0).name() +
                         "', but inferd runs no repository agents",
                     "remove model_repository_agents and apply the agent's step beforehand");
  }
  return Status::Ok();
}

}  // namespace inferd
