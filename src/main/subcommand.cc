#include "subcommand.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string_view>
#include <vector>

namespace inferd {
namespace {

struct Subcommand {
  std::string_view name;
  std::string_view tool;  // the executable's file name
};

constexpr Subcommand kSubcommands[] = {{"check", "inferd-check-config"}, {"tune", "inferd-tune"}};

}  // namespace

std::optional<int> RunSubcommand(int argc, char** argv) {
  if (argc < 2) return std::nullopt;
  const std::string_view word = argv[1];
  for (const Subcommand& subcommand : kSubcommands) {
    if (word != subcommand.name) continue;
    std::error_code ec;
    const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
    const std::filesystem::path dir = ec ? std::filesystem::path(".") : self.parent_path();
    // Next to the binary in an install, in tools/ in a build tree.
    for (const auto& tool : {dir / subcommand.tool, dir / "tools" / subcommand.tool}) {
      if (!std::filesystem::is_regular_file(tool, ec)) continue;
      std::vector<char*> args{const_cast<char*>(tool.c_str())};
      for (int i = 2; i < argc; ++i) args.push_back(argv[i]);
      args.push_back(nullptr);
      ::execv(tool.c_str(), args.data());
      std::fprintf(stderr, "error: cannot run %s: %s\n", tool.c_str(), std::strerror(errno));
      return 2;
    }
    std::fprintf(stderr, "error: inferd %s needs %s next to the inferd binary or in tools/\n",
                 argv[1], std::string(subcommand.tool).c_str());
    return 2;
  }
  return std::nullopt;
}

}  // namespace inferd
