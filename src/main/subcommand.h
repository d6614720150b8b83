// `inferd check ...`: the binary's subcommands are the tools built next to it
// (build/tools/inferd-check-config for `check`, inferd-tune for `tune`), run in its place, so one
// name on the PATH reaches them. Anything else is the server's command line.
#ifndef INFERD_MAIN_SUBCOMMAND_H_
#define INFERD_MAIN_SUBCOMMAND_H_

#include <optional>

namespace inferd {

// When argv[1] names a subcommand, replaces this process with its tool (the
// remaining arguments passed on); returns an exit status only when that
// fails. nullopt: argv is the server's.
std::optional<int> RunSubcommand(int argc, char** argv);

}  // namespace inferd

#endif  // INFERD_MAIN_SUBCOMMAND_H_
