// SPDX-License-Identifier: MIT
// The kernel hio-bench needs: io_uring as Linux 5.15 has it. A static
// hio-bench is copied onto machines of any age; below that it says so
// instead of failing at its first ring with a bare errno.
#pragma once
#include <string>

namespace hiobench {

constexpr int kMinKernelMajor = 5, kMinKernelMinor = 15;

// Empty when the release (uname's, e.g. "6.1.0-18-amd64") is new enough,
// else the message to print. A release that does not parse passes: the
// ring's own error then speaks.
std::string kernel_too_old(const std::string& release);

// kernel_too_old() of the running kernel.
std::string running_kernel_too_old();

}  // namespace hiobench
