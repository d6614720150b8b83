// dlopen + dlsym of a frontend module.
#include "module_loader.h"

#include <dlfcn.h>

namespace inferd {

StatusOr<void*> LoadModuleEntryPoint(const std::string& path, const char* symbol,
                                     const std::string& what, const std::string& hint) {
  // Never unloaded: a module's libraries (gRPC, OpenSSL) keep threads and
  // static state for the process's life, and a frontend's code must outlive
  // the frontend.
  void* module = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
  if (module == nullptr) {
    const char* reason = dlerror();
    return Status::Unavailable("cannot load the " + what + " (" +
                               std::string(reason ? reason : path) + ")" + hint);
  }
  void* entry = dlsym(module, symbol);
  if (entry == nullptr) {
    return Status::Unavailable(path + " lacks the " + what + "'s entry point; rebuild inferd");
  }
  return entry;
}

}  // namespace inferd
