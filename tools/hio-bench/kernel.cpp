// SPDX-License-Identifier: MIT
#include "kernel.hpp"

#include <sys/utsname.h>

#include <cstdio>

namespace hiobench {

std::string kernel_too_old(const std::string& release) {
  int major = 0, minor = 0;
  if (std::sscanf(release.c_str(), "%d.%d", &major, &minor) != 2) return "";
  if (major > kMinKernelMajor || (major == kMinKernelMajor && minor >= kMinKernelMinor)) return "";
  char msg[256];
  std::snprintf(msg, sizeof msg, "this kernel is Linux %s; hio-bench needs %d.%d or later (io_uring as it has it)",
                release.c_str(), kMinKernelMajor, kMinKernelMinor);
  return msg;
}

std::string running_kernel_too_old() {
  utsname u{};
  return uname(&u) == 0 ? kernel_too_old(u.release) : "";
}

}  // namespace hiobench
