// SPDX-License-Identifier: MIT
// The kernel hio-bench needs, read from uname's release string.
#include <gtest/gtest.h>

#include "kernel.hpp"

TEST(Kernel, ReleasesFrom515OnPass) {
  for (const char* r : {"5.15.0-91-generic", "5.16.1", "6.1.0-18-amd64", "6.18.0", "10.0"})
    EXPECT_EQ(hiobench::kernel_too_old(r), "") << r;
}

TEST(Kernel, OlderReleasesAreNamedWithTheNeed) {
  EXPECT_EQ(hiobench::kernel_too_old("5.4.0-150-generic"),
            "this kernel is Linux 5.4.0-150-generic; hio-bench needs 5.15 or later (io_uring as it has it)");
  EXPECT_NE(hiobench::kernel_too_old("4.19.0"), "");
  EXPECT_NE(hiobench::kernel_too_old("5.14.21"), "");
}

TEST(Kernel, AReleaseThatDoesNotParseIsLeftToTheRingToJudge) {
  EXPECT_EQ(hiobench::kernel_too_old(""), "");
  EXPECT_EQ(hiobench::kernel_too_old("custom"), "");
}

TEST(Kernel, ThisMachineRunsTheTests) { EXPECT_EQ(hiobench::running_kernel_too_old(), ""); }
