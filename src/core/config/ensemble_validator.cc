#include "core/config/ensemble_validator.h"

#include <map>
#include <vector>

#include "core/config/closest_name.h"
#include "core/config/config_error.h"

namespace inferd {
namespace {

// Where an ensemble tensor comes from or goes to, and what it must be.
struct TensorEnd {
  std::string where;  // "ensemble input 'IN'", "step[0] (model 'a') output 'OUT'"
  inference::DataType datatype = inference::TYPE_INVALID;
  std::vector<int64_t> shape;  // the full shape: -1 first when the model batches
};

std::vector<int64_t> FullShape(bool batches, const google::protobuf::RepeatedField<int64_t>& dims) {
  std::vector<int64_t> shape;
  if (batches) shape.push_back(-1);
  shape.insert(shape.end(), dims.begin(), dims.end());
  return shape;
}

std::string ShapeText(const std::vector<int64_t>& shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) text += (i ? "," : "") + std::to_string(shape[i]);
  return text + "]";
}

bool ShapesAgree(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i] != b[i] && a[i] != -1 && b[i] != -1) return false;
  }
  return true;
}

template <typename Tensors>
const typename Tensors::value_type* FindTensor(const Tensors& tensors, const std::string& name) {
  for (const auto& tensor : tensors) {
    if (tensor.name() == name) return &tensor;
  }
  return nullptr;
}

class EnsembleChecker {
 public:
  EnsembleChecker(const inference::ModelConfig& ensemble, const ComposingConfigLookup& composing)
      : ensemble_(ensemble), composing_(composing) {}

  Status Check() {
    const bool batches = ensemble_.max_batch_size() > 0;
    for (const auto& input : ensemble_.input()) {
      RETURN_IF_ERROR(Produce(input.name(), {"ensemble input '" + input.name() + "'",
                                             input.data_type(), FullShape(batches, input.dims())},
                              -1));
    }
    const auto& steps = ensemble_.ensemble_scheduling().step();
    configs_.resize(steps.size());
    for (int i = 0; i < steps.size(); ++i) RETURN_IF_ERROR(CheckStepModel(i));
    for (int i = 0; i < steps.size(); ++i) RETURN_IF_ERROR(CheckStepInputs(i));
    RETURN_IF_ERROR(CheckNoCycle());
    for (const auto& output : ensemble_.output()) {
      auto found = producers_.find(output.name());
      if (found == producers_.end() || found->second.step < 0) {
        return Fail("ensemble output '" + output.name() + "' is produced by no step",
                    "map a step's output to it: output_map { key: \"<output>\" value: \"" +
                        output.name() + "\" }");
      }
      RETURN_IF_ERROR(Agree(output.name(), found->second.end,
                            {"ensemble output '" + output.name() + "'", output.data_type(),
                             FullShape(batches, output.dims())}));
    }
    return Status::Ok();
  }

 private:
  struct Producer {
    TensorEnd end;
    int step = -1;  // -1: an ensemble input
  };

  Status Fail(const std::string& what, const std::string& fix = "") const {
    return Status::InvalidArg("ensemble '" + ensemble_.name() + "': " + what +
                              (fix.empty() ? "" : std::string(kFixSeparator) + fix));
  }
  // "did you mean 'x'?" for the nearest of `names`, else `otherwise`.
  static std::string Nearest(const std::string& name, const std::vector<std::string>& names,
                             const std::string& otherwise) {
    const std::string closest = ClosestName(name, names);
    return closest.empty() ? otherwise : "did you mean '" + closest + "'?";
  }
  template <typename Tensors>
  static std::vector<std::string> Names(const Tensors& tensors) {
    std::vector<std::string> names;
    for (const auto& tensor : tensors) names.push_back(tensor.name());
    return names;
  }
  std::string StepLabel(int i) const {
    return "step[" + std::to_string(i) + "] (model '" +
           ensemble_.ensemble_scheduling().step(i).model_name() + "')";
  }

  Status Produce(const std::string& tensor, TensorEnd end, int step) {
    auto [it, fresh] = producers_.try_emplace(tensor, Producer{end, step});
    if (!fresh) {
      return Fail("tensor '" + tensor + "' is produced twice: by " + it->second.end.where +
                      " and by " + end.where,
                  "give the second a tensor name of its own (output_map value)");
    }
    return Status::Ok();
  }

  static bool OneBatchDimensionApart(const std::vector<int64_t>& a,
                                     const std::vector<int64_t>& b) {
    return a.size() + 1 == b.size() || b.size() + 1 == a.size();
  }

  Status Agree(const std::string& tensor, const TensorEnd& from, const TensorEnd& to) const {
    if (from.datatype != to.datatype) {
      return Fail("tensor '" + tensor + "' is " + inference::DataType_Name(from.datatype) +
                  " from " + from.where + " but " + to.where + " expects " +
                      inference::DataType_Name(to.datatype),
                  "make the two data_types agree, or put a conversion step between them");
    }
    if (!ShapesAgree(from.shape, to.shape)) {
      return Fail("tensor '" + tensor + "' has shape " + ShapeText(from.shape) + " from " +
                  from.where + " but " + to.where + " expects " + ShapeText(to.shape) +
                      " (batch dimension first where a model batches)",
                  OneBatchDimensionApart(from.shape, to.shape)
                      ? "one side counts the batch dimension and the other does not: give both "
                        "models the same max_batch_size (> 0 for both, or 0 with the batch "
                        "dimension in dims)"
                      : "make the dims of the two models agree");
    }
    return Status::Ok();
  }

  // The step's model exists, fits the ensemble's batching, and its outputs
  // are mapped to tensors produced nowhere else.
  Status CheckStepModel(int i) {
    const auto& step = ensemble_.ensemble_scheduling().step(i);
    if (step.model_name() == ensemble_.name()) {
      return Fail(StepLabel(i) + " runs the ensemble itself", "model_name: a composing model");
    }
    StatusOr<const inference::ModelConfig*> found =
        composing_(step.model_name(), step.model_version());
    if (!found.ok()) return Fail(StepLabel(i) + ": " + found.status().message());
    const inference::ModelConfig& model = **found;
    configs_[i] = &model;
    if (ensemble_.max_batch_size() > 0 && model.max_batch_size() < ensemble_.max_batch_size()) {
      return Fail("max_batch_size " + std::to_string(ensemble_.max_batch_size()) +
                  " is larger than " + StepLabel(i) + "'s max_batch_size " +
                      std::to_string(model.max_batch_size()),
                  "max_batch_size: " + std::to_string(model.max_batch_size()) +
                      " (at most each step's)");
    }
    if (model.model_transaction_policy().decoupled() &&
        !ensemble_.model_transaction_policy().decoupled()) {
      return Fail(StepLabel(i) + " is decoupled (it may send several responses), so the "
                  "ensemble must be too: model_transaction_policy { decoupled: true }",
                  "model_transaction_policy { decoupled: true }");
    }
    const bool batches = model.max_batch_size() > 0;
    for (const auto& [name, tensor] : step.output_map()) {
      const inference::ModelOutput* output = FindTensor(model.output(), name);
      if (output == nullptr) {
        return Fail(StepLabel(i) + " output_map names output '" + name +
                        "', which the model does not have",
                    Nearest(name, Names(model.output()), "key: one of the model's outputs"));
      }
      const std::string where = StepLabel(i) + " output '" + name + "'";
      RETURN_IF_ERROR(Produce(tensor, {where, output->data_type(),
                                       FullShape(batches, output->dims())}, i));
    }
    return Status::Ok();
  }

  Status CheckStepInputs(int i) {
    const auto& step = ensemble_.ensemble_scheduling().step(i);
    const inference::ModelConfig& model = *configs_[i];
    const bool batches = model.max_batch_size() > 0;
    for (const auto& [name, tensor] : step.input_map()) {
      const inference::ModelInput* input = FindTensor(model.input(), name);
      if (input == nullptr) {
        return Fail(StepLabel(i) + " input_map names input '" + name +
                        "', which the model does not have",
                    Nearest(name, Names(model.input()), "key: one of the model's inputs"));
      }
      auto producer = producers_.find(tensor);
      if (producer == producers_.end()) {
        std::vector<std::string> produced;
        for (const auto& [each, unused] : producers_) produced.push_back(each);
        return Fail(StepLabel(i) + " input '" + name + "' reads tensor '" + tensor +
                        "', which no ensemble input or step produces",
                    Nearest(tensor, produced,
                            "value: an ensemble input or an earlier step's output_map value"));
      }
      RETURN_IF_ERROR(Agree(tensor, producer->second.end,
                            {StepLabel(i) + " input '" + name + "'", input->data_type(),
                             FullShape(batches, input->dims())}));
    }
    for (const auto& input : model.input()) {
      if (!input.optional() && !step.input_map().contains(input.name())) {
        return Fail(StepLabel(i) + " does not map the model's input '" + input.name() +
                        "' (input_map)",
                    "input_map { key: \"" + input.name() + "\" value: \"<tensor>\" }");
      }
    }
    return Status::Ok();
  }

  // Kahn's algorithm over the steps: a step is ready once every step that
  // produces one of its inputs ran.
  Status CheckNoCycle() const {
    const auto& steps = ensemble_.ensemble_scheduling().step();
    std::vector<std::vector<int>> consumers(steps.size());
    std::vector<int> waiting(steps.size(), 0);
    for (int i = 0; i < steps.size(); ++i) {
      for (const auto& [name, tensor] : steps[i].input_map()) {
        const int producer = producers_.at(tensor).step;
        if (producer < 0) continue;
        consumers[producer].push_back(i);
        ++waiting[i];
      }
    }
    std::vector<int> ready;
    for (int i = 0; i < steps.size(); ++i) {
      if (waiting[i] == 0) ready.push_back(i);
    }
    size_t ran = 0;
    while (!ready.empty()) {
      const int step = ready.back();
      ready.pop_back();
      ++ran;
      for (int next : consumers[step]) {
        if (--waiting[next] == 0) ready.push_back(next);
      }
    }
    if (ran == static_cast<size_t>(steps.size())) return Status::Ok();
    for (int i = 0; i < steps.size(); ++i) {
      if (waiting[i] == 0) continue;
      for (const auto& [name, tensor] : steps[i].input_map()) {
        if (producers_.at(tensor).step >= 0 && waiting[producers_.at(tensor).step] != 0) {
          return Fail("the steps form a cycle: " + StepLabel(i) + " input '" + name +
                      "' waits on tensor '" + tensor + "' of " +
                          StepLabel(producers_.at(tensor).step) + ", which waits on it in turn",
                      "feed one of the two steps from an ensemble input or an earlier step");
        }
      }
    }
    return Fail("the steps form a cycle");
  }

  const inference::ModelConfig& ensemble_;
  const ComposingConfigLookup& composing_;
  std::map<std::string, Producer> producers_;
  std::vector<const inference::ModelConfig*> configs_;
};

}  // namespace

Status ValidateEnsemble(const inference::ModelConfig& ensemble,
                        const ComposingConfigLookup& composing) {
  return EnsembleChecker(ensemble, composing).Check();
}

}  // namespace inferd
