// Opening lib_lightgbm.so and resolving its C API (see lightgbm_api.h).
#include "lightgbm_api.h"

#include <dlfcn.h>

#include <filesystem>
#include <mutex>

namespace inferd::fil {
namespace {

// The folder of the library this function is in (libinferd_fil.so).
std::string OwnFolder() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&OwnFolder), &info) == 0 || info.dli_fname == nullptr) {
    return "";
  }
  return std::filesystem::path(info.dli_fname).parent_path().string();
}

template <typename Fn>
bool Resolve(void* library, const char* name, Fn* fn, std::string* error) {
  *fn = reinterpret_cast<Fn>(dlsym(library, name));
  if (*fn == nullptr) *error = "lib_lightgbm.so lacks " + std::string(name);
  return *fn != nullptr;
}

struct Loaded {
  LightgbmApi api{};
  std::string error;  //!< "" when api is usable
};

Loaded Open() {
  Loaded loaded;
  const std::string beside = OwnFolder() + "/lib_lightgbm.so";
  void* library = dlopen(beside.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) library = dlopen("lib_lightgbm.so", RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    loaded.error = "LightGBM is not available: lib_lightgbm.so is neither beside the fil "
                   "backend (" + beside + ") nor on the library path (" + dlerror() + ")";
    return loaded;
  }
  LightgbmApi& api = loaded.api;
  std::string& e = loaded.error;
  if (!Resolve(library, "LGBM_GetLastError", &api.GetLastError, &e) ||
      !Resolve(library, "LGBM_BoosterCreateFromModelfile", &api.BoosterCreateFromModelfile, &e) ||
      !Resolve(library, "LGBM_BoosterFree", &api.BoosterFree, &e) ||
      !Resolve(library, "LGBM_BoosterGetNumClasses", &api.BoosterGetNumClasses, &e) ||
      !Resolve(library, "LGBM_BoosterGetNumFeature", &api.BoosterGetNumFeature, &e) ||
      !Resolve(library, "LGBM_BoosterPredictForMat", &api.BoosterPredictForMat, &e)) {
    dlclose(library);
  }
  return loaded;  // the library stays open for the process's life
}

}  // namespace

const LightgbmApi* GetLightgbmApi(std::string* error) {
  static const Loaded loaded = Open();  // thread-safe once
  if (!loaded.error.empty()) {
    *error = loaded.error;
    return nullptr;
  }
  return &loaded.api;
}

}  // namespace inferd::fil
