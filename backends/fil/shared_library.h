// Opening a library the fil backend ships beside itself (lib_lightgbm.so,
// the bundled XGBoost) and resolving its C API. Thread-safe.
#ifndef INFERD_BACKENDS_FIL_SHARED_LIBRARY_H_
#define INFERD_BACKENDS_FIL_SHARED_LIBRARY_H_

#include <dlfcn.h>

#include <string>

namespace inferd::fil {

// The folder of libinferd_fil.so, where the build puts the libraries it opens.
std::string BackendFolder();

// Sets `*fn` to `library`'s function `name`; false with `*error` naming
// `library_name` and the function when it lacks it.
template <typename Fn>
bool ResolveFunction(void* library, const char* library_name, const char* name, Fn* fn,
                     std::string* error) {
  *fn = reinterpret_cast<Fn>(dlsym(library, name));
  if (*fn == nullptr) *error = std::string(library_name) + " lacks " + name;
  return *fn != nullptr;
}

}  // namespace inferd::fil

#endif  // INFERD_BACKENDS_FIL_SHARED_LIBRARY_H_
