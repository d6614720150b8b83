#include "core/config/model_config_parser.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace inferd {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::StartsWith;

TEST(ModelConfigParserTest, ParsesValidConfig) {
  auto config = ParseModelConfigText(R"pb(
                                       name: "simple"
                                       platform: "onnxruntime_onnx"
                                       max_batch_size: 8 input
                                       [ {
                                         name: "INPUT0"
                                         data_type: TYPE_FP32
                                         dims: [ 16, -1 ]
                                       }] output
                                       [ {
                                         name: "OUTPUT0"
                                         data_type: TYPE_INT64
                                         dims: [ 4 ]
                                       }] instance_group
                                       [ { count: 2 kind: KIND_CPU }]
                                       dynamic_batching {
                                         preferred_batch_size: [ 4, 8 ]
                                         max_queue_delay_microseconds: 100
                                       }
                                       parameters {
                                         key: "k"
                                         value: { string_value: "v" }
                                       }
                                     )pb",
                                     "simple/config.pbtxt");
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  EXPECT_EQ(config->name(), "simple");
  EXPECT_EQ(config->platform(), "onnxruntime_onnx");
  EXPECT_EQ(config->max_batch_size(), 8);
  ASSERT_EQ(config->input_size(), 1);
  EXPECT_EQ(config->input(0).data_type(), inference::TYPE_FP32);
  EXPECT_THAT(config->input(0).dims(), ::testing::ElementsAre(16, -1));
  EXPECT_EQ(config->output(0).data_type(), inference::TYPE_INT64);
  EXPECT_EQ(config->instance_group(0).count(), 2);
  EXPECT_EQ(config->instance_group(0).kind(), inference::ModelInstanceGroup::KIND_CPU);
  EXPECT_THAT(config->dynamic_batching().preferred_batch_size(), ::testing::ElementsAre(4, 8));
  EXPECT_EQ(config->dynamic_batching().max_queue_delay_microseconds(), 100u);
  EXPECT_EQ(config->parameters().at("k").string_value(), "v");
}

TEST(ModelConfigParserTest, EmptyTextIsAnEmptyConfig) {
  auto config = ParseModelConfigText("", "empty.pbtxt");
  ASSERT_TRUE(config.ok());
  EXPECT_EQ(config->ByteSizeLong(), 0u);
}

TEST(ModelConfigParserTest, SyntaxErrorReportsFileLineAndColumn) {
  auto config = ParseModelConfigText("name: \"m\"\nplatform: \"p\"\n  max_batch_size: \"eight\"\n",
                                     "m/config.pbtxt");
  ASSERT_FALSE(config.ok());
  EXPECT_EQ(config.status().code(), Status::Code::kInvalidArg);
  EXPECT_THAT(config.status().message(), StartsWith("m/config.pbtxt:3:19: "));
  EXPECT_THAT(config.status().message(), HasSubstr("Expected integer"));
}

TEST(ModelConfigParserTest, UnclosedBracketIsAnError) {
  auto config = ParseModelConfigText("input [\n  { name: \"a\" }\n", "m/config.pbtxt");
  ASSERT_FALSE(config.ok());
  EXPECT_THAT(config.status().message(), StartsWith("m/config.pbtxt:"));
}

TEST(ModelConfigParserTest, UnknownFieldIsAnErrorNamingIt) {
  auto config = ParseModelConfigText("name: \"m\"\nmax_batch: 4\n", "m/config.pbtxt");
  ASSERT_FALSE(config.ok());
  EXPECT_THAT(config.status().message(), StartsWith("m/config.pbtxt:2:10: "));
  EXPECT_THAT(config.status().message(), HasSubstr("\"max_batch\""));
}

TEST(ModelConfigParserTest, UnknownEnumValueIsAnError) {
  auto config =
      ParseModelConfigText("input [ { name: \"a\" data_type: TYPE_FLOAT32 } ]", "m/config.pbtxt");
  ASSERT_FALSE(config.ok());
  EXPECT_THAT(config.status().message(), StartsWith("m/config.pbtxt:1:"));
  EXPECT_THAT(config.status().message(), HasSubstr("TYPE_FLOAT32"));
}

TEST(ModelConfigParserTest, RepeatedSingularFieldIsAnError) {
  auto config = ParseModelConfigText("name: \"a\"\nname: \"b\"\n", "m/config.pbtxt");
  ASSERT_FALSE(config.ok());
  EXPECT_THAT(config.status().message(), HasSubstr("name"));
}

class ModelConfigFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("inferd_parser_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(ModelConfigFileTest, ReadsFile) {
  std::ofstream(dir_ / "config.pbtxt") << "name: \"m\"\nmax_batch_size: 2\n";
  auto config = ReadModelConfigFile(dir_ / "config.pbtxt");
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  EXPECT_EQ(config->max_batch_size(), 2);
}

TEST_F(ModelConfigFileTest, MissingFileIsNotFoundNamingThePath) {
  auto config = ReadModelConfigFile(dir_ / "config.pbtxt");
  ASSERT_FALSE(config.ok());
  EXPECT_EQ(config.status().code(), Status::Code::kNotFound);
  EXPECT_THAT(config.status().message(), HasSubstr((dir_ / "config.pbtxt").string()));
}

TEST_F(ModelConfigFileTest, DirectoryIsInvalidArgNamingThePath) {
  fs::create_directories(dir_ / "config.pbtxt");
  auto config = ReadModelConfigFile(dir_ / "config.pbtxt");
  ASSERT_FALSE(config.ok());
  EXPECT_EQ(config.status().code(), Status::Code::kInvalidArg);
  EXPECT_THAT(config.status().message(), HasSubstr((dir_ / "config.pbtxt").string()));
}

TEST_F(ModelConfigFileTest, SyntaxErrorNamesThePath) {
  std::ofstream(dir_ / "config.pbtxt") << "name: \"m\"\n\ninput [ { dims: [ 1, ] } ]\n";
  auto config = ReadModelConfigFile(dir_ / "config.pbtxt");
  ASSERT_FALSE(config.ok());
  EXPECT_THAT(config.status().message(), StartsWith((dir_ / "config.pbtxt").string() + ":3:"));
}

// ---- Every configuration example in the source documents parses. ----------
//
// The documents are read at test time (never copied into the project). A code
// block is a fenced ``` block or an indented reStructuredText literal block
// after a line ending in "::". It is taken as model configuration text when
// its first line starts with a ModelConfig field name followed by ':', '[' or
// '{'; that leaves out JSON, shell lines, Python and request-shape listings.
// Fragments are completed: "..." lines are dropped and open brackets closed.

struct CodeBlock {
  std::string origin;  // "<file>:<line>"
  std::string text;
};

size_t Indent(const std::string& line) {
  const size_t pos = line.find_first_not_of(" \t");
  return pos == std::string::npos ? line.size() : pos;
}

bool Blank(const std::string& line) { return Indent(line) == line.size(); }

std::vector<CodeBlock> ExtractCodeBlocks(const std::string& file, const std::string& content) {
  std::vector<std::string> lines;
  std::istringstream in(content);
  for (std::string line; std::getline(in, line);) {
    lines.push_back(line);
  }
  std::vector<CodeBlock> blocks;
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string& line = lines[i];
    const size_t indent = Indent(line);
    if (line.compare(indent, 3, "```") == 0) {
      CodeBlock block{file + ":" + std::to_string(i + 2), ""};
      for (++i; i < lines.size() && lines[i].find("```") == std::string::npos; ++i) {
        block.text += lines[i] + "\n";
      }
      blocks.push_back(block);
    } else if (line.size() >= 2 && line.ends_with("::") && !Blank(line)) {
      size_t j = i + 1;
      while (j < lines.size() && Blank(lines[j])) {
        ++j;
      }
      CodeBlock block{file + ":" + std::to_string(j + 1), ""};
      for (; j < lines.size() && (Blank(lines[j]) || Indent(lines[j]) > indent); ++j) {
        block.text += lines[j] + "\n";
      }
      if (!block.text.empty()) {
        blocks.push_back(block);
      }
      i = j - 1;
    }
  }
  return blocks;
}

bool LooksLikeModelConfig(const std::string& text) {
  std::istringstream in(text);
  std::string first;
  while (std::getline(in, first) && (Blank(first) || first[Indent(first)] == '#')) {
  }
  const size_t start = Indent(first);
  size_t end = start;
  while (end < first.size() && (std::islower(first[end]) || first[end] == '_')) {
    ++end;
  }
  const size_t next = first.find_first_not_of(' ', end);
  if (end == start || next == std::string::npos ||
      std::string(":[{").find(first[next]) == std::string::npos) {
    return false;
  }
  return inference::ModelConfig::descriptor()->FindFieldByName(first.substr(start, end - start)) !=
         nullptr;
}

// Drops "..." lines and closes brackets a fragment leaves open.
std::string CompleteFragment(const std::string& text) {
  std::string out;
  std::string open;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.find_first_not_of(" \t.") == std::string::npos) {
      continue;
    }
    bool quoted = false;
    for (char c : line) {
      if (c == '"') {
        quoted = !quoted;
      }
      if (quoted) {
        continue;
      }
      if (c == '[' || c == '{') {
        open.push_back(c);
      }
      if ((c == ']' || c == '}') && !open.empty()) {
        open.pop_back();
      }
    }
    out += line + "\n";
  }
  for (auto it = open.rbegin(); it != open.rend(); ++it) {
    out += (*it == '[') ? "]\n" : "}\n";
  }
  return out;
}

TEST(ModelConfigParserTest, EveryExampleInTheSourceDocumentsParses) {
  const fs::path seeds = fs::path(INFERD_SOURCE_DIR) / ".." / "shared" / "seeds";
  if (!fs::is_directory(seeds)) {
    GTEST_SKIP() << "no source documents at " << seeds;
  }
  int parsed = 0;
  for (const fs::directory_entry& entry : fs::directory_iterator(seeds)) {
    if (entry.path().extension() != ".txt") {
      continue;
    }
    std::ifstream file(entry.path());
    std::stringstream content;
    content << file.rdbuf();
    for (const CodeBlock& block :
         ExtractCodeBlocks(entry.path().filename().string(), content.str())) {
      if (!LooksLikeModelConfig(block.text)) {
        continue;
      }
      auto config = ParseModelConfigText(CompleteFragment(block.text), block.origin);
      EXPECT_TRUE(config.ok()) << config.status().ToString() << "\n" << block.text;
      ++parsed;
    }
  }
  // 18 when this was written: 12 in the configuration reference, 1 in the
  // ensemble document, 5 in the overview.
  EXPECT_GE(parsed, 15);
}

}  // namespace
}  // namespace inferd
