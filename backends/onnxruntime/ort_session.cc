// Session creation (see ort_session.h).
#include "ort_session.h"

#include <cstdlib>

namespace inferd::onnxruntime {
namespace {

INFERD_Error* ApplySettings(const SessionSettings& settings, OrtSessionOptions* options) {
  const OrtApi& ort = Ort();
  const std::string what = "ONNX Runtime session options";
  if (settings.shared_pools) {
    if (auto* err = OrtError(ort.DisablePerSessionThreads(options), what)) return err;
  }
  if (auto* err = OrtError(ort.SetIntraOpNumThreads(options, settings.intra_op_threads), what)) {
    return err;
  }
  if (auto* err = OrtError(ort.SetInterOpNumThreads(options, settings.inter_op_threads), what)) {
    return err;
  }
  if (auto* err = OrtError(ort.SetSessionExecutionMode(options, settings.execution_mode), what)) {
    return err;
  }
  if (auto* err = OrtError(
          ort.SetSessionGraphOptimizationLevel(options, settings.optimization_level), what)) {
    return err;
  }
  if (settings.mem_arena) {
    OrtStatus* status = *settings.mem_arena ? ort.EnableCpuMemArena(options)
                                            : ort.DisableCpuMemArena(options);
    if (auto* err = OrtError(status, what)) return err;
  }
  if (settings.mem_pattern) {
    OrtStatus* status = *settings.mem_pattern ? ort.EnableMemPattern(options)
                                              : ort.DisableMemPattern(options);
    if (auto* err = OrtError(status, what)) return err;
  }
  for (const auto& [key, value] : settings.config_entries) {
    if (auto* err = OrtError(ort.AddSessionConfigEntry(options, key.c_str(), value.c_str()),
                             "parameter '" + key + "'")) {
      return err;
    }
  }
  return nullptr;
}

}  // namespace

INFERD_Error* CreateSharedPoolsEnv(unsigned cores, OrtEnv** env) {
  // ONNX Runtime (1.29 on Linux) starts a telemetry uploader when it creates
  // the environment unless this says no: it writes a SQLite database under
  // ~/.cache/Microsoft with fsyncs, a file in /tmp per process and one in the
  // working folder, queues events for upload to Microsoft and may wait up to
  // 10 s at exit to send them; ~2.5 ms of CPU and the fsyncs' waits before the
  // first model can load. DisableTelemetryEvents below comes too late for
  // that. An operator's own setting wins.
  setenv("ORT_DISABLE_TELEMETRY", "1", /*overwrite=*/0);
  const OrtApi& ort = Ort();
  const std::string what = "onnxruntime backend: creating the ONNX Runtime environment";
  OrtThreadingOptions* raw_threading = nullptr;
  if (auto* err = OrtError(ort.CreateThreadingOptions(&raw_threading), what)) return err;
  OrtPtr<OrtThreadingOptions> threading(raw_threading);
  if (auto* err = OrtError(ort.SetGlobalIntraOpNumThreads(threading.get(), cores), what)) {
    return err;
  }
  if (auto* err = OrtError(ort.SetGlobalInterOpNumThreads(threading.get(), 1), what)) return err;
  if (auto* err = OrtError(ort.SetGlobalSpinControl(threading.get(), 0), what)) return err;
  if (auto* err = OrtError(ort.CreateEnvWithGlobalThreadPools(ORT_LOGGING_LEVEL_WARNING, "inferd",
                                                              threading.get(), env),
                           what)) {
    return err;
  }
  // ONNX Runtime's telemetry records every session creation in a SQLite file
  // under ~/.cache/Microsoft, with fsyncs: half the CPU time of creating a
  // small model's session, and disk writes a server has no business doing.
  if (auto* err = OrtError(ort.DisableTelemetryEvents(*env),
                           "onnxruntime backend: turning ONNX Runtime's telemetry off")) {
    ort.ReleaseEnv(*env);
    *env = nullptr;
    return err;
  }
  return nullptr;
}

INFERD_Error* CreateSession(OrtEnv* env, const std::string& path, const SessionSettings& settings,
                            OrtPtr<OrtSession>* session) {
  const OrtApi& ort = Ort();
  OrtSessionOptions* raw_options = nullptr;
  if (auto* err = OrtError(ort.CreateSessionOptions(&raw_options), "ONNX Runtime")) return err;
  OrtPtr<OrtSessionOptions> options(raw_options);
  if (auto* err = ApplySettings(settings, options.get())) return err;
  OrtSession* raw_session = nullptr;
  if (auto* err = OrtError(ort.CreateSession(env, path.c_str(), options.get(), &raw_session),
                           "ONNX Runtime cannot load " + path)) {
    return err;
  }
  session->reset(raw_session);
  return nullptr;
}

SessionSettings MetadataSessionSettings() {
  SessionSettings settings;
  settings.intra_op_threads = 1;
  settings.inter_op_threads = 1;
  settings.optimization_level = ORT_DISABLE_ALL;
  return settings;
}

}  // namespace inferd::onnxruntime
