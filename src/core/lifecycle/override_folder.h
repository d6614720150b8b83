// The private model folder behind the repository API's "file:<path>"
// parameters: the given files are written under a fresh temporary folder
// (never into the repository), and a path that is absolute or climbs out with
// ".." is refused before anything is written.
#ifndef INFERD_CORE_LIFECYCLE_OVERRIDE_FOLDER_H_
#define INFERD_CORE_LIFECYCLE_OVERRIDE_FOLDER_H_

#include <filesystem>
#include <map>
#include <string>

#include "inferd/base/status.h"

namespace inferd {

// Writes `files` (relative path -> content) into <new temp folder>/<model>/
// and returns the temp folder. INVALID_ARG names a refused path.
StatusOr<std::filesystem::path> WriteOverrideFolder(const std::string& model,
                                                    const std::map<std::string, std::string>& files);
// Removes a folder WriteOverrideFolder made; nothing for an empty path.
void RemoveOverrideFolder(const std::filesystem::path& folder);

// INVALID_ARG unless `relative` is a plain relative path inside its folder.
Status CheckRelativePath(const std::string& relative);

}  // namespace inferd

#endif  // INFERD_CORE_LIFECYCLE_OVERRIDE_FOLDER_H_
