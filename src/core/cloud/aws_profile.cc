#include "core/cloud/aws_profile.h"

#include <fstream>
#include <map>
#include <string>

namespace inferd {
namespace {

using Section = std::map<std::string, std::string>;

std::string Trim(const std::string& text) {
  const size_t first = text.find_first_not_of(" \t\r");
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(" \t\r") - first + 1);
}

// The keys of section `[name]` of an INI file; empty if the file or section is missing.
Section ReadSection(const std::string& path, const std::string& name) {
  Section out;
  std::ifstream in(path);
  std::string line;
  bool inside = false;
  while (std::getline(in, line)) {
    line = Trim(line);
    if (line.empty() || line[0] == '#' || line[0] == ';') continue;
    if (line.front() == '[' && line.back() == ']') {
      inside = Trim(line.substr(1, line.size() - 2)) == name;
      continue;
    }
    const size_t eq = line.find('=');
    if (inside && eq != std::string::npos) out[Trim(line.substr(0, eq))] = Trim(line.substr(eq + 1));
  }
  return out;
}

}  // namespace

Status FillFromSharedCredentials(const EnvReader& env, S3Credentials* credentials) {
  const std::string home = env("HOME").value_or("");
  std::string profile = credentials->profile;
  if (profile.empty()) profile = env("AWS_PROFILE").value_or("default");
  if (credentials->key_id.empty()) {
    const std::string path =
        env("AWS_SHARED_CREDENTIALS_FILE").value_or(home.empty() ? "" : home + "/.aws/credentials");
    Section keys = ReadSection(path, profile);
    credentials->key_id = keys["aws_access_key_id"];
    credentials->secret_key = keys["aws_secret_access_key"];
    credentials->session_token = keys["aws_session_token"];
    if (credentials->region.empty()) credentials->region = keys["region"];
  }
  if (credentials->region.empty()) {
    const std::string path =
        env("AWS_CONFIG_FILE").value_or(home.empty() ? "" : home + "/.aws/config");
    Section config = ReadSection(path, profile == "default" ? "default" : "profile " + profile);
    credentials->region = config["region"];
  }
  return Status::Ok();
}

}  // namespace inferd
