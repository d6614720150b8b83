// Triton's input and output naming rules for TorchScript (see io_binding.h).
#include "io_binding.h"

#include <algorithm>
#include <charconv>

namespace inferd::pytorch {
namespace {

// Binds configured input `spec` to an argument position, or says why not.
std::string BindInput(const TensorSpec& spec, const ForwardSignature& signature,
                      size_t* position) {
  const auto& args = signature.arguments;
  auto named = std::find_if(args.begin(), args.end(),
                            [&](const ForwardArgument& arg) { return arg.name == spec.name; });
  if (named != args.end()) {
    *position = static_cast<size_t>(named - args.begin());
  } else if (auto index = NamingIndex(spec.name)) {
    if (*index >= args.size()) {
      return "input '" + spec.name + "' names argument " + std::to_string(*index) + " but " +
             DescribeSignature(signature) + " takes " + std::to_string(args.size());
    }
    *position = *index;
  } else {
    return "input '" + spec.name + "' is neither an argument of " +
           DescribeSignature(signature) + " nor named <name>__<index>";
  }
  const ForwardArgument& arg = args[*position];
  const bool bytes = spec.type->byte_size == 0;
  if (arg.kind == ValueKind::kTensor && bytes) {
    return "input '" + spec.name + "' is TYPE_STRING but forward argument '" + arg.name +
           "' is a Tensor (TYPE_STRING inputs go to List[str] arguments)";
  }
  if (arg.kind == ValueKind::kStringList && !bytes) {
    return "input '" + spec.name + "' is " + std::string(spec.type->config_name) +
           " but forward argument '" + arg.name + "' is List[str] (it takes TYPE_STRING)";
  }
  if (arg.kind != ValueKind::kTensor && arg.kind != ValueKind::kStringList) {
    return "forward argument '" + arg.name + "' is " + arg.type_name +
           "; the pytorch backend passes only Tensor and List[str]";
  }
  return "";
}

std::string BindOutput(const TensorSpec& spec, const ForwardSignature& signature,
                       size_t output_count, OutputSource* source) {
  const auto index = NamingIndex(spec.name);
  switch (signature.returns) {
    case ValueKind::kDict:
      source->key = spec.name;
      return "";
    case ValueKind::kTensor:
    case ValueKind::kStringList:
      if ((index && *index != 0) || (!index && output_count > 1)) {
        return "output '" + spec.name + "': " + DescribeSignature(signature) +
               " returns one value, so one output (index 0) comes from it";
      }
      source->index = 0;
      break;
    case ValueKind::kTuple:
    case ValueKind::kList:
      if (!index) {
        return "output '" + spec.name + "' is not named <name>__<index>, which an output of " +
               DescribeSignature(signature) + " must be";
      }
      if (signature.returns == ValueKind::kTuple && *index >= signature.tuple_elements.size()) {
        return "output '" + spec.name + "' names element " + std::to_string(*index) + " but " +
               DescribeSignature(signature) + " returns " +
               std::to_string(signature.tuple_elements.size());
      }
      source->index = *index;
      break;
    default:  // decided at run time by the value forward returns
      if (index) {
        source->index = *index;
      } else {
        source->key = spec.name;
      }
      return "";
  }
  ValueKind element = signature.returns == ValueKind::kTuple
                          ? signature.tuple_elements[*source->index]
                          : signature.returns == ValueKind::kList ? ValueKind::kTensor
                                                                  : signature.returns;
  const bool bytes = spec.type->byte_size == 0;
  if ((element == ValueKind::kTensor && bytes) || (element == ValueKind::kStringList && !bytes)) {
    return "output '" + spec.name + "' is " + std::string(spec.type->config_name) + " but " +
           DescribeSignature(signature) + " gives it a " +
           (element == ValueKind::kTensor ? "Tensor" : "List[str]");
  }
  return "";
}

}  // namespace

std::optional<size_t> NamingIndex(std::string_view name) {
  const size_t sep = name.rfind("__");
  if (sep == std::string_view::npos || sep + 2 == name.size()) return std::nullopt;
  const std::string_view digits = name.substr(sep + 2);
  size_t value = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (ec != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
  return value;
}

std::string BindIo(const ModelSettings& settings, const ForwardSignature& signature,
                   IoBinding* binding) {
  *binding = IoBinding{};
  std::vector<int> fed_by(signature.arguments.size(), -1);
  for (size_t i = 0; i < settings.inputs.size(); ++i) {
    size_t position = 0;
    if (auto err = BindInput(settings.inputs[i], signature, &position); !err.empty()) return err;
    if (fed_by[position] >= 0) {
      return "inputs '" + settings.inputs[fed_by[position]].name + "' and '" +
             settings.inputs[i].name + "' both feed forward argument '" +
             signature.arguments[position].name + "'";
    }
    fed_by[position] = static_cast<int>(i);
    binding->input_argument.push_back(position);
    binding->input_argument_name.push_back(signature.arguments[position].name);
  }
  for (size_t a = 0; a < signature.arguments.size(); ++a) {
    const ForwardArgument& arg = signature.arguments[a];
    if (fed_by[a] < 0 && !arg.has_default) {
      return "forward argument '" + arg.name + "' gets no input: configure an input named '" +
             arg.name + "' or '<name>__" + std::to_string(a) + "'";
    }
  }
  binding->positional = std::is_sorted(fed_by.begin(), fed_by.end(), [](int a, int b) {
    return (a < 0 ? 1 : 0) < (b < 0 ? 1 : 0);  // every fed argument before every unfed one
  });
  for (const TensorSpec& spec : settings.outputs) {
    OutputSource source;
    if (auto err = BindOutput(spec, signature, settings.outputs.size(), &source); !err.empty()) {
      return err;
    }
    binding->outputs.push_back(std::move(source));
  }
  return "";
}

std::string DescribeSignature(const ForwardSignature& signature) {
  std::string text = "forward(";
  for (size_t a = 0; a < signature.arguments.size(); ++a) {
    if (a > 0) text += ", ";
    text += signature.arguments[a].name + ": " + signature.arguments[a].type_name;
  }
  return text + ") -> " + signature.return_type_name;
}

}  // namespace inferd::pytorch
