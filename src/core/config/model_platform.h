// The platforms and backends inferd knows by name (as Triton does): which
// backend serves a platform and which model file each expects by default.
// Constant tables; thread-safe.
#ifndef INFERD_CORE_CONFIG_MODEL_PLATFORM_H_
#define INFERD_CORE_CONFIG_MODEL_PLATFORM_H_

#include <string>
#include <string_view>

namespace inferd {

// The platform of an ensemble: served by the ensemble scheduler, no backend.
inline constexpr std::string_view kEnsemblePlatform = "ensemble";

// A platform name and the backend that serves it.
struct PlatformInfo {
  std::string_view platform;                //!< "onnxruntime_onnx"
  std::string_view backend;                 //!< "onnxruntime"
  std::string_view default_model_filename;  //!< "model.onnx"
};

// The entry for `platform`, or nullptr when it is not a known framework
// platform (the ensemble platform included).
const PlatformInfo* FindPlatform(std::string_view platform);

// True for a backend that serves named platforms (tensorrt, tensorflow,
// onnxruntime, pytorch); such a backend needs one of its own platforms.
bool IsPlatformBackend(std::string_view backend);

// "'tensorflow_graphdef' or 'tensorflow_savedmodel'": the platforms `backend`
// serves, for error messages; empty when it serves none by name.
std::string PlatformsOfBackend(std::string_view backend);

// Default model file of a backend used without a platform ("model.py" for
// python); empty when the backend has none.
std::string_view BackendDefaultModelFilename(std::string_view backend);

// Whether instances of `backend` may run on a GPU, which decides what
// KIND_AUTO becomes on a machine with GPUs.
bool BackendMayUseGpu(std::string_view backend);

}  // namespace inferd

#endif  // INFERD_CORE_CONFIG_MODEL_PLATFORM_H_
