// Loading TorchScript files and reading forward()'s schema (see torch_module.h).
#include "torch_module.h"

#include <ATen/Parallel.h>
#include <caffe2/serialize/versions.h>
#include <torch/version.h>

#include <atomic>
#include <fstream>

#include "error_text.h"
#include "common/entry_points.h"
#include "torch_archive.h"
#include "torch_module_impl.h"
#include "torch_types.h"

namespace inferd::pytorch {
namespace {

using backend_common::MakeError;

// The backend's table holds c10::ScalarType's numbers; hold them to it.
static_assert(static_cast<int>(TorchScalar::kByte) == static_cast<int>(c10::ScalarType::Byte));
static_assert(static_cast<int>(TorchScalar::kChar) == static_cast<int>(c10::ScalarType::Char));
static_assert(static_cast<int>(TorchScalar::kShort) == static_cast<int>(c10::ScalarType::Short));
static_assert(static_cast<int>(TorchScalar::kInt) == static_cast<int>(c10::ScalarType::Int));
static_assert(static_cast<int>(TorchScalar::kLong) == static_cast<int>(c10::ScalarType::Long));
static_assert(static_cast<int>(TorchScalar::kHalf) == static_cast<int>(c10::ScalarType::Half));
static_assert(static_cast<int>(TorchScalar::kFloat) == static_cast<int>(c10::ScalarType::Float));
static_assert(static_cast<int>(TorchScalar::kDouble) == static_cast<int>(c10::ScalarType::Double));
static_assert(static_cast<int>(TorchScalar::kBool) == static_cast<int>(c10::ScalarType::Bool));
static_assert(static_cast<int>(TorchScalar::kBFloat16) ==
              static_cast<int>(c10::ScalarType::BFloat16));

std::atomic<int> g_inter_op_threads{0};

bool IsStringList(const c10::TypePtr& type) {
  auto list = type->cast<c10::ListType>();
  return list && list->getElementType()->kind() == c10::TypeKind::StringType;
}

ValueKind ArgumentKind(const c10::TypePtr& type) {
  if (type->kind() == c10::TypeKind::TensorType) return ValueKind::kTensor;
  if (auto optional = type->cast<c10::OptionalType>()) {
    if (optional->getElementType()->kind() == c10::TypeKind::TensorType) return ValueKind::kTensor;
  }
  if (IsStringList(type)) return ValueKind::kStringList;
  return ValueKind::kOther;
}

ValueKind ReturnKind(const c10::TypePtr& type) {
  if (type->kind() == c10::TypeKind::TensorType) return ValueKind::kTensor;
  if (IsStringList(type)) return ValueKind::kStringList;
  if (type->kind() == c10::TypeKind::TupleType) return ValueKind::kTuple;
  if (type->kind() == c10::TypeKind::DictType) return ValueKind::kDict;
  if (auto list = type->cast<c10::ListType>()) {
    if (list->getElementType()->kind() == c10::TypeKind::TensorType) return ValueKind::kList;
  }
  return ValueKind::kOther;
}

void DescribeForward(const c10::FunctionSchema& schema, ForwardSignature* signature) {
  *signature = ForwardSignature{};
  const auto& arguments = schema.arguments();
  for (size_t a = 1; a < arguments.size(); ++a) {  // 0 is self
    const c10::Argument& argument = arguments[a];
    signature->arguments.push_back({argument.name(), ArgumentKind(argument.type()),
                                    argument.type()->annotation_str(),
                                    argument.default_value().has_value()});
  }
  if (schema.returns().size() != 1) {
    signature->return_type_name = std::to_string(schema.returns().size()) + " values";
    return;
  }
  const c10::TypePtr& returned = schema.returns()[0].type();
  signature->returns = ReturnKind(returned);
  signature->return_type_name = returned->annotation_str();
  if (auto tuple = returned->cast<c10::TupleType>()) {
    for (const c10::TypePtr& element : tuple->elements()) {
      signature->tuple_elements.push_back(ReturnKind(element));
    }
  }
}

// The LibTorch this backend is built with, for archive checks and messages.
const LibtorchInfo& Libtorch() {
  static const LibtorchInfo info{std::to_string(TORCH_VERSION_MAJOR) + "." +
                                     std::to_string(TORCH_VERSION_MINOR) + "." +
                                     std::to_string(TORCH_VERSION_PATCH),
                                 caffe2::serialize::kMaxSupportedFileFormatVersion};
  return info;
}

}  // namespace

void TorchModuleDeleter::operator()(TorchModule* module) const { delete module; }

INFERD_Error* LoadTorchModule(const std::string& path, TorchModulePtr* module,
                              ForwardSignature* signature) {
  // What the file is, to refuse what LibTorch cannot run with a reason naming
  // its version; a file that is no zip archive is left to LibTorch to judge.
  TorchArchive archive;
  std::ifstream file(path, std::ios::binary);
  if (file && ReadTorchArchive(file, &archive).empty()) {
    if (std::string refusal = CheckTorchArchive(archive, Libtorch()); !refusal.empty()) {
      return MakeError(INFERD_ERROR_INVALID_ARG, "LibTorch cannot load " + path + ": " + refusal);
    }
  }
  try {
    torch::jit::Module loaded = torch::jit::load(path, c10::Device(c10::kCPU));
    loaded.eval();
    auto forward = loaded.find_method("forward");
    if (!forward) {
      return MakeError(INFERD_ERROR_INVALID_ARG,
                       "the TorchScript module in " + path + " has no forward() method");
    }
    if (signature != nullptr) DescribeForward(forward->function().getSchema(), signature);
    module->reset(new TorchModule{loaded, *forward});
    return nullptr;
  } catch (const c10::Error& e) {
    const std::string reason = TrimTorchMessage(e.what_without_backtrace());
    return MakeError(INFERD_ERROR_INVALID_ARG, "LibTorch cannot load " + path + ": " +
                                                   ExplainTorchLoadFailure(reason, archive,
                                                                           Libtorch()));
  } catch (const std::exception& e) {  // TorchScript's compile errors, among others
    return MakeError(INFERD_ERROR_INVALID_ARG,
                     "LibTorch cannot load " + path + ": " +
                         ExplainTorchLoadFailure(TrimTorchMessage(e.what()), archive, Libtorch()));
  }
}

int SetInterOpThreadsOnce(int count) {
  if (count <= 0) return g_inter_op_threads.load();
  int expected = 0;
  if (!g_inter_op_threads.compare_exchange_strong(expected, count)) return expected;
  try {
    at::set_num_interop_threads(count);
  } catch (const c10::Error&) {
    // LibTorch refuses once its pool has started; it keeps its own size then.
  }
  return count;
}

}  // namespace inferd::pytorch
