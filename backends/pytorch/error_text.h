// Shortening LibTorch's error messages for clients: c10::Error texts carry
// source locations and the TorchScript interpreter adds a traceback before the
// error proper; a client needs that one line. Pure; thread-safe.
#ifndef INFERD_BACKENDS_PYTORCH_ERROR_TEXT_H_
#define INFERD_BACKENDS_PYTORCH_ERROR_TEXT_H_

#include <string>
#include <string_view>

namespace inferd::pytorch {

// The meaningful line of a LibTorch message (c10::Error::what_without_backtrace()):
// after a TorchScript traceback, the error line that ends it ("RuntimeError: "
// dropped); else the first non-empty line. Trailing spaces trimmed; never empty
// (a blank message gives "unknown error").
std::string TrimTorchMessage(std::string_view message);

}  // namespace inferd::pytorch

#endif  // INFERD_BACKENDS_PYTORCH_ERROR_TEXT_H_
