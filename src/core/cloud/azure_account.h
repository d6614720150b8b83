// Which Azure Storage account an `as://account/container/path` repository is
// read from, where its Blob endpoint is, and how requests are authorized
// (Shared Key, a SAS token, or anonymously for public containers).
//
// As Triton: the account name is the credential's (TRITON_CLOUD_CREDENTIAL_PATH's
// "account_str", else AZURE_STORAGE_ACCOUNT) when it has one, else the URL's;
// the key is "account_key", else AZURE_STORAGE_KEY. Beyond Triton, for
// emulators and SAS: AZURE_STORAGE_CONNECTION_STRING (the variable Azure's
// CLI and SDKs read) may give AccountName, AccountKey, BlobEndpoint (Azurite:
// http://127.0.0.1:10000/devstoreaccount1), SharedAccessSignature, or
// UseDevelopmentStorage=true; and an `as://` URL may end in "?<SAS token>".
#ifndef INFERD_CORE_CLOUD_AZURE_ACCOUNT_H_
#define INFERD_CORE_CLOUD_AZURE_ACCOUNT_H_

#include <string>
#include <string_view>

#include "inferd/base/status.h"

namespace inferd {

// The keys of a connection string that say how to reach Blob storage.
struct AzureConnectionString {
  std::string account_name;
  std::string account_key;
  std::string blob_endpoint;  // no trailing '/'
  std::string sas;            // without a leading '?'
};

// Parses "Key=Value;Key=Value;..." (keys case-insensitive; values may hold '=').
// UseDevelopmentStorage=true stands for Azurite's well-known account on
// 127.0.0.1:10000. InvalidArg names the part that is not Key=Value.
StatusOr<AzureConnectionString> ParseAzureConnectionString(std::string_view text);

// Where and as whom one repository is read.
struct AzureAccount {
  std::string name;
  std::string key;       // base64; empty: no Shared Key
  std::string sas;       // empty: no SAS token
  std::string endpoint;  // "https://<name>.blob.core.windows.net", or an override; no trailing '/'
};

// What the credential sources say, before they are combined.
struct AzureCredentialInputs {
  std::string url_account;        // the URL's first segment
  std::string url_sas;            // the URL's query, if any
  std::string credential_account; // "account_str" or AZURE_STORAGE_ACCOUNT
  std::string credential_key;     // "account_key" or AZURE_STORAGE_KEY
  std::string connection_string;  // AZURE_STORAGE_CONNECTION_STRING
};

// The account the inputs combine to, in the precedence the header describes.
StatusOr<AzureAccount> ResolveAzureAccount(const AzureCredentialInputs& inputs);

}  // namespace inferd

#endif  // INFERD_CORE_CLOUD_AZURE_ACCOUNT_H_
