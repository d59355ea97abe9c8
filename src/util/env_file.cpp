// SPDX-License-Identifier: MIT
#include "util/env_file.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace hio {

std::FILE* open_env_file(const char* var, const char* what) {
  const char* path = std::getenv(var);
  if (!path || !*path) return nullptr;
  std::FILE* f = std::fopen(path, "w");
  if (!f) std::fprintf(stderr, "hybridio: %s=%s: %s; no %s\n", var, path, std::strerror(errno), what);
  return f;
}

}  // namespace hio
