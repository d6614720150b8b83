// Runs the loads and unloads a Python model asks for (pb_utils.load_model,
// unload_model) on threads of their own: such a call blocks until the server
// is done, which may take seconds and may wait for the asking model itself
// (a reload retires its old version once its requests end), so it must hold
// neither the thread that reads the stub's channel nor the instance. Rare
// calls: a thread each, counted so the backend's finalize waits for them; once
// one ran, the library stays loaded until the process ends.
// Thread-safe.
#ifndef INFERD_BACKENDS_PYTHON_MODEL_CONTROL_H_
#define INFERD_BACKENDS_PYTHON_MODEL_CONTROL_H_

#include <functional>

#include "inferd/base/status.h"

namespace inferd::python {

// Runs `op` on a new thread, then `done` with its status (on that thread).
void RunModelControl(std::function<Status()> op, std::function<void(const Status&)> done);

// Waits until every call started ended but the caller's own
// (INFERD_BackendFinalize, which an unload a call runs may reach).
void AwaitModelControls();

}  // namespace inferd::python

#endif  // INFERD_BACKENDS_PYTHON_MODEL_CONTROL_H_
