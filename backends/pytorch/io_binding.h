// Triton's naming rules for a TorchScript model's inputs and outputs, which
// the module itself does not name:
//
// - A configured input feeds the forward() argument of its own name, or else,
//   when named "<name>__<index>", forward's argument at <index> (0 is the
//   first after self). Each argument gets at most one input; arguments
//   without a default must get one. Tensor arguments take numeric inputs,
//   List[str] arguments take BYTES (TYPE_STRING) inputs.
// - A configured output is, when forward returns a dictionary, the value of
//   its own name; when it returns a tuple or a list, the element at <index>
//   of its "<name>__<index>"; when it returns one tensor (or List[str]), that
//   value (the output's index, if it has one, must be 0).
//
// Pure: works on a description of forward's schema (model_state.cc reads it
// from the module); thread-safe.
#ifndef INFERD_BACKENDS_PYTORCH_IO_BINDING_H_
#define INFERD_BACKENDS_PYTORCH_IO_BINDING_H_

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model_settings.h"

namespace inferd::pytorch {

// What a forward() argument or returned value is, as far as the backend cares.
enum class ValueKind {
  kTensor,      //!< Tensor (or Optional[Tensor] for an argument)
  kStringList,  //!< List[str]
  kTuple,       //!< a tuple (returns only)
  kList,        //!< List[Tensor] (returns only)
  kDict,        //!< Dict[str, Tensor] (returns only)
  kOther,       //!< anything else (int, Any, ...): arguments refuse it, returns decide at run time
};

struct ForwardArgument {
  std::string name;
  ValueKind kind = ValueKind::kOther;
  std::string type_name;  //!< TorchScript's spelling, for messages
  bool has_default = false;
};

// forward()'s schema, without `self`.
struct ForwardSignature {
  std::vector<ForwardArgument> arguments;
  ValueKind returns = ValueKind::kOther;
  std::vector<ValueKind> tuple_elements;  //!< when returns is kTuple
  std::string return_type_name;           //!< for messages
};

// Where a configured output comes from in forward's returned value.
struct OutputSource {
  std::optional<size_t> index;  //!< element of a tuple or list (0: a lone value)
  std::string key;              //!< value of a dict (index unset)
};

struct IoBinding {
  std::vector<size_t> input_argument;  //!< per configured input: forward argument position
  std::vector<std::string> input_argument_name;  //!< per configured input: that argument's name
  bool positional = true;              //!< the fed arguments are 0..n-1 (else pass by name)
  std::vector<OutputSource> outputs;   //!< per configured output
};

// The index of a "<name>__<index>" tensor name, if it has that form.
std::optional<size_t> NamingIndex(std::string_view name);

// Binds `settings`' inputs and outputs to `signature` by the rules above.
// Returns "" or what does not fit, naming the tensor and the argument.
std::string BindIo(const ModelSettings& settings, const ForwardSignature& signature,
                   IoBinding* binding);

// "forward(x: Tensor, y: Tensor) -> Tensor", for messages.
std::string DescribeSignature(const ForwardSignature& signature);

}  // namespace inferd::pytorch

#endif  // INFERD_BACKENDS_PYTORCH_IO_BINDING_H_
