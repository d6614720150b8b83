#include "core/cloud/azure_store.h"

namespace inferd {

StatusOr<std::unique_ptr<ObjectStore>> OpenAzureStore(const CloudUrl& url, const StoreContext&) {
  return Status::Unsupported("as:// model repositories are not built yet: '" + url.text + "'");
}

}  // namespace inferd
