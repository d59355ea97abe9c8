// SPDX-License-Identifier: MIT
// hio-sim scale: a many-core machine on paper — one I/O thread per core
// over 8 devices, neighbours in random bursts on half the cores, the
// bare-metal profile — at several core counts: how fast the simulator runs,
// and what the governor's sampling costs per sample as cores grow.
#pragma once
#include <string>
#include <vector>

namespace hio::sim {

struct ScaleArgs {
  std::string out, profiles;
  std::vector<int> cores = {2, 8, 16, 32, 64};
  double seconds = 0.5;
};

int scale(const ScaleArgs& a);

}  // namespace hio::sim
