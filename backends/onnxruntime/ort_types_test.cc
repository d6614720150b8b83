// Tests of the datatype table: every Triton ONNX mapping, both directions.
#include "ort_types.h"

#include <gtest/gtest.h>

namespace inferd::onnxruntime {
namespace {

TEST(OrtTypesTest, MapsEveryTritonOnnxTypeBothWays) {
  const struct {
    const char* config;
    ONNXTensorElementDataType onnx;
    INFERD_DataType datatype;
    uint32_t size;
  } cases[] = {
      {"TYPE_BOOL", ONNX_TENSOR_ELEMENT_DATA_TYPE_BOOL, INFERD_TYPE_BOOL, 1},
      {"TYPE_UINT8", ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT8, INFERD_TYPE_UINT8, 1},
      {"TYPE_UINT16", ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT16, INFERD_TYPE_UINT16, 2},
      {"TYPE_UINT32", ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT32, INFERD_TYPE_UINT32, 4},
      {"TYPE_UINT64", ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT64, INFERD_TYPE_UINT64, 8},
      {"TYPE_INT8", ONNX_TENSOR_ELEMENT_DATA_TYPE_INT8, INFERD_TYPE_INT8, 1},
      {"TYPE_INT16", ONNX_TENSOR_ELEMENT_DATA_TYPE_INT16, INFERD_TYPE_INT16, 2},
      {"TYPE_INT32", ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32, INFERD_TYPE_INT32, 4},
      {"TYPE_INT64", ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64, INFERD_TYPE_INT64, 8},
      {"TYPE_FP16", ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16, INFERD_TYPE_FP16, 2},
      {"TYPE_FP32", ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, INFERD_TYPE_FP32, 4},
      {"TYPE_FP64", ONNX_TENSOR_ELEMENT_DATA_TYPE_DOUBLE, INFERD_TYPE_FP64, 8},
      {"TYPE_STRING", ONNX_TENSOR_ELEMENT_DATA_TYPE_STRING, INFERD_TYPE_BYTES, 0},
      {"TYPE_BF16", ONNX_TENSOR_ELEMENT_DATA_TYPE_BFLOAT16, INFERD_TYPE_BF16, 2},
  };
  for (const auto& c : cases) {
    const ElementType* by_name = TypeFromConfigName(c.config);
    ASSERT_NE(by_name, nullptr) << c.config;
    EXPECT_EQ(OnnxType(*by_name), c.onnx) << c.config;
    EXPECT_EQ(by_name->datatype, c.datatype) << c.config;
    EXPECT_EQ(by_name->byte_size, c.size) << c.config;
    EXPECT_EQ(TypeFromOnnx(c.onnx), by_name) << c.config;
    EXPECT_EQ(TypeFromDataType(c.datatype), by_name) << c.config;
  }
}

TEST(OrtTypesTest, RefusesTypesInferdCannotServe) {
  EXPECT_EQ(TypeFromOnnx(ONNX_TENSOR_ELEMENT_DATA_TYPE_COMPLEX64), nullptr);
  EXPECT_EQ(TypeFromOnnx(ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT8E4M3FN), nullptr);
  EXPECT_EQ(TypeFromConfigName("TYPE_INVALID"), nullptr);
  EXPECT_EQ(TypeFromDataType(INFERD_TYPE_INVALID), nullptr);
}

TEST(OrtTypesTest, NamesOnnxTypesForErrors) {
  EXPECT_EQ(OnnxTypeName(ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT), "FLOAT");
  EXPECT_EQ(OnnxTypeName(ONNX_TENSOR_ELEMENT_DATA_TYPE_STRING), "STRING");
  EXPECT_EQ(OnnxTypeName(ONNX_TENSOR_ELEMENT_DATA_TYPE_COMPLEX64), "COMPLEX64");
  EXPECT_EQ(OnnxTypeName(99), "element type 99");
  EXPECT_EQ(OnnxTypeName(-1), "element type -1");
}

}  // namespace
}  // namespace inferd::onnxruntime
