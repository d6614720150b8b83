#include "core/scheduler/sequence_controls.h"

#include <cstring>

#include "core/common/datatype.h"
#include "core/infer/inference_request.h"

namespace inferd {
namespace {

using Kind = inference::ModelSequenceBatching::Control::Kind;

template <typename T>
std::string Bytes(T value) {
  std::string bytes(sizeof(T), '\0');
  std::memcpy(bytes.data(), &value, sizeof(T));
  return bytes;
}

}  // namespace

SequenceControls::SequenceControls(const inference::ModelConfig& config)
    : batches_(config.max_batch_size() > 0) {
  for (const auto& input : config.sequence_batching().control_input()) {
    for (const auto& signal : input.control()) {
      Control control;
      control.input = input.name();
      control.kind = signal.kind();
      if (signal.kind() == inference::ModelSequenceBatching::Control::CONTROL_SEQUENCE_CORRID) {
        control.datatype = FromConfigDataType(signal.data_type());
      } else if (signal.fp32_false_true_size() == 2) {
        control.datatype = INFERD_TYPE_FP32;
        control.false_bytes = Bytes(signal.fp32_false_true(0));
        control.true_bytes = Bytes(signal.fp32_false_true(1));
      } else if (signal.int32_false_true_size() == 2) {
        control.datatype = INFERD_TYPE_INT32;
        control.false_bytes = Bytes(signal.int32_false_true(0));
        control.true_bytes = Bytes(signal.int32_false_true(1));
      } else {
        control.datatype = INFERD_TYPE_BOOL;
        control.false_bytes = Bytes<uint8_t>(signal.bool_false_true_size() == 2 &&
                                             signal.bool_false_true(0));
        control.true_bytes = Bytes<uint8_t>(signal.bool_false_true_size() != 2 ||
                                            signal.bool_false_true(1));
      }
      controls_.push_back(std::move(control));
    }
  }
}

bool SequenceControls::IsControl(const std::string& name) const {
  for (const Control& control : controls_) {
    if (control.input == name) return true;
  }
  return false;
}

std::string SequenceControls::CorrelationBytes(const Control& control,
                                               const SequenceSignals& signals) const {
  switch (control.datatype) {
    case INFERD_TYPE_BYTES: {
      std::string id = signals.correlation_id_string.empty()
                           ? std::to_string(signals.correlation_id)
                           : signals.correlation_id_string;
      return Bytes(static_cast<uint32_t>(id.size())) + id;
    }
    case INFERD_TYPE_INT64: return Bytes(static_cast<int64_t>(signals.correlation_id));
    case INFERD_TYPE_INT32: return Bytes(static_cast<int32_t>(signals.correlation_id));
    case INFERD_TYPE_UINT32: return Bytes(static_cast<uint32_t>(signals.correlation_id));
    default: return Bytes(signals.correlation_id);
  }
}

Status SequenceControls::AddTo(InferenceRequest* request, const SequenceSignals& signals) const {
  std::vector<int64_t> shape = batches_ ? std::vector<int64_t>{1, 1} : std::vector<int64_t>{1};
  for (const Control& control : controls_) {
    bool on = false;
    switch (control.kind) {
      case inference::ModelSequenceBatching::Control::CONTROL_SEQUENCE_START:
        on = signals.start;
        break;
      case inference::ModelSequenceBatching::Control::CONTROL_SEQUENCE_END:
        on = signals.end;
        break;
      case inference::ModelSequenceBatching::Control::CONTROL_SEQUENCE_READY:
        on = signals.ready;
        break;
      default:
        RETURN_IF_ERROR(request->AddOwnedInput(control.input, control.datatype, shape,
                                               CorrelationBytes(control, signals)));
        continue;
    }
    RETURN_IF_ERROR(request->AddOwnedInput(control.input, control.datatype, shape,
                                           on ? control.true_bytes : control.false_bytes));
  }
  return Status::Ok();
}

}  // namespace inferd
