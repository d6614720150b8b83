#include "core/cloud/gcs_store.h"

namespace inferd {

StatusOr<std::unique_ptr<ObjectStore>> OpenGcsStore(const CloudUrl& url, const StoreContext&) {
  return Status::Unsupported("gs:// model repositories are not built yet: '" + url.text + "'");
}

}  // namespace inferd
