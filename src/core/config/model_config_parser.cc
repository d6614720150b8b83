#include "core/config/model_config_parser.h"

#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/text_format.h>

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "core/config/closest_name.h"
#include "core/config/config_error.h"

namespace inferd {
namespace {

// Keeps the first error the text-format parser reports (it stops there).
class FirstErrorCollector : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int line, google::protobuf::io::ColumnNumber column,
                const std::string& message) override {
    if (has_error_) {
      return;
    }
    has_error_ = true;
    line_ = line;
    column_ = column;
    message_ = message;
  }

  // "<label>:<line>:<column>: <message>", 1-based; the position is left out
  // when the parser gave none.
  std::string Describe(std::string_view label) const {
    std::string text(label);
    if (line_ >= 0) {
      text += ":" + std::to_string(line_ + 1);
      if (column_ >= 0) {
        text += ":" + std::to_string(column_ + 1);
      }
    }
    text += ": ";
    text += has_error_ ? message_ : std::string("could not parse model configuration");
    if (const std::string fix = SuggestForParseError(message_); !fix.empty()) {
      text += kFixSeparator;
      text += fix;
    }
    return text;
  }

 private:
  bool has_error_ = false;
  int line_ = -1;
  int column_ = -1;
  std::string message_;
};

}  // namespace

StatusOr<inference::ModelConfig> ParseModelConfigText(
    std::string_view text, std::string_view file_label,
    std::shared_ptr<const ConfigLocations>* locations) {
  FirstErrorCollector errors;
  google::protobuf::TextFormat::Parser parser;
  google::protobuf::TextFormat::ParseInfoTree tree;
  if (locations != nullptr) parser.WriteLocationsTo(&tree);
  parser.RecordErrorsTo(&errors);
  parser.AllowUnknownField(false);
  parser.AllowUnknownExtension(false);

  google::protobuf::io::ArrayInputStream input(text.data(), static_cast<int>(text.size()));
  inference::ModelConfig config;
  if (!parser.Parse(&input, &config)) {
    return Status::InvalidArg(errors.Describe(file_label));
  }
  if (locations != nullptr) *locations = std::make_shared<const ConfigLocations>(tree, config);
  return config;
}

StatusOr<inference::ModelConfig> ReadModelConfigFile(
    const std::filesystem::path& path, std::shared_ptr<const ConfigLocations>* locations) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (status.type() == std::filesystem::file_type::not_found) {
    return Status::NotFound("model configuration file '" + path.string() + "' does not exist");
  }
  if (ec) {
    return Status::InvalidArg("cannot read model configuration file '" + path.string() +
                              "': " + ec.message());
  }
  if (status.type() == std::filesystem::file_type::directory) {
    return Status::InvalidArg("cannot read model configuration file '" + path.string() +
                              "': it is a directory");
  }

  // open/read, not an ifstream: a stream's buffers and locale cost as much as
  // reading a small file, and a server start reads one per model.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return Status::InvalidArg("cannot read model configuration file '" + path.string() +
                              "': " + std::strerror(errno));
  }
  std::string contents;
  char buffer[8192];
  ssize_t got = 0;
  while ((got = ::read(fd, buffer, sizeof buffer)) > 0 || (got < 0 && errno == EINTR)) {
    if (got > 0) contents.append(buffer, static_cast<size_t>(got));
  }
  ::close(fd);
  if (got < 0) {
    return Status::InvalidArg("cannot read model configuration file '" + path.string() + "'");
  }
  return ParseModelConfigText(contents, path.string(), locations);
}

}  // namespace inferd
