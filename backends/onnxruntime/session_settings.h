// How an instance's ONNX Runtime session is set up, from the model's
// configuration: thread counts, execution mode, graph optimization level,
// memory arena and pattern, and raw session config entries. The names are
// those of Triton's onnxruntime backend. Pure; thread-safe.
//
//   parameters { key: "intra_op_thread_count" value: { string_value: "4" } }
//   parameters { key: "inter_op_thread_count" value: { string_value: "1" } }
//   parameters { key: "execution_mode" value: { string_value: "0" } }  # 1: parallel
//   parameters { key: "enable_mem_arena" value: { string_value: "1" } }
//   parameters { key: "enable_mem_pattern" value: { string_value: "1" } }
//   parameters { key: "share_session_between_instances" value: { string_value: "true" } }
//   parameters { key: "session.<ORT key>" value: { string_value: "..." } }
//     (session.intra_op.allow_spinning and session.inter_op.allow_spinning
//      default to "0" here, unlike ORT)
//   optimization { graph { level: 1 } }  # -1 basic, 1 extended, 2 none, else all
#ifndef INFERD_BACKENDS_ONNXRUNTIME_SESSION_SETTINGS_H_
#define INFERD_BACKENDS_ONNXRUNTIME_SESSION_SETTINGS_H_

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model_settings.h"
#include "onnxruntime_c_api.h"

namespace inferd::onnxruntime {

// ORT session config keys for thread spinning, which inferd turns off by default.
inline constexpr const char* kIntraOpSpinning = "session.intra_op.allow_spinning";
inline constexpr const char* kInterOpSpinning = "session.inter_op.allow_spinning";

struct SessionSettings {
  int intra_op_threads = 1;  //!< threads inside one operator
  int inter_op_threads = 1;  //!< threads across operators (parallel mode only)
  ExecutionMode execution_mode = ORT_SEQUENTIAL;
  GraphOptimizationLevel optimization_level = ORT_ENABLE_ALL;
  std::optional<bool> mem_arena;    //!< absent: ORT's default
  std::optional<bool> mem_pattern;  //!< absent: ORT's default
  //! "session.*" parameters handed to AddSessionConfigEntry as they are.
  std::vector<std::pair<std::string, std::string>> config_entries;
  //! Run on the environment's shared thread pools (SharedPoolsFit) instead of
  //! pools of the session's own.
  bool shared_pools = false;
  //! The model's instances run one session (ORT runs a session concurrently):
  //! parameter share_session_between_instances (Triton's), by default when
  //! the session has no thread pools of its own, so sharing changes nothing
  //! but the weights are in memory once and the model loads once.
  bool share_session = false;

  bool operator==(const SessionSettings&) const = default;
};

// Whether a session with `settings` may use the environment's shared pools of
// `cores` intra-op threads (no inter-op threads, no spinning) and behave as with
// pools of its own: sequential, that many intra-op threads, spinning off. A
// pool of its own costs a thread (and its memory) per session, and creating it
// as much time as the rest of a small model's session.
bool SharedPoolsFit(const SessionSettings& settings, unsigned cores);

// The machine's hardware threads (at least 1): `cores` below.
unsigned MachineCores();

// The settings for one instance of `model` on a machine with `cores` hardware
// threads. A thread count left unset (or "0") defaults to
// max(1, cores / instance_count), so the model's instances together use every
// core once and no more. Returns "" or the parameter that is malformed.
std::string ResolveSessionSettings(const ModelSettings& model, unsigned cores,
                                   SessionSettings* settings);

}  // namespace inferd::onnxruntime

#endif  // INFERD_BACKENDS_ONNXRUNTIME_SESSION_SETTINGS_H_
