#include "common/api_restrictions.h"

#include <algorithm>
#include <cctype>
#include <vector>

namespace inferd {
namespace {

constexpr std::array<std::string_view, kApiCategoryCount> kCategoryNames = {
    "health",       "metadata",         "inference",  "shared-memory", "model-config",
    "model-repository", "statistics",   "trace",      "logging"};

std::vector<std::string_view> SplitCommas(std::string_view text) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  for (size_t comma = text.find(','); comma != std::string_view::npos;
       comma = text.find(',', start)) {
    parts.push_back(text.substr(start, comma - start));
    start = comma + 1;
  }
  parts.push_back(text.substr(start));
  return parts;
}

std::string Lowercase(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

std::string AllNames() {
  std::string names;
  for (std::string_view name : kCategoryNames) {
    if (!names.empty()) names += ", ";
    names += name;
  }
  return names;
}

}  // namespace

std::string_view ApiCategoryName(ApiCategory category) {
  const size_t index = static_cast<size_t>(category);
  return index < kCategoryNames.size() ? kCategoryNames[index] : std::string_view();
}

std::optional<ApiCategory> ApiCategoryFromName(std::string_view name) {
  for (size_t i = 0; i < kCategoryNames.size(); ++i) {
    if (kCategoryNames[i] == name) return static_cast<ApiCategory>(i);
  }
  return std::nullopt;
}

Status ApiRestrictions::AddGroup(std::string_view flag, std::string_view flag_value,
                                 std::string_view header_prefix) {
  // As Triton: the categories end at the first ':', the key at the first '='
  // after it; the value is the rest (it may hold ':' and '=').
  const size_t colon = flag_value.find(':');
  const size_t equals =
      colon == std::string_view::npos ? std::string_view::npos : flag_value.find('=', colon + 1);
  const auto bad_form = [&](std::string_view what) {
    return Status::InvalidArg(std::string(flag) + "=" + std::string(flag_value) + ": " +
                              std::string(what) +
                              "; the form is <category>[,<category>...]:<key>=<value>");
  };
  if (colon == std::string_view::npos) return bad_form("no ':' after the categories");
  if (equals == std::string_view::npos) return bad_form("no '=' between the key and the value");
  const std::string_view categories = flag_value.substr(0, colon);
  const std::string_view key = flag_value.substr(colon + 1, equals - colon - 1);
  const std::string_view value = flag_value.substr(equals + 1);
  if (categories.empty()) return bad_form("no category");
  if (key.empty()) return bad_form("an empty header key");
  if (value.empty()) return bad_form("an empty header value");

  std::vector<ApiCategory> group;
  for (std::string_view name : SplitCommas(categories)) {
    const std::optional<ApiCategory> category = ApiCategoryFromName(name);
    if (!category) {
      return Status::InvalidArg(std::string(flag) + ": unknown category '" + std::string(name) +
                                "' (known: " + AllNames() + ")");
    }
    if (Find(*category) != nullptr ||
        std::find(group.begin(), group.end(), *category) != group.end()) {
      return Status::InvalidArg(std::string(flag) + ": category '" + std::string(name) +
                                "' is restricted more than once; a category can be in one "
                                "group only");
    }
    group.push_back(*category);
  }
  // gRPC metadata keys are lowercase on the wire, so a key given in capitals
  // still matches what clients send.
  std::string header = std::string(header_prefix) + std::string(key);
  if (!header_prefix.empty()) header = Lowercase(std::move(header));
  for (ApiCategory category : group) {
    restrictions_[static_cast<size_t>(category)] = ApiRestriction{header, std::string(value)};
  }
  any_ = true;
  return Status::Ok();
}

std::string ApiRestrictions::RefusalMessage(const ApiRestriction& restriction, bool grpc) {
  return std::string(grpc ? "This protocol" : "This API") +
         " is restricted, expecting header '" + restriction.header + "'";
}

}  // namespace inferd
