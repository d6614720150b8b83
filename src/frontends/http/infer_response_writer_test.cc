// Which outputs are returned as binary data.
#include "http/infer_response_writer.h"

#include <gtest/gtest.h>

namespace inferd::http {
namespace {

TEST(OutputFormatTest, NamedOutputsUseTheirOwnFlag) {
  OutputFormat format;
  format.requested = {{"A", true, {}}, {"B", false, {}}};
  format.binary_by_default = false;
  EXPECT_TRUE(format.IsBinary("A"));
  EXPECT_FALSE(format.IsBinary("B"));
  EXPECT_FALSE(format.IsBinary("C"));
  format.binary_by_default = true;
  EXPECT_TRUE(format.IsBinary("C"));
  EXPECT_FALSE(format.IsBinary("B"));
}

}  // namespace
}  // namespace inferd::http
