// The wire formats of Azure Blob's REST API that azure_store.cc speaks: query
// strings, the List Blobs answer (XML), the error document (XML), and the
// parts of a built request that Shared Key signs. Pure functions.
#ifndef INFERD_CORE_CLOUD_AZURE_REST_H_
#define INFERD_CORE_CLOUD_AZURE_REST_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/cloud/azure_shared_key.h"
#include "core/cloud/http_client.h"
#include "inferd/base/status.h"

namespace inferd {

// Query parameters, unencoded, in the order they are sent.
using AzureQuery = std::vector<std::pair<std::string, std::string>>;
// "name=value&..." with both percent-encoded.
std::string EncodeAzureQuery(const AzureQuery& query);

// The method, path, decoded query and lower-cased headers of `request` (its
// URL absolute: scheme://host[:port]/path[?query]). InvalidArg if the URL is not.
StatusOr<AzureRequestParts> AzureRequestPartsOf(const HttpRequest& request);

struct AzureBlob {
  std::string name;
  uint64_t size = 0;
  std::string etag;         // as listed (Azure lists it unquoted)
  std::string content_md5;  // base64; empty when the blob has none
};
struct AzureBlobPage {
  std::vector<AzureBlob> blobs;
  std::string next_marker;  // empty: the last page
};
// An EnumerationResults document; InvalidArg naming what is missing.
StatusOr<AzureBlobPage> ParseAzureBlobList(const std::string& xml);

// An <Error><Code/><Message/></Error> document's code and first line of
// message into `code` and `message` (each kept when the body lacks it).
void ReadAzureErrorBody(const std::string& xml, std::string* code, std::string* message);

}  // namespace inferd

#endif  // INFERD_CORE_CLOUD_AZURE_REST_H_
