// Text the fuzz targets put into the requests they build: JSON string
// literals and URL path segments, escaped so that the fuzzed bytes reach the
// parser behind them rather than breaking the request around them.
#ifndef INFERD_FUZZ_REQUEST_TEXT_H_
#define INFERD_FUZZ_REQUEST_TEXT_H_

#include <string>

namespace inferd::fuzz {

// `text` as a JSON string literal, quotes included.
std::string JsonString(const std::string& text);

// `text` with every byte but [A-Za-z0-9_-] percent-encoded.
std::string UrlEscape(const std::string& text);

}  // namespace inferd::fuzz

#endif  // INFERD_FUZZ_REQUEST_TEXT_H_
