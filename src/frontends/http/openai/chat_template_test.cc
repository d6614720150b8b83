#include "http/openai/chat_template.h"

#include <gtest/gtest.h>

namespace inferd::http::openai {
namespace {

const std::vector<ChatMessage> kChat = {
    {"system", "Be brief."}, {"user", "Hi"}, {"assistant", "Hello"}, {"user", "Bye"}};

std::string Apply(ChatTemplate chat_template) {
  std::string prompt;
  EXPECT_TRUE(ApplyChatTemplate(chat_template, kChat, &prompt).ok());
  return prompt;
}

TEST(ChatTemplateTest, ChatMlIsTheDefault) {
  EXPECT_EQ(Apply(ChatTemplate()),
            "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n"
            "<|im_start|>assistant\nHello<|im_end|>\n<|im_start|>user\nBye<|im_end|>\n"
            "<|im_start|>assistant\n");
}

TEST(ChatTemplateTest, Llama3) {
  EXPECT_EQ(Apply({"llama3", "", ""}),
            "<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\nBe brief.<|eot_id|>"
            "<|start_header_id|>user<|end_header_id|>\n\nHi<|eot_id|>"
            "<|start_header_id|>assistant<|end_header_id|>\n\nHello<|eot_id|>"
            "<|start_header_id|>user<|end_header_id|>\n\nBye<|eot_id|>"
            "<|start_header_id|>assistant<|end_header_id|>\n\n");
}

TEST(ChatTemplateTest, Llama2FoldsTheSystemMessageIntoTheFirstTurn) {
  EXPECT_EQ(Apply({"llama2", "", ""}),
            "<s>[INST] <<SYS>>\nBe brief.\n<</SYS>>\n\nHi [/INST] Hello </s><s>[INST] Bye "
            "[/INST]");
}

TEST(ChatTemplateTest, GemmaHasUserAndModelTurns) {
  EXPECT_EQ(Apply({"gemma", "", ""}),
            "<bos><start_of_turn>user\nBe brief.\n\nHi<end_of_turn>\n<start_of_turn>model\n"
            "Hello<end_of_turn>\n<start_of_turn>user\nBye<end_of_turn>\n<start_of_turn>model\n");
}

TEST(ChatTemplateTest, PatternWithPrefixAndGenerationPrompt) {
  EXPECT_EQ(Apply({"<{role}>{content}{x}|", "BEGIN ", "<assistant>"}),
            "BEGIN <system>Be brief.{x}|<user>Hi{x}|<assistant>Hello{x}|<user>Bye{x}|"
            "<assistant>");
}

TEST(ChatTemplateTest, RefusesAnUnknownName) {
  std::string prompt;
  const Status status = ApplyChatTemplate({"vicuna", "", ""}, kChat, &prompt);
  EXPECT_EQ(status.code(), Status::Code::kInvalidArg);
  EXPECT_NE(status.message().find("vicuna"), std::string::npos);
}

}  // namespace
}  // namespace inferd::http::openai
