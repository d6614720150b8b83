// Completing and checking a configuration against an ONNX model (see
// config_completion.h).
#include "config_completion.h"

#include <algorithm>
#include <set>

namespace inferd::onnxruntime {
namespace {

using backend_common::ShapeString;
using rapidjson::Value;

const OnnxTensor* FindTensor(const std::vector<OnnxTensor>& tensors, const std::string& name) {
  for (const OnnxTensor& tensor : tensors) {
    if (tensor.name == name) return &tensor;
  }
  return nullptr;
}

Value* FindEntry(Value& array, const std::string& name) {
  for (Value& entry : array.GetArray()) {
    auto it = entry.FindMember("name");
    if (it != entry.MemberEnd() && it->value.IsString() && name == it->value.GetString()) {
      return &entry;
    }
  }
  return nullptr;
}

bool HasNonEmptyArray(const Value& object, const char* name) {
  auto it = object.FindMember(name);
  return it != object.MemberEnd() && it->value.IsArray() && !it->value.Empty();
}

// The configured array `key` ("input" / "output"), created when absent.
Value& ConfigArray(rapidjson::Document* config, const char* key) {
  auto it = config->FindMember(key);
  if (it == config->MemberEnd() || !it->value.IsArray()) {
    config->RemoveMember(key);
    config->AddMember(Value(key, config->GetAllocator()), Value(rapidjson::kArrayType),
                      config->GetAllocator());
    it = config->FindMember(key);
  }
  return it->value;
}

// True when a configured tensor lists the model's full shape (batch included),
// which says the configuration does not want batching.
bool ConfigListsFullShape(rapidjson::Document* config, const char* key,
                          const std::vector<OnnxTensor>& tensors) {
  for (const OnnxTensor& tensor : tensors) {
    Value* entry = FindEntry(ConfigArray(config, key), tensor.name);
    if (entry == nullptr || !HasNonEmptyArray(*entry, "dims")) continue;
    if ((*entry)["dims"].Size() == tensor.dims.size()) return true;
  }
  return false;
}

void SetMember(Value& object, const char* name, Value value, rapidjson::Document* config) {
  object.RemoveMember(name);
  object.AddMember(Value(name, config->GetAllocator()), value, config->GetAllocator());
}

Value DimsArray(const std::vector<int64_t>& dims, rapidjson::Document* config) {
  Value array(rapidjson::kArrayType);
  for (int64_t dim : dims) array.PushBack(Value(dim), config->GetAllocator());
  return array;
}

// The tensors the sequence batcher supplies, which the configuration's `key`
// list ("input" or "output") must not name: control inputs and implicit state
// inputs, or implicit state outputs.
std::set<std::string> SequenceTensorNames(const rapidjson::Document& config, const char* key) {
  std::set<std::string> names;
  auto batching = config.FindMember("sequence_batching");
  if (batching == config.MemberEnd() || !batching->value.IsObject()) return names;
  const bool inputs = std::string_view(key) == "input";
  const auto add = [&](const Value& object, const char* member) {
    auto it = object.FindMember(member);
    if (it != object.MemberEnd() && it->value.IsString()) names.insert(it->value.GetString());
  };
  auto list = [&](const char* member) -> const Value* {
    auto it = batching->value.FindMember(member);
    return it != batching->value.MemberEnd() && it->value.IsArray() ? &it->value : nullptr;
  };
  if (const Value* controls = list("control_input"); inputs && controls != nullptr) {
    for (const Value& control : controls->GetArray()) {
      if (control.IsObject()) add(control, "name");
    }
  }
  if (const Value* states = list("state"); states != nullptr) {
    for (const Value& state : states->GetArray()) {
      if (state.IsObject()) add(state, inputs ? "input_name" : "output_name");
    }
  }
  return names;
}

// Adds or fills the configuration entries for `tensors`, less those the
// sequence batcher supplies.
std::string CompleteTensors(const std::vector<OnnxTensor>& tensors, const char* key,
                            bool batching, rapidjson::Document* config) {
  auto& alloc = config->GetAllocator();
  const std::set<std::string> supplied = SequenceTensorNames(*config, key);
  for (const OnnxTensor& tensor : tensors) {
    if (supplied.contains(tensor.name)) continue;
    const ElementType* type = TypeFromOnnx(tensor.type);
    if (type == nullptr) {
      return "the model's " + std::string(key) + " '" + tensor.name + "' has element type " +
             OnnxTypeName(tensor.type) + ", which inferd cannot serve";
    }
    Value& array = ConfigArray(config, key);
    Value* entry = FindEntry(array, tensor.name);
    if (entry == nullptr) {
      Value fresh(rapidjson::kObjectType);
      fresh.AddMember("name", Value(tensor.name.c_str(), alloc), alloc);
      array.PushBack(fresh, alloc);
      entry = &array[array.Size() - 1];
    }
    auto type_it = entry->FindMember("data_type");
    if (type_it == entry->MemberEnd() || !type_it->value.IsString() ||
        std::string_view(type_it->value.GetString()) == "TYPE_INVALID") {
      const auto length = static_cast<rapidjson::SizeType>(type->config_name.size());
      SetMember(*entry, "data_type", Value(type->config_name.data(), length, alloc), config);
    }
    if (HasNonEmptyArray(*entry, "dims")) continue;
    std::vector<int64_t> dims = tensor.dims;
    if (batching && !dims.empty()) dims.erase(dims.begin());
    if (dims.empty()) {
      SetMember(*entry, "dims", DimsArray({1}, config), config);
      Value reshape(rapidjson::kObjectType);
      reshape.AddMember("shape", Value(rapidjson::kArrayType), alloc);
      SetMember(*entry, "reshape", std::move(reshape), config);
    } else {
      SetMember(*entry, "dims", DimsArray(dims, config), config);
    }
  }
  return "";
}

// Compares one configured tensor's shape with the model's.
std::string CheckShape(const char* kind, const TensorSpec& spec, const OnnxTensor& tensor,
                       int64_t max_batch_size) {
  const std::string what = std::string(kind) + " '" + spec.name + "'";
  std::vector<int64_t> model = tensor.dims;
  if (max_batch_size > 0) {
    if (model.empty() || model[0] != -1) {
      return "max_batch_size is " + std::to_string(max_batch_size) + " but the model's " + what +
             " has shape " + ShapeString(tensor.dims) +
             ", whose first dimension is not a variable batch dimension (use max_batch_size: 0 "
             "and the full shape as dims); fix: max_batch_size: 0 dims: " +
             ShapeString(tensor.dims);
    }
    model.erase(model.begin());
  }
  const std::vector<int64_t>& want = spec.reshape ? *spec.reshape : spec.dims;
  bool fits = want.size() == model.size();
  for (size_t i = 0; fits && i < model.size(); ++i) fits = model[i] == -1 || model[i] == want[i];
  if (fits) return "";
  // The classic: dims written with the batch dimension while max_batch_size
  // adds it again.
  const bool batch_written = max_batch_size > 0 && want.size() == model.size() + 1;
  return what + " has " + (spec.reshape ? "reshape " : "dims ") + ShapeString(want) +
         " in the configuration but the model's shape is " + ShapeString(model) +
         (max_batch_size > 0 ? " (without the batch dimension)" : "") + "; fix: " +
         (batch_written ? "leave out the batch dimension (max_batch_size > 0 adds it): " : "") +
         (spec.reshape ? "reshape: { shape: " : "dims: ") + ShapeString(model) +
         (spec.reshape ? " }" : "");
}

std::string NameList(const std::vector<OnnxTensor>& tensors) {
  std::string names;
  for (const OnnxTensor& tensor : tensors) {
    names += (names.empty() ? "'" : ", '") + tensor.name + "'";
  }
  return names.empty() ? "none" : names;
}

std::string CheckTensors(const char* kind, const std::vector<TensorSpec>& specs,
                         const std::vector<OnnxTensor>& tensors, int64_t max_batch_size) {
  for (const TensorSpec& spec : specs) {
    const OnnxTensor* tensor = FindTensor(tensors, spec.name);
    if (tensor == nullptr) {
      return "configuration " + std::string(kind) + " '" + spec.name + "' is not an " + kind +
             " of the model (its " + kind + "s: " + NameList(tensors) + "); fix: name: one of " +
             NameList(tensors);
    }
    const ElementType* model_type = TypeFromOnnx(tensor->type);
    if (model_type != spec.type) {
      return std::string(kind) + " '" + spec.name + "' has data_type " +
             std::string(spec.type->config_name) + " in the configuration but the model's is " +
             OnnxTypeName(tensor->type) +
             (model_type ? " (" + std::string(model_type->config_name) + "); fix: data_type: " +
                               std::string(model_type->config_name)
                         : "");
    }
    if (auto err = CheckShape(kind, spec, *tensor, max_batch_size); !err.empty()) return err;
  }
  return "";
}

}  // namespace

bool ModelCanBatch(const ModelIo& io) {
  auto batchable = [](const OnnxTensor& t) { return !t.dims.empty() && t.dims[0] == -1; };
  return !io.inputs.empty() && std::all_of(io.inputs.begin(), io.inputs.end(), batchable) &&
         std::all_of(io.outputs.begin(), io.outputs.end(), batchable);
}

std::string CompleteConfig(const ModelIo& io, int64_t default_max_batch_size,
                           rapidjson::Document* config) {
  if (!config->IsObject()) return "the model configuration is not a JSON object";
  auto mbs_it = config->FindMember("max_batch_size");
  int64_t max_batch_size =
      mbs_it != config->MemberEnd() && mbs_it->value.IsInt64() ? mbs_it->value.GetInt64() : 0;
  const bool can_batch = ModelCanBatch(io) && !ConfigListsFullShape(config, "input", io.inputs) &&
                         !ConfigListsFullShape(config, "output", io.outputs);
  if (max_batch_size == 0 && can_batch && default_max_batch_size > 0) {
    max_batch_size = default_max_batch_size;
    SetMember(*config, "max_batch_size", Value(max_batch_size), config);
    if (!config->HasMember("dynamic_batching") && !config->HasMember("sequence_batching")) {
      config->AddMember("dynamic_batching", Value(rapidjson::kObjectType), config->GetAllocator());
    }
  }
  if (auto err = CompleteTensors(io.inputs, "input", max_batch_size > 0, config); !err.empty()) {
    return err;
  }
  return CompleteTensors(io.outputs, "output", max_batch_size > 0, config);
}

std::string CheckConfigMatchesModel(const ModelSettings& settings, const ModelIo& io) {
  if (auto err = CheckTensors("input", settings.inputs, io.inputs, settings.max_batch_size);
      !err.empty()) {
    return err;
  }
  for (const OnnxTensor& tensor : io.inputs) {
    const bool configured = std::any_of(settings.inputs.begin(), settings.inputs.end(),
                                        [&](const TensorSpec& s) { return s.name == tensor.name; });
    if (!configured) {
      return "the model's input '" + tensor.name + "' (" + OnnxTypeName(tensor.type) + " " +
             ShapeString(tensor.dims) + ") is missing from the configuration";
    }
  }
  return CheckTensors("output", settings.outputs, io.outputs, settings.max_batch_size);
}

}  // namespace inferd::onnxruntime
