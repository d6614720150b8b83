// Opening lib_lightgbm.so and resolving its C API (see lightgbm_api.h).
#include "lightgbm_api.h"

#include <dlfcn.h>

#include <mutex>

#include "shared_library.h"

namespace inferd::fil {
namespace {

template <typename Fn>
bool Resolve(void* library, const char* name, Fn* fn, std::string* error) {
  return ResolveFunction(library, "lib_lightgbm.so", name, fn, error);
}

struct Loaded {
  LightgbmApi api{};
  std::string error;  //!< "" when api is usable
};

Loaded Open() {
  Loaded loaded;
  const std::string beside = BackendFolder() + "/lib_lightgbm.so";
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
