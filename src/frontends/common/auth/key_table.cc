// Parsing the auth file and finding a presented key.
#include "common/auth/key_table.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <rapidjson/document.h>
#include <rapidjson/error/en.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>

#include "common/auth/model_glob.h"

namespace inferd::auth {
namespace {

using Value = rapidjson::Value;
using Member = rapidjson::Value::Member;

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool ParseHex(std::string_view hex, Sha256* out) {
  if (hex.size() != out->size() * 2) return false;
  for (size_t i = 0; i < out->size(); ++i) {
    const int high = HexDigit(hex[2 * i]);
    const int low = HexDigit(hex[2 * i + 1]);
    if (high < 0 || low < 0) return false;
    (*out)[i] = static_cast<unsigned char>(high * 16 + low);
  }
  return true;
}

// Parses one auth file in place. Every string RapidJSON parses in situ
// points into `buffer_`, so a member's name gives the line it is on.
class AuthFileParser {
 public:
  AuthFileParser(const std::string& path, std::string text)
      : path_(path), original_(text), buffer_(std::move(text)) {}

  Status Parse(std::vector<ApiKey>* keys);

 private:
  Status Error(const char* at, const std::string& what) const {
    return Status::InvalidArg("auth file " + path_ + ":" + std::to_string(LineOf(at)) + ": " +
                              what);
  }
  int LineOf(const char* at) const {
    const size_t offset = at == nullptr ? 0 : static_cast<size_t>(at - buffer_.data());
    return 1 + static_cast<int>(std::count(original_.begin(),
                                           original_.begin() + std::min(offset, original_.size()),
                                           '\n'));
  }
  Status ParseKey(const Value& entry, const char* at, const std::string& where, ApiKey* key) const;
  Status ParseField(const Member& field, const std::string& where,
                    ApiKey* key) const;
  Status ParseStrings(const Member& field, const std::string& where,
                      std::vector<std::string>* out) const;
  Status ParseScopes(const Member& field, const std::string& where,
                     ApiKey* key) const;
  Status CheckUnique(const std::vector<ApiKey>& keys) const;

  const std::string& path_;
  const std::string original_;
  std::string buffer_;
};

Status AuthFileParser::Parse(std::vector<ApiKey>* keys) {
  rapidjson::Document document;
  document.ParseInsitu(buffer_.data());
  if (document.HasParseError()) {
    const size_t offset = document.GetErrorOffset();
    return Status::InvalidArg(
        "auth file " + path_ + ":" +
        std::to_string(1 + std::count(original_.begin(),
                                      original_.begin() + std::min(offset, original_.size()),
                                      '\n')) +
        ": not valid JSON: " + rapidjson::GetParseError_En(document.GetParseError()));
  }
  if (!document.IsObject()) return Error(nullptr, "the file must be a JSON object {\"keys\": [...]}");
  const Value* list = nullptr;
  const char* list_at = nullptr;
  for (const auto& member : document.GetObject()) {
    if (std::string_view(member.name.GetString()) != "keys") {
      return Error(member.name.GetString(), "unknown field '" +
                                                std::string(member.name.GetString()) +
                                                "' (the file has one field, \"keys\")");
    }
    list = &member.value;
    list_at = member.name.GetString();
  }
  if (list == nullptr) return Error(nullptr, "no \"keys\" field");
  if (!list->IsArray()) return Error(list_at, "\"keys\" must be an array of key objects");
  for (size_t i = 0; i < list->Size(); ++i) {
    const Value& entry = (*list)[static_cast<rapidjson::SizeType>(i)];
    const char* at = entry.IsObject() && entry.MemberCount() > 0
                         ? entry.MemberBegin()->name.GetString()
                         : list_at;
    ApiKey key;
    key.line = LineOf(at);
    RETURN_IF_ERROR(ParseKey(entry, at, "keys[" + std::to_string(i) + "]", &key));
    keys->push_back(std::move(key));
  }
  return CheckUnique(*keys);
}

Status AuthFileParser::ParseKey(const Value& entry, const char* at, const std::string& where,
                                ApiKey* key) const {
  if (!entry.IsObject()) return Error(at, where + ": must be an object");
  bool has_hash = false;
  for (auto field = entry.MemberBegin(); field != entry.MemberEnd(); ++field) {
    RETURN_IF_ERROR(ParseField(*field, where, key));
    has_hash = has_hash || std::string_view(field->name.GetString()) == "sha256";
  }
  if (key->name.empty()) return Error(at, where + ": \"name\" is required");
  if (!has_hash) return Error(at, where + " ('" + key->name + "'): \"sha256\" is required");
  if (key->scopes == 0) {
    return Error(at, where + " ('" + key->name + "'): \"scopes\" is required (one or more of " +
                         AllScopeNames() + ")");
  }
  return Status::Ok();
}

Status AuthFileParser::ParseField(const Member& field, const std::string& where,
                                  ApiKey* key) const {
  const std::string_view name = field.name.GetString();
  const char* at = field.name.GetString();
  const std::string what = where + "." + std::string(name);
  const Value& value = field.value;
  if (name == "name") {
    if (!value.IsString() || value.GetStringLength() == 0) {
      return Error(at, what + ": must be a non-empty string");
    }
    key->name = value.GetString();
  } else if (name == "sha256") {
    if (!value.IsString() || !ParseHex(value.GetString(), &key->sha256)) {
      return Error(at, what + ": must be the 64 hex digits of the key's SHA-256 "
                              "(e.g. `printf %s \"$KEY\" | sha256sum`)");
    }
  } else if (name == "scopes") {
    return ParseScopes(field, where, key);
  } else if (name == "models") {
    return ParseStrings(field, where, &key->models);
  } else if (name == "rate_limit_rps" || name == "burst") {
    if (!value.IsNumber() || !(value.GetDouble() > 0) || !std::isfinite(value.GetDouble())) {
      return Error(at, what + ": must be a number above 0");
    }
    (name == "burst" ? key->burst : key->rate_limit_rps) = value.GetDouble();
  } else if (name == "priority") {
    if (!value.IsUint() || value.GetUint() == 0) {
      return Error(at, what + ": must be a whole number from 1 (the highest priority)");
    }
    key->priority = value.GetUint();
  } else {
    return Error(at, what + ": unknown field (known: name, sha256, scopes, models, "
                            "rate_limit_rps, burst, priority)");
  }
  return Status::Ok();
}

Status AuthFileParser::ParseStrings(const Member& field, const std::string& where,
                                    std::vector<std::string>* out) const {
  const std::string what = where + "." + field.name.GetString();
  if (!field.value.IsArray()) {
    return Error(field.name.GetString(), what + ": must be an array of strings");
  }
  for (const Value& item : field.value.GetArray()) {
    if (!item.IsString() || item.GetStringLength() == 0) {
      return Error(field.name.GetString(), what + ": must hold non-empty strings only");
    }
    out->emplace_back(item.GetString(), item.GetStringLength());
  }
  return Status::Ok();
}

Status AuthFileParser::ParseScopes(const Member& field, const std::string& where,
                                   ApiKey* key) const {
  std::vector<std::string> names;
  RETURN_IF_ERROR(ParseStrings(field, where, &names));
  for (const std::string& name : names) {
    const std::optional<Scope> scope = ScopeFromName(name);
    if (!scope) {
      return Error(field.name.GetString(), where + ".scopes: unknown scope '" + name +
                                               "' (known: " + AllScopeNames() + ")");
    }
    key->scopes |= ScopeBit(*scope);
  }
  return Status::Ok();
}

Status AuthFileParser::CheckUnique(const std::vector<ApiKey>& keys) const {
  for (size_t i = 0; i < keys.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      const std::string where = "auth file " + path_ + ":" + std::to_string(keys[i].line) + ": ";
      if (keys[i].name == keys[j].name) {
        return Status::InvalidArg(where + "key name '" + keys[i].name +
                                  "' is used already on line " + std::to_string(keys[j].line));
      }
      if (keys[i].sha256 == keys[j].sha256) {
        return Status::InvalidArg(where + "key '" + keys[i].name + "' has the same sha256 as '" +
                                  keys[j].name + "' on line " + std::to_string(keys[j].line));
      }
    }
  }
  return Status::Ok();
}

}  // namespace

Sha256 HashKey(std::string_view text) {
  Sha256 digest{};
  unsigned int length = 0;
  EVP_Digest(text.data(), text.size(), digest.data(), &length, EVP_sha256(), nullptr);
  return digest;
}

bool ApiKey::AllowsModel(std::string_view model) const {
  if (models.empty()) return true;
  return std::any_of(models.begin(), models.end(),
                     [model](const std::string& glob) { return GlobMatch(glob, model); });
}

StatusOr<KeyTable> KeyTable::Parse(const std::string& path, std::string text) {
  KeyTable table;
  AuthFileParser parser(path, std::move(text));
  RETURN_IF_ERROR(parser.Parse(&table.keys_));
  return table;
}

StatusOr<KeyTable> KeyTable::Read(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file.is_open()) return Status::InvalidArg("auth file " + path + ": cannot be read");
  std::ostringstream text;
  text << file.rdbuf();
  if (file.bad()) return Status::InvalidArg("auth file " + path + ": cannot be read");
  return Parse(path, text.str());
}

const ApiKey* KeyTable::Find(std::string_view presented) const {
  const Sha256 digest = HashKey(presented);
  // Every hash is compared and the match is selected without a branch, so
  // the time says neither whether nor which key matched.
  size_t found = keys_.size();
  for (size_t i = 0; i < keys_.size(); ++i) {
    const size_t equal = static_cast<size_t>(
        CRYPTO_memcmp(digest.data(), keys_[i].sha256.data(), digest.size()) == 0);
    const size_t mask = 0 - equal;
    found = (i & mask) | (found & ~mask);
  }
  return found < keys_.size() ? &keys_[found] : nullptr;
}

}  // namespace inferd::auth
