#include "io_binding.h"

#include <gtest/gtest.h>

namespace inferd::pytorch {
namespace {

TensorSpec Tensor(const std::string& name, const char* type = "TYPE_FP32") {
  return TensorSpec{name, TypeFromConfigName(type), {4}, std::nullopt};
}

ForwardSignature TwoTensorsToTuple() {
  ForwardSignature s;
  s.arguments = {{"x", ValueKind::kTensor, "Tensor", false},
                 {"y", ValueKind::kTensor, "Tensor", false}};
  s.returns = ValueKind::kTuple;
  s.tuple_elements = {ValueKind::kTensor, ValueKind::kTensor};
  s.return_type_name = "Tuple[Tensor, Tensor]";
  return s;
}

TEST(NamingIndexTest, ReadsTheIndexAfterTheLastDoubleUnderscore) {
  EXPECT_EQ(NamingIndex("INPUT__0"), 0u);
  EXPECT_EQ(NamingIndex("my__name__12"), 12u);
  EXPECT_FALSE(NamingIndex("INPUT0"));
  EXPECT_FALSE(NamingIndex("INPUT__"));
  EXPECT_FALSE(NamingIndex("INPUT__1a"));
}

TEST(BindIoTest, IndexNamesMapToArgumentPositionsInAnyOrder) {
  ModelSettings settings;
  settings.inputs = {Tensor("B__1"), Tensor("A__0")};
  settings.outputs = {Tensor("OUT__1"), Tensor("OUT__0")};
  IoBinding binding;
  ASSERT_EQ(BindIo(settings, TwoTensorsToTuple(), &binding), "");
  EXPECT_EQ(binding.input_argument, (std::vector<size_t>{1, 0}));
  EXPECT_EQ(binding.input_argument_name, (std::vector<std::string>{"y", "x"}));
  EXPECT_TRUE(binding.positional);
  EXPECT_EQ(binding.outputs[0].index, 1u);
  EXPECT_EQ(binding.outputs[1].index, 0u);
}

TEST(BindIoTest, ArgumentNamesWinOverIndexNames) {
  ModelSettings settings;
  settings.inputs = {Tensor("y"), Tensor("x")};
  settings.outputs = {Tensor("OUT__0")};
  IoBinding binding;
  ASSERT_EQ(BindIo(settings, TwoTensorsToTuple(), &binding), "");
  EXPECT_EQ(binding.input_argument, (std::vector<size_t>{1, 0}));
}

TEST(BindIoTest, RefusesUnknownNamesMissingArgumentsAndDoubleFeeds) {
  ModelSettings settings;
  settings.inputs = {Tensor("x"), Tensor("z")};
  IoBinding binding;
  EXPECT_NE(BindIo(settings, TwoTensorsToTuple(), &binding).find("input 'z' is neither"),
            std::string::npos);
  settings.inputs = {Tensor("x")};
  EXPECT_NE(BindIo(settings, TwoTensorsToTuple(), &binding)
                .find("forward argument 'y' gets no input"),
            std::string::npos);
  settings.inputs = {Tensor("x"), Tensor("IN__0")};
  EXPECT_NE(BindIo(settings, TwoTensorsToTuple(), &binding).find("both feed forward argument 'x'"),
            std::string::npos);
  settings.inputs = {Tensor("x"), Tensor("IN__2")};
  EXPECT_NE(BindIo(settings, TwoTensorsToTuple(), &binding).find("names argument 2"),
            std::string::npos);
}

TEST(BindIoTest, UnfedArgumentsWithDefaultsPassInputsByName) {
  ForwardSignature s = TwoTensorsToTuple();
  s.arguments[0].has_default = true;
  ModelSettings settings;
  settings.inputs = {Tensor("y")};
  IoBinding binding;
  ASSERT_EQ(BindIo(settings, s, &binding), "");
  EXPECT_FALSE(binding.positional);
}

TEST(BindIoTest, StringsGoToListOfStrArgumentsOnly) {
  ForwardSignature s;
  s.arguments = {{"words", ValueKind::kStringList, "List[str]", false}};
  s.returns = ValueKind::kTensor;
  s.return_type_name = "Tensor";
  ModelSettings settings;
  settings.inputs = {Tensor("words", "TYPE_STRING")};
  settings.outputs = {Tensor("LENGTHS", "TYPE_INT64")};
  IoBinding binding;
  ASSERT_EQ(BindIo(settings, s, &binding), "");
  EXPECT_EQ(binding.outputs[0].index, 0u);
  settings.inputs = {Tensor("words", "TYPE_INT32")};
  EXPECT_NE(BindIo(settings, s, &binding).find("is List[str] (it takes TYPE_STRING)"),
            std::string::npos);
}

TEST(BindIoTest, DictOutputsAreLookedUpByName) {
  ForwardSignature s = TwoTensorsToTuple();
  s.returns = ValueKind::kDict;
  ModelSettings settings;
  settings.inputs = {Tensor("x"), Tensor("y")};
  settings.outputs = {Tensor("sum"), Tensor("diff")};
  IoBinding binding;
  ASSERT_EQ(BindIo(settings, s, &binding), "");
  EXPECT_FALSE(binding.outputs[0].index);
  EXPECT_EQ(binding.outputs[1].key, "diff");
}

TEST(BindIoTest, TupleOutputsNeedAnIndexInRange) {
  ModelSettings settings;
  settings.inputs = {Tensor("x"), Tensor("y")};
  settings.outputs = {Tensor("sum")};
  IoBinding binding;
  EXPECT_NE(BindIo(settings, TwoTensorsToTuple(), &binding).find("not named <name>__<index>"),
            std::string::npos);
  settings.outputs = {Tensor("OUT__2")};
  EXPECT_NE(BindIo(settings, TwoTensorsToTuple(), &binding).find("names element 2"),
            std::string::npos);
}

TEST(BindIoTest, OneTensorReturnedFeedsOneOutput) {
  ForwardSignature s = TwoTensorsToTuple();
  s.returns = ValueKind::kTensor;
  ModelSettings settings;
  settings.inputs = {Tensor("x"), Tensor("y")};
  settings.outputs = {Tensor("anything")};
  IoBinding binding;
  EXPECT_EQ(BindIo(settings, s, &binding), "");
  settings.outputs = {Tensor("OUT__1")};
  EXPECT_NE(BindIo(settings, s, &binding).find("returns one value"), std::string::npos);
}

}  // namespace
}  // namespace inferd::pytorch
