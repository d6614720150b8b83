// Google Cloud Storage (JSON API; OAuth2 service-account JWT or HMAC interop).
#ifndef INFERD_CORE_CLOUD_GCS_STORE_H_
#define INFERD_CORE_CLOUD_GCS_STORE_H_

#include <memory>

#include "core/cloud/store_registry.h"

namespace inferd {

// The store of a gs:// URL (store_registry.h's OpenStoreFn).
StatusOr<std::unique_ptr<ObjectStore>> OpenGcsStore(const CloudUrl& url,
                                                      const StoreContext& context);

}  // namespace inferd

#endif  // INFERD_CORE_CLOUD_GCS_STORE_H_
