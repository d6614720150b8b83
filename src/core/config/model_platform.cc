#include "core/config/model_platform.h"

#include <array>

namespace inferd {
namespace {

constexpr std::array<PlatformInfo, 5> kPlatforms = {{
    {"tensorrt_plan", "tensorrt", "model.plan"},
    {"tensorflow_graphdef", "tensorflow", "model.graphdef"},
    {"tensorflow_savedmodel", "tensorflow", "model.savedmodel"},
    {"onnxruntime_onnx", "onnxruntime", "model.onnx"},
    {"pytorch_libtorch", "pytorch", "model.pt"},
}};

struct BackendFile {
  std::string_view backend;
  std::string_view filename;
};

constexpr std::array<BackendFile, 2> kBackendOnlyFiles = {{
    {"python", "model.py"},
    {"openvino", "model.xml"},
}};

constexpr std::array<std::string_view, 5> kGpuBackends = {"tensorrt", "tensorflow", "onnxruntime",
                                                          "pytorch", "python"};

}  // namespace

const PlatformInfo* FindPlatform(std::string_view platform) {
  for (const PlatformInfo& info : kPlatforms) {
    if (info.platform == platform) {
      return &info;
    }
  }
  return nullptr;
}

bool IsPlatformBackend(std::string_view backend) {
  for (const PlatformInfo& info : kPlatforms) {
    if (info.backend == backend) {
      return true;
    }
  }
  return false;
}

std::string PlatformsOfBackend(std::string_view backend) {
  std::string names;
  for (const PlatformInfo& info : kPlatforms) {
    if (info.backend != backend) {
      continue;
    }
    if (!names.empty()) {
      names += " or ";
    }
    names += "'";
    names += info.platform;
    names += "'";
  }
  return names;
}

std::string_view BackendDefaultModelFilename(std::string_view backend) {
  for (const BackendFile& entry : kBackendOnlyFiles) {
    if (entry.backend == backend) {
      return entry.filename;
    }
  }
  return {};
}

bool BackendMayUseGpu(std::string_view backend) {
  for (std::string_view name : kGpuBackends) {
    if (name == backend) {
      return true;
    }
  }
  return false;
}

}  // namespace inferd
