#include "http/openai/model_convention.h"

#include <gtest/gtest.h>

namespace inferd::http::openai {
namespace {

TEST(ModelConventionTest, SamplingJsonHoldsOnlyTheGivenFields) {
  Sampling sampling;
  EXPECT_EQ(SamplingJson(sampling, 0), "{}");
  sampling.max_tokens = 5;
  sampling.temperature = 0.5;
  sampling.seed = 7;
  sampling.stop = {"a", "\"b\""};
  EXPECT_EQ(SamplingJson(sampling, 2),
            R"({"max_tokens":5,"temperature":0.5,"seed":9,"stop":["a","\"b\""]})");
}

TEST(ModelConventionTest, SendsOnlyTheInputsTheModelDeclares) {
  ModelConvention convention;
  convention.inputs = {{"text_input", INFERD_TYPE_BYTES, {1}}, {"stream", INFERD_TYPE_BOOL, {1}}};
  ApiRequest request;
  request.stream = true;
  EXPECT_EQ(GenerateBody(convention, request, "hi", 0), R"({"text_input":"hi","stream":true})");
  convention.inputs.push_back({"chat_messages", INFERD_TYPE_BYTES, {1}});
  convention.inputs.push_back({"exclude_input_in_output", INFERD_TYPE_BOOL, {1}});
  request.kind = ApiKind::kChat;
  request.messages = {{"user", "x"}};
  EXPECT_EQ(GenerateBody(convention, request, "p", 0),
            R"({"text_input":"p","stream":true,"exclude_input_in_output":true,)"
            R"("chat_messages":"[{\"role\":\"user\",\"content\":\"x\"}]"})");
}

TEST(ModelConventionTest, NeedsABytesTextInput) {
  ModelConvention convention;
  convention.inputs = {{"text_input", INFERD_TYPE_FP32, {1}}};
  EXPECT_FALSE(CheckConvention(convention, "m").ok());
  convention.inputs = {{"text_input", INFERD_TYPE_BYTES, {-1}}};
  EXPECT_TRUE(CheckConvention(convention, "m").ok());
}

}  // namespace
}  // namespace inferd::http::openai
