// Triton's launch flags that inferd accepts but that do nothing on this build
// (GPU and CUDA settings on a CPU server, repository agents). Every other
// Triton flag is a real option in server_flags.cc; compat/triton-2.51-flags.txt
// lists them all.
#ifndef INFERD_MAIN_INERT_FLAGS_H_
#define INFERD_MAIN_INERT_FLAGS_H_

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace inferd {

// Declares the inert flags on `app`. Each one given is appended to `*given`
// (once, however often it is repeated) so that main can log it once the log
// is set up.
void AddInertFlags(CLI::App& app, std::vector<std::string>* given);

// The log line for an inert flag given on the command line.
std::string InertFlagNotice(const std::string& flag);

}  // namespace inferd

#endif  // INFERD_MAIN_INERT_FLAGS_H_
