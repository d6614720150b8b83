#include "model_settings.h"

#include <gtest/gtest.h>

namespace inferd::pytorch {
namespace {

TEST(ModelSettingsTest, ReadsTensorsParametersAndInstances) {
  ModelSettings settings;
  ASSERT_EQ(ParseModelSettings(R"({"name": "m", "max_batch_size": 8,
      "default_model_filename": "net.pt",
      "input": [{"name": "INPUT__0", "data_type": "TYPE_BF16", "dims": ["-1", "3"]}],
      "output": [{"name": "OUTPUT__0", "data_type": "TYPE_STRING", "dims": [1]}],
      "parameters": {"INFERENCE_MODE": {"string_value": "false"}},
      "instance_group": [{"count": 2}, {"count": "3"}]})",
                               &settings),
            "");
  EXPECT_EQ(settings.max_batch_size, 8);
  EXPECT_EQ(settings.default_model_filename, "net.pt");
  ASSERT_EQ(settings.inputs.size(), 1u);
  EXPECT_EQ(ScalarOf(*settings.inputs[0].type), TorchScalar::kBFloat16);
  EXPECT_EQ(settings.inputs[0].dims, (std::vector<int64_t>{-1, 3}));
  EXPECT_EQ(settings.outputs[0].type->byte_size, 0u);
  EXPECT_EQ(settings.parameters.at("INFERENCE_MODE"), "false");
  EXPECT_EQ(settings.instance_count, 5);
}

TEST(ModelSettingsTest, RefusesTypesLibTorchLacksAndReshapes) {
  ModelSettings settings;
  EXPECT_EQ(ParseModelSettings(
                R"({"input": [{"name": "a", "data_type": "TYPE_UINT32", "dims": [1]}]})",
                &settings),
            "input 'a' has data_type TYPE_UINT32, which LibTorch has no tensor type for");
  EXPECT_EQ(ParseModelSettings(R"({"output": [{"name": "b", "data_type": "TYPE_FP32",
                                   "dims": [4], "reshape": {"shape": [2, 2]}}]})",
                               &settings),
            "output 'b' has a reshape, which the pytorch backend does not apply");
}

TEST(TorchTypesTest, EveryServedTypeRoundTrips) {
  for (const char* name : {"TYPE_BOOL", "TYPE_UINT8", "TYPE_INT8", "TYPE_INT16", "TYPE_INT32",
                           "TYPE_INT64", "TYPE_FP16", "TYPE_BF16", "TYPE_FP32", "TYPE_FP64"}) {
    const ElementType* type = TypeFromConfigName(name);
    ASSERT_NE(type, nullptr) << name;
    EXPECT_EQ(TypeFromScalar(static_cast<int>(ScalarOf(*type))), type) << name;
    EXPECT_EQ(TypeFromDataType(type->datatype), type) << name;
  }
  EXPECT_EQ(TypeFromConfigName("TYPE_UINT64"), nullptr);
  EXPECT_EQ(TypeFromScalar(-1), nullptr);
}

}  // namespace
}  // namespace inferd::pytorch
