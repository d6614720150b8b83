#include "core/cloud/azure_account.h"

#include <cctype>

namespace inferd {
namespace {

// Azurite's documented development account (the same in every emulator).
constexpr std::string_view kDevAccount = "devstoreaccount1";
constexpr std::string_view kDevKey =
    "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";
constexpr std::string_view kDevBlobEndpoint = "http://127.0.0.1:10000/devstoreaccount1";
constexpr std::string_view kPublicSuffix = ".blob.core.windows.net";

bool EqualsNoCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

std::string WithoutTrailingSlash(std::string text) {
  while (!text.empty() && text.back() == '/') text.pop_back();
  return text;
}

std::string WithoutLeadingQuestionMark(std::string text) {
  if (!text.empty() && text.front() == '?') text.erase(0, 1);
  return text;
}

// Stores one "Key=Value" pair of a connection string.
Status TakeConnectionPair(std::string_view key, std::string_view value,
                          AzureConnectionString* out) {
  if (EqualsNoCase(key, "AccountName")) {
    out->account_name = value;
  } else if (EqualsNoCase(key, "AccountKey")) {
    out->account_key = value;
  } else if (EqualsNoCase(key, "BlobEndpoint")) {
    out->blob_endpoint = WithoutTrailingSlash(std::string(value));
  } else if (EqualsNoCase(key, "SharedAccessSignature")) {
    out->sas = WithoutLeadingQuestionMark(std::string(value));
  } else if (EqualsNoCase(key, "UseDevelopmentStorage") && EqualsNoCase(value, "true")) {
    out->account_name = kDevAccount;
    out->account_key = kDevKey;
    if (out->blob_endpoint.empty()) out->blob_endpoint = kDevBlobEndpoint;
  }
  // Other keys (DefaultEndpointsProtocol, EndpointSuffix, QueueEndpoint, ...)
  // say nothing the Blob endpoint below does not.
  return Status::Ok();
}

}  // namespace

StatusOr<AzureConnectionString> ParseAzureConnectionString(std::string_view text) {
  AzureConnectionString out;
  std::string suffix = "core.windows.net";
  std::string protocol = "https";
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(';', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view part = text.substr(start, end - start);
    start = end + 1;
    if (part.empty()) continue;
    const size_t eq = part.find('=');
    if (eq == std::string_view::npos || eq == 0) {
      return Status::InvalidArg("AZURE_STORAGE_CONNECTION_STRING: '" + std::string(part) +
                                "' is not Key=Value");
    }
    const std::string_view key = part.substr(0, eq);
    const std::string_view value = part.substr(eq + 1);
    if (EqualsNoCase(key, "EndpointSuffix")) suffix = value;
    if (EqualsNoCase(key, "DefaultEndpointsProtocol")) protocol = value;
    RETURN_IF_ERROR(TakeConnectionPair(key, value, &out));
  }
  if (out.blob_endpoint.empty() && !out.account_name.empty()) {
    out.blob_endpoint = protocol + "://" + out.account_name + ".blob." + suffix;
  }
  return out;
}

StatusOr<AzureAccount> ResolveAzureAccount(const AzureCredentialInputs& inputs) {
  AzureConnectionString connection;
  if (!inputs.connection_string.empty()) {
    ASSIGN_OR_RETURN(connection, ParseAzureConnectionString(inputs.connection_string));
  }
  AzureAccount account;
  account.name = inputs.credential_account;
  if (account.name.empty()) {
    account.name = inputs.url_account;
    // as://acct.blob.core.windows.net/container names the account by its host.
    if (account.name.size() > kPublicSuffix.size() &&
        account.name.compare(account.name.size() - kPublicSuffix.size(), kPublicSuffix.size(),
                             kPublicSuffix) == 0) {
      account.name.resize(account.name.size() - kPublicSuffix.size());
    }
  }
  if (account.name.empty()) {
    return Status::InvalidArg("an as:// repository needs an account: as://account/container/path");
  }
  // The connection string speaks for its own account only (or, naming
  // none, for whichever account is read: a SAS and an endpoint).
  const bool applies = connection.account_name.empty() || connection.account_name == account.name;
  account.key = inputs.credential_key;
  if (account.key.empty() && applies) account.key = connection.account_key;
  account.sas = WithoutLeadingQuestionMark(inputs.url_sas);
  if (account.sas.empty() && applies) account.sas = connection.sas;
  account.endpoint = applies && !connection.blob_endpoint.empty()
                         ? connection.blob_endpoint
                         : "https://" + account.name + std::string(kPublicSuffix);
  return account;
}

}  // namespace inferd
