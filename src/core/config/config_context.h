// ConfigContext: what the configuration code needs to know about where a
// model's config came from and the machine it will run on. A plain value;
// safe to share between threads once built.
#ifndef INFERD_CORE_CONFIG_CONFIG_CONTEXT_H_
#define INFERD_CORE_CONFIG_CONFIG_CONTEXT_H_

#include <filesystem>
#include <memory>
#include <string>

namespace inferd {

class ConfigLocations;  // config_locations.h

struct ConfigContext {
  //! The model's name as the repository knows it (its folder name).
  std::string model_name;
  //! The model's folder, "<repo>/<model>"; empty when the config did not come
  //! from a folder (then file checks such as label_filename are skipped).
  std::filesystem::path model_dir;
  //! How errors name the config's origin, usually the config.pbtxt path.
  std::string file_label;
  //! Number of GPUs this process may use; 0 on a CPU-only machine.
  int gpu_count = 0;
  //! True while a backend may still complete the configuration from the model
  //! file (auto-completion, on unless --disable-auto-complete-config): missing inputs and outputs are not
  //! errors yet. The completed config is validated again without it.
  bool allow_incomplete_io = false;
  //! Where the config's text set each field, so errors point at file:line:col;
  //! null when the config did not come from text (a load request's JSON).
  std::shared_ptr<const ConfigLocations> locations = nullptr;
};

}  // namespace inferd

#endif  // INFERD_CORE_CONFIG_CONFIG_CONTEXT_H_
