// The XGBoost C API functions the fil backend calls, as a table, so one
// forest serves with either of its two XGBoost libraries:
// - the linked one, Debian's libxgboost-dev (1.7): the legacy binary format,
//   which XGBoost 3.1 no longer reads;
// - the bundled one, XGBoost 3.2 from PyPI's xgboost-cpu wheel, which
//   scripts/install-deps.sh unpacks into third_party/xgboost and the build
//   copies beside libinferd_fil.so (xgboost/lib/libxgboost.so, its OpenMP in
//   xgboost_cpu.libs/): JSON and UBJSON models of every version up to its own.
// The bundled library is opened on first use with RTLD_LOCAL: its symbols
// stay apart from the linked library's, which the server also opened
// RTLD_LOCAL with the backend. Both declare these functions alike (c_api.h).
// Thread-safe.
#ifndef INFERD_BACKENDS_FIL_XGBOOST_API_H_
#define INFERD_BACKENDS_FIL_XGBOOST_API_H_

#include <string>

#include "xgboost/c_api.h"
#include "xgboost_model_file.h"

namespace inferd::fil {

struct XgboostApi {
  std::string name;  //!< "XGBoost 1.7.4", for messages
  XgboostVersion version;
  decltype(&XGBGetLastError) GetLastError;
  decltype(&XGBoosterCreate) BoosterCreate;
  decltype(&XGBoosterFree) BoosterFree;
  decltype(&XGBoosterLoadModelFromBuffer) BoosterLoadModelFromBuffer;
  decltype(&XGBoosterSetParam) BoosterSetParam;
  decltype(&XGBoosterGetNumFeature) BoosterGetNumFeature;
  decltype(&XGBoosterSaveJsonConfig) BoosterSaveJsonConfig;
  decltype(&XGBoosterPredictFromDense) BoosterPredictFromDense;
};

// Debian's XGBoost, which the backend links.
const XgboostApi& LinkedXgboost();

// The bundled XGBoost, opening it the first time; null with `*error` (why it
// is not available) when it cannot be opened.
const XgboostApi* BundledXgboost(std::string* error);

// Both libraries' versions and availability, for ChooseXgboostReader.
XgboostLibraries AvailableXgboostLibraries();

}  // namespace inferd::fil

#endif  // INFERD_BACKENDS_FIL_XGBOOST_API_H_
