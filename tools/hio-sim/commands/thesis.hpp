// SPDX-License-Identifier: MIT
// hio-sim thesis: the thesis's experiments on its machines, simulated —
// Figs 7-10 (6 cores; 6 fio threads beside 6 mcf, libaio against SPDK, on
// the PCIe 3.0 and 4.0 SSDs of its Table 3) and Fig 16 (RocksDB's mixgraph
// beside db_stress held by cpulimit to 0-50% of the core, SPDK against
// Posix on the PCIe 4.0 SSD) — side by side with the thesis's figures.
#pragma once
#include <string>

namespace hio::sim {

struct ThesisArgs {
  std::string out, profiles, traces;
  uint64_t seed = 1;
};

int thesis(const ThesisArgs& a);

}  // namespace hio::sim
