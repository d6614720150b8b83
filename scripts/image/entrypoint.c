// The image's entrypoint (scripts/image/build_image.py compiles it).
//
// Arguments that start with '-', or none, are inferd's flags, which are
// Triton's: `docker run IMAGE --model-repository=/models` runs
// /opt/inferd/inferd with them. Any other first argument is a command, run as
// given from PATH, so Triton's launch lines (`tritonserver --model-repository
// =/models`, a Kubernetes `args:` written for Triton's image) and the tools
// (`inferd-check-config ...`) work unchanged. Either way through exec: the
// server is the container's process 1 and receives SIGTERM itself. No shell in
// the image, hence C.
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char kServer[] = "/opt/inferd/inferd";

int main(int argc, char** argv) {
  if (argc > 1 && argv[1][0] != '-') {
    execvp(argv[1], argv + 1);
    fprintf(stderr, "entrypoint: cannot run '%s': %s\n", argv[1], strerror(errno));
    return 127;
  }
  char name[] = "inferd";
  argv[0] = name;
  execv(kServer, argv);
  fprintf(stderr, "entrypoint: cannot run %s: %s\n", kServer, strerror(errno));
  return 127;
}
