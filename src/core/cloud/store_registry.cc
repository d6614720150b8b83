#include "core/cloud/store_registry.h"

#include <string>

#include "core/cloud/azure_store.h"
#include "core/cloud/gcs_store.h"
#include "core/cloud/s3_store.h"

namespace inferd {
namespace {

struct StoreKind {
  const char* scheme;
  OpenStoreFn open;
};

constexpr StoreKind kStores[] = {
    {"s3", OpenS3Store},
    {"gs", OpenGcsStore},
    {"as", OpenAzureStore},
};

}  // namespace

StatusOr<std::unique_ptr<ObjectStore>> OpenObjectStore(std::string_view url,
                                                       const StoreContext& context) {
  ASSIGN_OR_RETURN(CloudUrl parsed, ParseCloudUrl(url));
  for (const StoreKind& kind : kStores) {
    if (parsed.scheme == kind.scheme) return kind.open(parsed, context);
  }
  return Status::InvalidArg("no object store for '" + std::string(url) + "'");
}

}  // namespace inferd
