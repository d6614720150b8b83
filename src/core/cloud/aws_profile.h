// The AWS shared credentials and config files, the third place S3
// credentials come from (after TRITON_CLOUD_CREDENTIAL_PATH and the
// environment), as the AWS CLI's `aws configure` writes them:
// AWS_SHARED_CREDENTIALS_FILE (default ~/.aws/credentials) and
// AWS_CONFIG_FILE (default ~/.aws/config), profile AWS_PROFILE or "default".
#ifndef INFERD_CORE_CLOUD_AWS_PROFILE_H_
#define INFERD_CORE_CLOUD_AWS_PROFILE_H_

#include "core/cloud/cloud_credentials.h"

namespace inferd {

// Fills what `credentials` lacks (the key pair and token when it has no
// access key; the region when it has none) from the files, if they exist.
// A missing file is no error (anonymous requests then).
Status FillFromSharedCredentials(const EnvReader& env, S3Credentials* credentials);

}  // namespace inferd

#endif  // INFERD_CORE_CLOUD_AWS_PROFILE_H_
