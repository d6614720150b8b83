#include "core/scheduler/sequence_states.h"

#include <fstream>
#include <iterator>

#include "core/common/datatype.h"

namespace inferd {

StatusOr<SequenceStates> SequenceStates::Load(const inference::ModelConfig& config,
                                              const std::filesystem::path& model_dir) {
  SequenceStates states;
  for (const auto& state : config.sequence_batching().state()) {
    const std::string what = "model '" + config.name() + "': sequence_batching state '" +
                             state.input_name() + "'";
    StateSpec spec;
    spec.input_name = state.input_name();
    spec.output_name = state.output_name();
    spec.datatype = FromConfigDataType(state.data_type());
    uint64_t elements = 1;
    for (int64_t dim : state.dims()) {
      if (dim <= 0) {
        return Status::Unsupported(what + ": dims must be fixed (a state of variable size is "
                                          "not supported)");
      }
      spec.dims.push_back(dim);
      elements *= static_cast<uint64_t>(dim);
    }
    const size_t element_size = DataTypeByteSize(spec.datatype);
    if (element_size == 0) {
      return Status::Unsupported(what + ": a state must have a fixed-size data_type");
    }
    const uint64_t bytes = elements * element_size;
    spec.initial.assign(bytes, '\0');
    for (const auto& initial : state.initial_state()) {
      if (initial.state_data_case() != inference::ModelSequenceBatching::InitialState::kDataFile) {
        continue;  // zero_data: zeros already
      }
      const std::filesystem::path file = model_dir / "initial_state" / initial.data_file();
      std::ifstream in(file, std::ios::binary);
      if (!in) return Status::InvalidArg(what + ": cannot read initial state " + file.string());
      std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      if (data.size() != bytes) {
        return Status::InvalidArg(what + ": initial state " + file.string() + " holds " +
                                  std::to_string(data.size()) + " bytes, the state needs " +
                                  std::to_string(bytes));
      }
      spec.initial = std::move(data);
    }
    states.specs_.push_back(std::move(spec));
  }
  return states;
}

}  // namespace inferd
