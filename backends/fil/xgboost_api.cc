// The two XGBoost libraries' C API tables (see xgboost_api.h).
#include "xgboost_api.h"

#include <dlfcn.h>

#include "shared_library.h"

namespace inferd::fil {
namespace {

XgboostVersion VersionOf(decltype(&XGBoostVersion) version_function) {
  XgboostVersion version;
  version_function(&version.major, &version.minor, &version.patch);
  return version;
}

XgboostApi MakeLinked() {
  XgboostApi api{"", VersionOf(&XGBoostVersion), &XGBGetLastError, &XGBoosterCreate,
                 &XGBoosterFree, &XGBoosterLoadModelFromBuffer, &XGBoosterSetParam,
                 &XGBoosterGetNumFeature, &XGBoosterSaveJsonConfig,
                 &XGBoosterPredictFromDense};
  api.name = "XGBoost " + api.version.ToString();
  return api;
}

struct Bundled {
  XgboostApi api{};
  std::string error;  //!< "" when api is usable
};

bool ResolveAll(void* library, XgboostApi* api, std::string* error) {
  const char* const name = "the bundled libxgboost.so";
  decltype(&XGBoostVersion) version = nullptr;
  if (!ResolveFunction(library, name, "XGBoostVersion", &version, error) ||
      !ResolveFunction(library, name, "XGBGetLastError", &api->GetLastError, error) ||
      !ResolveFunction(library, name, "XGBoosterCreate", &api->BoosterCreate, error) ||
      !ResolveFunction(library, name, "XGBoosterFree", &api->BoosterFree, error) ||
      !ResolveFunction(library, name, "XGBoosterLoadModelFromBuffer",
                       &api->BoosterLoadModelFromBuffer, error) ||
      !ResolveFunction(library, name, "XGBoosterSetParam", &api->BoosterSetParam, error) ||
      !ResolveFunction(library, name, "XGBoosterGetNumFeature", &api->BoosterGetNumFeature,
                       error) ||
      !ResolveFunction(library, name, "XGBoosterSaveJsonConfig", &api->BoosterSaveJsonConfig,
                       error) ||
      !ResolveFunction(library, name, "XGBoosterPredictFromDense",
                       &api->BoosterPredictFromDense, error)) {
    return false;
  }
  api->version = VersionOf(version);
  api->name = "XGBoost " + api->version.ToString();
  return true;
}

Bundled OpenBundled() {
  Bundled bundled;
  const std::string path = BackendFolder() + "/xgboost/lib/libxgboost.so";
  void* library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    bundled.error = std::string("the bundled XGBoost is not available (") + dlerror() +
                    "; scripts/install-deps.sh installs it into third_party/xgboost)";
    return bundled;
  }
  if (!ResolveAll(library, &bundled.api, &bundled.error)) dlclose(library);
  return bundled;  // the library stays open for the process's life
}

}  // namespace

const XgboostApi& LinkedXgboost() {
  static const XgboostApi linked = MakeLinked();
  return linked;
}

const XgboostApi* BundledXgboost(std::string* error) {
  static const Bundled bundled = OpenBundled();  // thread-safe once
  if (!bundled.error.empty()) {
    *error = bundled.error;
    return nullptr;
  }
  return &bundled.api;
}

XgboostLibraries AvailableXgboostLibraries() {
  XgboostLibraries libraries;
  libraries.linked = LinkedXgboost().version;
  if (const XgboostApi* bundled = BundledXgboost(&libraries.bundled_error)) {
    libraries.bundled_available = true;
    libraries.bundled = bundled->version;
  }
  return libraries;
}

}  // namespace inferd::fil
