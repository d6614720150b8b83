// Implicit state of a sequence model (sequence_batching state): tensors the
// server keeps for each sequence between its requests, so that a backend can
// be stateful without keeping memory itself. Each request gets the state as
// input `input_name` (its initial value at START: zeros, or the bytes of
// <model folder>/initial_state/<data_file>), and what the backend writes to
// output `output_name` becomes the state the sequence's next request gets.
// Fixed dims only. Immutable after Load, so thread-safe.
#ifndef INFERD_CORE_SCHEDULER_SEQUENCE_STATES_H_
#define INFERD_CORE_SCHEDULER_SEQUENCE_STATES_H_

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "inferd/base/status.h"
#include "inferd/server.h"
#include "model_config.pb.h"

namespace inferd {

struct StateSpec {
  std::string input_name;
  std::string output_name;
  INFERD_DataType datatype = INFERD_TYPE_INVALID;
  std::vector<int64_t> dims;  // without the batch dimension
  std::string initial;        // the value a sequence starts with
};

class SequenceStates {
 public:
  SequenceStates() = default;
  // Reads `config`'s states; an initial data_file is read from
  // `model_dir`/initial_state/ and must hold exactly the state's bytes.
  static StatusOr<SequenceStates> Load(const inference::ModelConfig& config,
                                       const std::filesystem::path& model_dir);

  const std::vector<StateSpec>& specs() const { return specs_; }
  bool empty() const { return specs_.empty(); }

 private:
  std::vector<StateSpec> specs_;
};

}  // namespace inferd

#endif  // INFERD_CORE_SCHEDULER_SEQUENCE_STATES_H_
