// Parsing of the model configuration JSON into ModelSettings (see model_settings.h).
#include "model_settings.h"

#include "common/config_json.h"
#include "rapidjson/document.h"

namespace inferd::onnxruntime {
namespace {

using backend_common::AsInt;
using backend_common::Member;
using backend_common::ParseDims;
using rapidjson::Value;

std::string TypeRefusal(const std::string& /*type_name*/) {
  return ", which the onnxruntime backend does not serve";
}

// A tensor the sequence batcher adds: `name` of `type_name`, `dims`.
std::string AddSequenceTensor(const std::string& name, const std::string& type_name,
                              std::vector<int64_t> dims, std::vector<TensorSpec>* out) {
  TensorSpec spec;
  spec.name = name;
  spec.type = TypeFromConfigName(type_name);
  if (spec.type == nullptr) {
    return "sequence_batching tensor '" + name + "' has data_type " + type_name +
           ", which the onnxruntime backend does not serve";
  }
  spec.dims = std::move(dims);
  out->push_back(std::move(spec));
  return "";
}

// The control inputs and implicit state tensors of sequence_batching: the
// server adds them to every request, so the model has them as inputs (and
// state outputs) though the config's input and output lists do not name them.
std::string ParseSequenceTensors(const Value* batching, ModelSettings* settings) {
  if (batching == nullptr) return "";
  if (const Value* controls = Member(*batching, "control_input"); controls && controls->IsArray()) {
    for (const Value& input : controls->GetArray()) {
      const Value* name = Member(input, "name");
      const Value* kinds = Member(input, "control");
      if (!name || !name->IsString() || !kinds || !kinds->IsArray() || kinds->Empty()) continue;
      const Value& control = (*kinds)[0];
      std::string type = "TYPE_BOOL";
      if (const Value* dt = Member(control, "data_type"); dt && dt->IsString() &&
                                                          std::string(dt->GetString()) != "TYPE_INVALID") {
        type = dt->GetString();
      } else if (const Value* f = Member(control, "fp32_false_true"); f && f->IsArray() && !f->Empty()) {
        type = "TYPE_FP32";
      } else if (const Value* i = Member(control, "int32_false_true"); i && i->IsArray() && !i->Empty()) {
        type = "TYPE_INT32";
      }
      if (auto err = AddSequenceTensor(name->GetString(), type, {1}, &settings->inputs);
          !err.empty()) {
        return err;
      }
    }
  }
  if (const Value* states = Member(*batching, "state"); states && states->IsArray()) {
    for (const Value& state : states->GetArray()) {
      const Value* in = Member(state, "input_name");
      const Value* out = Member(state, "output_name");
      const Value* dt = Member(state, "data_type");
      if (!in || !in->IsString() || !out || !out->IsString() || !dt || !dt->IsString()) continue;
      std::vector<int64_t> dims;
      if (auto err = ParseDims(Member(state, "dims"), "state dims", &dims); !err.empty()) return err;
      if (auto err = AddSequenceTensor(in->GetString(), dt->GetString(), dims, &settings->inputs);
          !err.empty()) {
        return err;
      }
      if (auto err = AddSequenceTensor(out->GetString(), dt->GetString(), dims,
                                       &settings->outputs);
          !err.empty()) {
        return err;
      }
    }
  }
  return "";
}

}  // namespace

std::string ParseModelSettings(std::string_view config_json, ModelSettings* settings) {
  *settings = ModelSettings{};
  static const backend_common::TensorRules kRules{&OnnxTypes(), &TypeRefusal, ""};
  rapidjson::Document doc;
  if (auto err = backend_common::ReadModelSettings(config_json, kRules, settings, &doc);
      !err.empty()) {
    return err;
  }
  if (auto err = ParseSequenceTensors(Member(doc, "sequence_batching"), settings); !err.empty()) {
    return err;
  }
  if (const Value* opt = Member(doc, "optimization")) {
    if (const Value* graph = Member(*opt, "graph")) {
      if (const Value* level = Member(*graph, "level")) {
        if (auto value = AsInt(*level)) settings->graph_level = static_cast<int>(*value);
      }
    }
  }
  return "";
}

}  // namespace inferd::onnxruntime
