#include "error_text.h"

#include <gtest/gtest.h>

namespace inferd::pytorch {
namespace {

TEST(TrimTorchMessageTest, KeepsTheErrorLineAfterATorchScriptTraceback) {
  const char* message =
      "The following operation failed in the TorchScript interpreter.\n"
      "Traceback of TorchScript, serialized code (most recent call last):\n"
      "  File \"code/__torch__.py\", line 9, in forward\n"
      "    _0 = torch.add(x, y)\n"
      "         ~~~~~~~~~ <--- HERE\n"
      "\n"
      "RuntimeError: The size of tensor a (3) must match the size of tensor b (4) at "
      "non-singleton dimension 0\n";
  EXPECT_EQ(TrimTorchMessage(message),
            "The size of tensor a (3) must match the size of tensor b (4) at non-singleton "
            "dimension 0");
}

TEST(TrimTorchMessageTest, SkipsTheOriginalPythonFramesOfATracedModule) {
  const char* message =
      "The following operation failed in the TorchScript interpreter.\n"
      "Traceback of TorchScript, serialized code (most recent call last):\n"
      "  File \"code/__torch__/torch/nn/modules/linear.py\", line 12, in forward\n"
      "    return torch.linear(input, weight, bias)\n"
      "           ~~~~~~~~~~~~ <--- HERE\n"
      "\n"
      "Traceback of TorchScript, original code (most recent call last):\n"
      "/usr/lib/python3/dist-packages/torch/nn/modules/linear.py(114): forward\n"
      "/tmp/make_model.py(12): <module>\n"
      "RuntimeError: mat1 and mat2 must have the same dtype\n";
  EXPECT_EQ(TrimTorchMessage(message), "mat1 and mat2 must have the same dtype");
}

TEST(TrimTorchMessageTest, KeepsTheFirstLineOtherwise) {
  EXPECT_EQ(TrimTorchMessage("\nPytorchStreamReader failed reading zip archive: not a ZIP "
                             "archive  \nException raised from ... (most recent call first):\n"),
            "PytorchStreamReader failed reading zip archive: not a ZIP archive");
  EXPECT_EQ(TrimTorchMessage(" \n"), "unknown error");
}

}  // namespace
}  // namespace inferd::pytorch
