#include "core/server/log_settings_json.h"

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

namespace inferd {
namespace {

constexpr std::string_view kKeys[] = {"log_file",  "log_info",          "log_warning",
                                      "log_error", "log_verbose_level", "log_format"};

bool IsKnownKey(std::string_view key) {
  for (std::string_view known : kKeys) {
    if (key == known) return true;
  }
  return false;
}

Status UnknownKey(std::string_view key) {
  std::string message = "unknown log setting '" + std::string(key) + "'; known settings:";
  for (std::string_view known : kKeys) message += " " + std::string(known);
  return Status::InvalidArg(std::move(message));
}

Status WrongType(std::string_view key, std::string_view expected) {
  return Status::InvalidArg("log setting '" + std::string(key) + "' must be " +
                            std::string(expected));
}

Status ReadBool(std::string_view key, const rapidjson::Value& value, bool* out) {
  if (!value.IsBool()) return WrongType(key, "a boolean");
  *out = value.GetBool();
  return Status::Ok();
}

Status ReadString(std::string_view key, const rapidjson::Value& value, std::string* out) {
  if (!value.IsString()) return WrongType(key, "a string");
  out->assign(value.GetString(), value.GetStringLength());
  return Status::Ok();
}

// The log file cannot change at run time (as in Triton): whoever can reach the
// port would otherwise choose a file the server appends to. Naming the file in
// force is accepted, so a client can send back the whole settings document.
Status CheckLogFileUnchanged(const rapidjson::Value& value, const std::string& current) {
  std::string file;
  RETURN_IF_ERROR(ReadString("log_file", value, &file));
  if (file == current) return Status::Ok();
  return Status::Unsupported(
      "log setting 'log_file' cannot be changed while the server runs (asked for \"" + file +
      "\", in force \"" + current +
      "\"): the log file can only be set at start with --log-file, so that a network client "
      "cannot choose a file the server appends to");
}

// Applies one key of the update to `settings`, which starts as a copy of the
// settings in force.
Status ApplyKey(std::string_view key, const rapidjson::Value& value, LogSettings* settings) {
  if (key == "log_file") return CheckLogFileUnchanged(value, settings->file);
  if (key == "log_info") return ReadBool(key, value, &settings->info);
  if (key == "log_warning") return ReadBool(key, value, &settings->warning);
  if (key == "log_error") return ReadBool(key, value, &settings->error);
  if (key == "log_verbose_level") {
    // IsUint: a non-negative integer that fits 32 bits (not 1.0, not -1).
    if (!value.IsUint()) return WrongType(key, "an integer from 0 to 4294967295");
    settings->verbose = value.GetUint();
    return Status::Ok();
  }
  if (key == "log_format") {
    std::string name;
    RETURN_IF_ERROR(ReadString(key, value, &name));
    std::optional<LogFormat> format = ParseLogFormat(name);
    if (!format) {
      return Status::InvalidArg("log setting 'log_format' must be \"default\" or \"ISO8601\", got \"" +
                                name + "\"");
    }
    settings->format = *format;
    return Status::Ok();
  }
  return UnknownKey(key);
}

}  // namespace

std::string LogSettingsJson(const LogSettings& settings) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
  w.StartObject();
  w.Key("log_file");
  w.String(settings.file.data(), static_cast<rapidjson::SizeType>(settings.file.size()));
  w.Key("log_info");
  w.Bool(settings.info);
  w.Key("log_warning");
  w.Bool(settings.warning);
  w.Key("log_error");
  w.Bool(settings.error);
  w.Key("log_verbose_level");
  w.Uint(settings.verbose);
  w.Key("log_format");
  const std::string_view format = LogFormatName(settings.format);
  w.String(format.data(), static_cast<rapidjson::SizeType>(format.size()));
  w.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize());
}

StatusOr<LogSettings> ApplyLogSettingsUpdate(const LogSettings& current, std::string_view update) {
  if (update.find_first_not_of(" \t\r\n") == std::string_view::npos) return current;
  rapidjson::Document doc;
  doc.Parse(update.data(), update.size());
  if (doc.HasParseError()) {
    return Status::InvalidArg(std::string("the log settings request is not valid JSON: ") +
                              rapidjson::GetParseError_En(doc.GetParseError()) + " at offset " +
                              std::to_string(doc.GetErrorOffset()));
  }
  if (!doc.IsObject()) return Status::InvalidArg("the log settings request must be a JSON object");
  LogSettings next = current;
  for (const auto& member : doc.GetObject()) {
    const std::string_view key(member.name.GetString(), member.name.GetStringLength());
    if (!IsKnownKey(key)) return UnknownKey(key);
    if (member.value.IsNull()) continue;
    RETURN_IF_ERROR(ApplyKey(key, member.value, &next));
  }
  return next;
}

}  // namespace inferd
