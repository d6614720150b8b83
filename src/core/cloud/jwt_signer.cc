#include "core/cloud/jwt_signer.h"

#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include <memory>

#include "core/cloud/crypto.h"

namespace inferd {

std::string Base64UrlEncode(std::string_view bytes) {
  std::string out = Base64Encode(bytes);
  while (!out.empty() && out.back() == '=') out.pop_back();
  for (char& c : out) {
    if (c == '+') c = '-';
    if (c == '/') c = '_';
  }
  return out;
}

StatusOr<std::string> SignRs256(std::string_view private_key_pem, std::string_view data) {
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(
      BIO_new_mem_buf(private_key_pem.data(), static_cast<int>(private_key_pem.size())),
      &BIO_free);
  std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key(
      bio ? PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr) : nullptr,
      &EVP_PKEY_free);
  if (!key || EVP_PKEY_base_id(key.get()) != EVP_PKEY_RSA) {
    return Status::InvalidArg("the private key is not an RSA private key in PEM form");
  }
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(),
                                                               &EVP_MD_CTX_free);
  const auto* bytes = reinterpret_cast<const unsigned char*>(data.data());
  size_t length = 0;
  if (!ctx || EVP_DigestSignInit(ctx.get(), nullptr, EVP_sha256(), nullptr, key.get()) != 1 ||
      EVP_DigestSign(ctx.get(), nullptr, &length, bytes, data.size()) != 1) {
    return Status::Internal("RS256 signing failed to start");
  }
  std::string signature(length, '\0');
  if (EVP_DigestSign(ctx.get(), reinterpret_cast<unsigned char*>(signature.data()), &length,
                     bytes, data.size()) != 1) {
    return Status::Internal("RS256 signing failed");
  }
  signature.resize(length);
  return signature;
}

StatusOr<std::string> SignJwt(std::string_view header_json, std::string_view claims_json,
                              std::string_view private_key_pem) {
  const std::string input = Base64UrlEncode(header_json) + "." + Base64UrlEncode(claims_json);
  ASSIGN_OR_RETURN(const std::string signature, SignRs256(private_key_pem, input));
  return input + "." + Base64UrlEncode(signature);
}

}  // namespace inferd
