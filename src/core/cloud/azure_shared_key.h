// Azure Storage's Shared Key authorization (Blob service, version 2009-09-19
// and later): the string to sign built from the request's verb, standard
// headers, canonicalized x-ms-* headers and canonicalized resource, signed
// with HMAC-SHA256 under the base64-decoded account key. Pure functions;
// https://learn.microsoft.com/rest/api/storageservices/authorize-with-shared-key
#ifndef INFERD_CORE_CLOUD_AZURE_SHARED_KEY_H_
#define INFERD_CORE_CLOUD_AZURE_SHARED_KEY_H_

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "inferd/base/status.h"

namespace inferd {

// The parts of a request that Shared Key signs.
struct AzureRequestParts {
  std::string method;  // "GET"
  // The URL's path as sent (percent-encoded), from its first '/': "/container/blob";
  // with a path-style endpoint (Azurite) it starts with the account: "/acct/container/blob".
  std::string path;
  // The query's parameters, decoded, in any order.
  std::vector<std::pair<std::string, std::string>> query;
  // Every header the request carries, names in lower case.
  std::map<std::string, std::string> headers;
};

// The x-ms-* headers, sorted, one "name:value\n" each (values' runs of
// whitespace folded to one space, ends trimmed).
std::string AzureCanonicalizedHeaders(const std::map<std::string, std::string>& headers);
// "/" account path, then "\nname:value" per query parameter (names in lower
// case, sorted; a name's values sorted and joined with ',').
std::string AzureCanonicalizedResource(std::string_view account, const AzureRequestParts& request);
// The whole string to sign.
std::string AzureStringToSign(std::string_view account, const AzureRequestParts& request);

// The Authorization header's value: "SharedKey account:signature".
// InvalidArg when `account_key` is not base64.
StatusOr<std::string> AzureSharedKeyAuthorization(std::string_view account,
                                                  std::string_view account_key,
                                                  const AzureRequestParts& request);

}  // namespace inferd

#endif  // INFERD_CORE_CLOUD_AZURE_SHARED_KEY_H_
