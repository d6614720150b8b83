// Parsing of the model configuration JSON into ModelSettings (see model_settings.h).
#include "model_settings.h"

#include "common/config_json.h"
#include "rapidjson/document.h"

namespace inferd::pytorch {
namespace {

using backend_common::Member;
using rapidjson::Value;

std::string TypeRefusal(const std::string& type_name) {
  return IsUnsignedWithoutTorchType(type_name) ? ", which LibTorch has no tensor type for"
                                               : ", which the pytorch backend does not serve";
}

}  // namespace

std::string ParseModelSettings(std::string_view config_json, ModelSettings* settings) {
  static const backend_common::TensorRules kRules{
      &TorchTypes(), &TypeRefusal, ", which the pytorch backend does not apply"};
  rapidjson::Document doc;
  if (auto err = backend_common::ReadModelSettings(config_json, kRules, settings, &doc);
      !err.empty()) {
    return err;
  }
  if (const Value* sequence = Member(doc, "sequence_batching")) {
    const Value* controls = Member(*sequence, "control_input");
    const Value* states = Member(*sequence, "state");
    if ((controls && controls->IsArray() && !controls->Empty()) ||
        (states && states->IsArray() && !states->Empty())) {
      return "sequence_batching control inputs and implicit state are not supported by the "
             "pytorch backend";
    }
  }
  return "";
}

}  // namespace inferd::pytorch
