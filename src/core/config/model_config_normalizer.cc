#include "core/config/model_config_normalizer.h"

#include <charconv>
#include <filesystem>
#include <optional>
#include <string>

#include "core/config/model_platform.h"

namespace inferd {
namespace {

namespace fs = std::filesystem;

// How long a sequence may stay idle before the sequence batcher ends it.
constexpr uint64_t kDefaultSequenceIdleMicroseconds = 1000 * 1000;

// The numerically lowest version folder of the model, if any.
std::optional<fs::path> LowestVersionDir(const fs::path& model_dir) {
  if (model_dir.empty()) {
    return std::nullopt;
  }
  std::error_code ec;
  std::optional<fs::path> lowest;
  int64_t lowest_version = 0;
  for (const fs::directory_entry& entry : fs::directory_iterator(model_dir, ec)) {
    if (!entry.is_directory(ec)) {
      continue;
    }
    const std::string name = entry.path().filename().string();
    int64_t version = 0;
    auto [end, err] = std::from_chars(name.data(), name.data() + name.size(), version);
    if (err != std::errc() || end != name.data() + name.size()) {
      continue;
    }
    if (!lowest || version < lowest_version) {
      lowest = entry.path();
      lowest_version = version;
    }
  }
  return lowest;
}

// What a model file in a version folder says about the model.
struct DetectedModel {
  std::string platform;
  std::string backend;
};

std::optional<DetectedModel> DetectFromVersionDir(const fs::path& version_dir) {
  std::error_code ec;
  auto is_dir = [&](std::string_view name) { return fs::is_directory(version_dir / name, ec); };
  auto is_file = [&](std::string_view name) {
    return fs::exists(version_dir / name, ec) && !fs::is_directory(version_dir / name, ec);
  };
  if (is_dir("model.savedmodel")) {
    return DetectedModel{"tensorflow_savedmodel", ""};
  }
  if (is_file("model.graphdef")) {
    return DetectedModel{"tensorflow_graphdef", ""};
  }
  if (is_file("model.plan")) {
    return DetectedModel{"tensorrt_plan", ""};
  }
  // An ONNX model may be a folder when it is large.
  if (fs::exists(version_dir / "model.onnx", ec)) {
    return DetectedModel{"onnxruntime_onnx", ""};
  }
  if (is_file("model.pt")) {
    return DetectedModel{"pytorch_libtorch", ""};
  }
  if (is_file("model.xml")) {
    return DetectedModel{"", "openvino"};
  }
  if (is_file("model.py")) {
    return DetectedModel{"", "python"};
  }
  return std::nullopt;
}

// The platform or backend a default_model_filename stands for.
void FillFromModelFilename(inference::ModelConfig* config) {
  const std::string& file = config->default_model_filename();
  for (std::string_view platform : {"tensorrt_plan", "tensorflow_graphdef", "tensorflow_savedmodel",
                                    "onnxruntime_onnx", "pytorch_libtorch"}) {
    if (FindPlatform(platform)->default_model_filename == file) {
      config->set_platform(std::string(platform));
      return;
    }
  }
  for (std::string_view backend : {"python", "openvino"}) {
    if (BackendDefaultModelFilename(backend) == file) {
      config->set_backend(std::string(backend));
      return;
    }
  }
}

// Where the config names neither platform nor backend: guessed from the
// model file, the version folder's files, or a "<name>.<backend>" model name.
void GuessPlatformAndBackend(const ConfigContext& ctx, inference::ModelConfig* config) {
  const bool tensorflow_without_platform =
      config->platform().empty() && config->backend() == "tensorflow";
  if (config->platform().empty() && (config->backend().empty() || tensorflow_without_platform)) {
    if (!config->default_model_filename().empty()) {
      FillFromModelFilename(config);
    } else if (auto version_dir = LowestVersionDir(ctx.model_dir)) {
      if (auto detected = DetectFromVersionDir(*version_dir)) {
        const bool fits =
            !tensorflow_without_platform || detected->platform.starts_with("tensorflow_");
        if (fits) {
          config->set_platform(detected->platform);
          if (config->backend().empty()) {
            config->set_backend(detected->backend);
          }
        }
      }
    }
  }
  // A model named "<name>.<backend>" with nothing else to go on names its
  // backend, as Triton does for custom backends.
  if (config->platform().empty() && config->backend().empty() &&
      config->default_model_filename().empty()) {
    const size_t dot = config->name().find('.');
    if (dot != std::string::npos && dot + 1 < config->name().size()) {
      config->set_backend(config->name().substr(dot + 1));
      config->set_default_model_filename("model." + config->backend());
    }
  }
}

void FillPlatformAndBackend(const ConfigContext& ctx, inference::ModelConfig* config) {
  GuessPlatformAndBackend(ctx, config);
  if (config->platform() == kEnsemblePlatform) {
    return;
  }
  if (const PlatformInfo* info = FindPlatform(config->platform())) {
    if (config->backend().empty()) {
      config->set_backend(std::string(info->backend));
    }
    if (config->default_model_filename().empty()) {
      config->set_default_model_filename(std::string(info->default_model_filename));
    }
    return;
  }
  if (config->platform().empty()) {
    // A backend that serves exactly one platform implies it.
    for (std::string_view platform : {"tensorrt_plan", "onnxruntime_onnx", "pytorch_libtorch"}) {
      const PlatformInfo* info = FindPlatform(platform);
      if (info->backend != config->backend()) {
        continue;
      }
      config->set_platform(std::string(platform));
      if (config->default_model_filename().empty()) {
        config->set_default_model_filename(std::string(info->default_model_filename));
      }
      return;
    }
  }
  const std::string_view backend_file = BackendDefaultModelFilename(config->backend());
  if (config->default_model_filename().empty() && !backend_file.empty()) {
    config->set_default_model_filename(std::string(backend_file));
  }
}

void FillBatcherDefaults(inference::ModelConfig* config) {
  const int32_t max_batch_size = config->max_batch_size();
  if (config->has_dynamic_batching()) {
    auto* batching = config->mutable_dynamic_batching();
    if (batching->preferred_batch_size_size() == 0 && max_batch_size > 0) {
      batching->add_preferred_batch_size(max_batch_size);
    }
  }
  if (config->has_sequence_batching()) {
    auto* batching = config->mutable_sequence_batching();
    if (batching->max_sequence_idle_microseconds() == 0) {
      batching->set_max_sequence_idle_microseconds(kDefaultSequenceIdleMicroseconds);
    }
    if (batching->has_oldest() && batching->oldest().preferred_batch_size_size() == 0 &&
        max_batch_size > 0) {
      batching->mutable_oldest()->add_preferred_batch_size(max_batch_size);
    }
  }
}

int DefaultInstanceCount(const inference::ModelInstanceGroup& group, const std::string& backend) {
  const bool cpu_pair = group.kind() == inference::ModelInstanceGroup::KIND_CPU &&
                        (backend == "onnxruntime" || backend == "tensorflow");
  return cpu_pair ? 2 : 1;
}

void FillInstanceGroups(const ConfigContext& ctx, inference::ModelConfig* config) {
  using Group = inference::ModelInstanceGroup;
  if (config->instance_group_size() == 0) {
    config->add_instance_group()->set_name(config->name());
  }
  const bool gpus_usable = ctx.gpu_count > 0 && BackendMayUseGpu(config->backend());
  for (int i = 0; i < config->instance_group_size(); ++i) {
    Group* group = config->mutable_instance_group(i);
    if (group->name().empty()) {
      group->set_name(config->name() + "_" + std::to_string(i));
    }
    if (group->kind() == Group::KIND_AUTO) {
      bool on_gpu = gpus_usable;
      for (int32_t gpu : group->gpus()) {
        on_gpu = on_gpu && gpu >= 0 && gpu < ctx.gpu_count;
      }
      group->set_kind(on_gpu ? Group::KIND_GPU : Group::KIND_CPU);
    }
    if (group->count() == 0) {
      group->set_count(DefaultInstanceCount(*group, config->backend()));
    }
    if (group->kind() == Group::KIND_GPU && group->gpus_size() == 0) {
      for (int gpu = 0; gpu < ctx.gpu_count; ++gpu) {
        group->add_gpus(gpu);
      }
    }
  }
}

}  // namespace

Status NormalizeModelConfig(const ConfigContext& ctx, inference::ModelConfig* config) {
  if (config->name().empty()) {
    config->set_name(ctx.model_name);
  }
  FillPlatformAndBackend(ctx, config);

  if (!config->has_version_policy()) {
    config->mutable_version_policy()->mutable_latest()->set_num_versions(1);
  }
  FillBatcherDefaults(config);

  const bool ensemble =
      config->has_ensemble_scheduling() || config->platform() == kEnsemblePlatform;
  if (!ensemble) {
    auto* optimization = config->mutable_optimization();
    if (!optimization->has_input_pinned_memory()) {
      optimization->mutable_input_pinned_memory()->set_enable(true);
    }
    if (!optimization->has_output_pinned_memory()) {
      optimization->mutable_output_pinned_memory()->set_enable(true);
    }
    FillInstanceGroups(ctx, config);
  }
  return Status::Ok();
}

}  // namespace inferd
