// Azure Blob Storage (Shared Key or SAS).
#ifndef INFERD_CORE_CLOUD_AZURE_STORE_H_
#define INFERD_CORE_CLOUD_AZURE_STORE_H_

#include <memory>

#include "core/cloud/store_registry.h"

namespace inferd {

// The store of a as:// URL (store_registry.h's OpenStoreFn).
StatusOr<std::unique_ptr<ObjectStore>> OpenAzureStore(const CloudUrl& url,
                                                      const StoreContext& context);

}  // namespace inferd

#endif  // INFERD_CORE_CLOUD_AZURE_STORE_H_
