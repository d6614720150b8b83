// From a repository URL to the ObjectStore that serves it: the URL's scheme
// picks the cloud (s3 -> s3_store.h, gs -> gcs_store.h, as -> azure_store.h),
// whose Open function gets the parsed URL, the credentials for it and the
// shared HTTP client. Adding a cloud = one Open function + one row in
// store_registry.cc.
#ifndef INFERD_CORE_CLOUD_STORE_REGISTRY_H_
#define INFERD_CORE_CLOUD_STORE_REGISTRY_H_

#include <memory>
#include <string_view>

#include "core/cloud/cloud_credentials.h"
#include "core/cloud/cloud_url.h"
#include "core/cloud/http_client.h"
#include "core/cloud/object_store.h"
#include "inferd/base/status.h"

namespace inferd {

// What every store is opened with; both outlive the stores.
struct StoreContext {
  const HttpClient* http = nullptr;
  const CloudCredentials* credentials = nullptr;
};

// A store's Open function: INVALID_ARG for a URL it cannot serve,
// UNSUPPORTED for a cloud this build lacks. Opening sends no request.
using OpenStoreFn = StatusOr<std::unique_ptr<ObjectStore>> (*)(const CloudUrl&,
                                                                const StoreContext&);

// The store for `url` (parsed with ParseCloudUrl first).
StatusOr<std::unique_ptr<ObjectStore>> OpenObjectStore(std::string_view url,
                                                       const StoreContext& context);

}  // namespace inferd

#endif  // INFERD_CORE_CLOUD_STORE_REGISTRY_H_
