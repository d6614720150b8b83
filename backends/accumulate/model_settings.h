// What an accumulate model's configuration says, read once when the model
// initializes: which inputs carry the sequence batcher's control signals (found
// by kind), whether the server keeps the sums as implicit state, and where to
// record what the backend saw. Constant afterwards.
#ifndef INFERD_BACKENDS_ACCUMULATE_MODEL_SETTINGS_H_
#define INFERD_BACKENDS_ACCUMULATE_MODEL_SETTINGS_H_

#include <cstddef>
#include <string>

#include "inferd/backend.h"

namespace inferd::accumulate {

// One boolean control (START, END or READY): the input carrying it, the
// datatype of that input and the value meaning "true". `input` is "" when the
// configuration names no such control.
struct FlagControl {
  std::string input;
  INFERD_DataType datatype = INFERD_TYPE_INVALID;  // FP32, INT32 or BOOL
  double true_value = 1;
};

// The CORRID control: the input carrying the sequence id, UINT64 or BYTES.
struct CorrIdControl {
  std::string input;
  INFERD_DataType datatype = INFERD_TYPE_INVALID;
};

struct ModelSettings {
  std::string model_name;
  // max_batch_size > 0: every tensor has a leading batch dimension.
  bool batched = false;
  FlagControl start, end, ready;
  CorrIdControl corrid;
  // sequence_batching.state[0], both "" without implicit state: then the
  // backend keeps each sequence's sum itself.
  std::string state_input;
  std::string state_output;
  std::string record_file;  // parameter "record_file", "" for none

  bool implicit_state() const { return !state_input.empty(); }
};

// Reads the model configuration `json` (INFERD_ModelConfig's form). An error
// naming the model when it has no sequence_batching, when it keeps its own
// sums but has no CORRID control, or when its state is not one INT32 value.
INFERD_Error* ReadModelSettings(const std::string& model_name, const char* json, size_t size,
                                ModelSettings* settings);

}  // namespace inferd::accumulate

#endif  // INFERD_BACKENDS_ACCUMULATE_MODEL_SETTINGS_H_
