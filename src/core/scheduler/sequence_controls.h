// The control inputs of a sequence model (sequence_batching control_input):
// START, END, READY and CORRID tensors the scheduler adds to every request it
// hands to an instance, so the backend knows where each row of a batch stands
// in its sequence. Built once from the config; immutable, so thread-safe.
#ifndef INFERD_CORE_SCHEDULER_SEQUENCE_CONTROLS_H_
#define INFERD_CORE_SCHEDULER_SEQUENCE_CONTROLS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "inferd/base/status.h"
#include "inferd/server.h"
#include "model_config.pb.h"

namespace inferd {

class InferenceRequest;

// Where a request stands in its sequence.
struct SequenceSignals {
  bool start = false;
  bool end = false;
  bool ready = true;  // false: a padding row with no request behind it
  uint64_t correlation_id = 0;
  std::string correlation_id_string;  // set for string ids
};

class SequenceControls {
 public:
  explicit SequenceControls(const inference::ModelConfig& config);

  // Adds every control input to `request` (shape [1], or [1, 1] when the model
  // batches), with values for `signals`.
  Status AddTo(InferenceRequest* request, const SequenceSignals& signals) const;

  // Whether `name` is a control input (a client may not send one).
  bool IsControl(const std::string& name) const;

 private:
  struct Control {
    std::string input;
    inference::ModelSequenceBatching::Control::Kind kind;
    INFERD_DataType datatype = INFERD_TYPE_INVALID;
    std::string false_bytes, true_bytes;  // the two values, as tensor bytes
  };
  std::string CorrelationBytes(const Control& control, const SequenceSignals& signals) const;

  std::vector<Control> controls_;
  bool batches_ = false;
};

}  // namespace inferd

#endif  // INFERD_CORE_SCHEDULER_SEQUENCE_CONTROLS_H_
