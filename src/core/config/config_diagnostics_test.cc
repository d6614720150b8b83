// Where config errors point (file:line:col) and what they suggest: field
// locations from the text, the closest valid name to a misspelt one, and
// messages taken apart again for inferd check's JSON.
#include <gtest/gtest.h>

#include "core/config/closest_name.h"
#include "core/config/config_error.h"
#include "core/config/config_locations.h"
#include "core/config/model_config_parser.h"
#include "core/config/model_config_validator.h"

namespace inferd {
namespace {

constexpr char kConfig[] =
    "name: \"m\"\n"
    "backend: \"identity\"\n"
    "max_batch_size: 4\n"
    "input [\n"
    "  { name: \"A\" data_type: TYPE_FP32 dims: [ 4 ] },\n"
    "  { name: \"B\" data_type: TYPE_FP32\n"
    "    dims: [ 2, 0 ] }\n"
    "]\n"
    "output [ { name: \"O\" data_type: TYPE_FP32 dims: [ 4 ] } ]\n";

TEST(ConfigLocationsTest, FindsFieldsByTheValidatorsLabels) {
  std::shared_ptr<const ConfigLocations> locations;
  ASSERT_TRUE(ParseModelConfigText(kConfig, "c.pbtxt", &locations).ok());
  ASSERT_NE(locations, nullptr);
  auto at = [&](const char* label) {
    auto found = locations->Find(label);
    return found ? std::to_string(found->line) + ":" + std::to_string(found->column) : "none";
  };
  EXPECT_EQ(at("max_batch_size"), "3:1");
  EXPECT_EQ(at("input 'B'"), "6:5");  // an element of a list: its first field
  EXPECT_EQ(at("input[1]"), "6:5");
  EXPECT_EQ(at("input 'B' dims[1]"), "7:5");  // a list's values: the field
  EXPECT_EQ(at("input 'A' format"), "5:5");   // not written: the element
  EXPECT_EQ(at("dynamic_batching"), "none");
}

TEST(ConfigLocationsTest, AMapEntryIsLabelledByItsKey) {
  const std::string text = std::string(kConfig) +
                           "model_warmup [ { name: \"w\" batch_size: 1\n"
                           "  inputs { key: \"A\" value: {\n"
                           "    data_type: TYPE_FP32 dims: [ 4 ] zero_data: true } } } ]\n";
  std::shared_ptr<const ConfigLocations> locations;
  ASSERT_TRUE(ParseModelConfigText(text, "c.pbtxt", &locations).ok());
  auto found = locations->Find("model_warmup 'w' inputs 'A' dims");
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->line, 12);
  EXPECT_EQ(found->column, 26);
}

TEST(ConfigLocationsTest, ValidationErrorsPointAtTheField) {
  ConfigContext ctx;
  ctx.model_name = "m";
  ctx.file_label = "/r/m/config.pbtxt";
  auto config = ParseModelConfigText(kConfig, ctx.file_label, &ctx.locations);
  ASSERT_TRUE(config.ok());
  config->add_instance_group()->set_count(1);
  config->mutable_version_policy()->mutable_latest()->set_num_versions(1);
  EXPECT_EQ(ValidateModelConfig(ctx, *config).message(),
            "model 'm' (/r/m/config.pbtxt:7:5): input 'B' dims[1]: must be -1 or positive, "
            "got 0; fix: -1 for a size that varies, else the size");
}

TEST(ClosestNameTest, SuggestsFieldsAndEnumValues) {
  EXPECT_EQ(EditDistance("max_batch_sise", "max_batch_size"), 1u);
  EXPECT_EQ(EditDistance("TYPE_FP23", "TYPE_FP32"), 1u);  // a swap counts one
  EXPECT_EQ(ClosestName("dimz", {"name", "dims", "data_type"}), "dims");
  EXPECT_EQ(ClosestName("completely_else", {"name", "dims"}), "");
  EXPECT_EQ(SuggestForParseError(
                "Message type \"inference.ModelConfig\" has no field named \"max_batch_sise\"."),
            "did you mean 'max_batch_size'?");
  EXPECT_EQ(SuggestForParseError("Unknown enumeration value of \"FP32\" for field "
                                 "\"data_type\"."),
            "did you mean TYPE_FP32?");
  EXPECT_EQ(SuggestForParseError("Expected \"}\", found \"]\"."), "");
}

TEST(ParseConfigProblemTest, TakesEachShapeApart) {
  ConfigProblem at = ParseConfigProblem(
      "m: model 'm' (/r/m/config.pbtxt:7:5): input 'B' dims[1]: must be positive; fix: -1");
  EXPECT_EQ(at.model, "m");
  EXPECT_EQ(at.file, "/r/m/config.pbtxt");
  EXPECT_EQ(at.line, 7);
  EXPECT_EQ(at.column, 5);
  EXPECT_EQ(at.field, "input 'B' dims[1]");
  EXPECT_EQ(at.message, "must be positive");
  EXPECT_EQ(at.fix, "-1");
  ConfigProblem parse = ParseConfigProblem("m: /r/m/config.pbtxt:3:1: Unknown; fix: x");
  EXPECT_EQ(parse.file, "/r/m/config.pbtxt");
  EXPECT_EQ(parse.line, 3);
  EXPECT_EQ(parse.message, "Unknown");
  ConfigProblem ensemble = ParseConfigProblem("ensemble 'e': the steps form a cycle");
  EXPECT_EQ(ensemble.model, "e");
  EXPECT_EQ(ensemble.message, "the steps form a cycle");
  EXPECT_EQ(ensemble.fix, "");
}

}  // namespace
}  // namespace inferd
