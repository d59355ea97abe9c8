// SPDX-License-Identifier: MIT
#include "emu/profile.hpp"

#include "hybridio/hio.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "util/error.hpp"
#include "util/parse.hpp"

namespace hio {
namespace {

struct Profile {
  const char* name;
  double lat_us, iops, bw_mbps;
};

// pcie3/pcie4: the thesis's Table 3 devices. optane: a 900P-class device.
// nand: a TLC NVMe SSD's random-read latency.
constexpr Profile kProfiles[] = {
    {"pcie3", 15, 420000, 3500},
    {"pcie4", 8, 1500000, 7000},
    {"optane", 10, 550000, 2500},
    {"nand", 80, 200000, 2000},
};

int bad(const std::string& spec, const std::string& what) {
  return fail(EINVAL, "bad emulated device '" + spec + "': " + what);
}

}  // namespace

const char* emu_profile_names() { return "pcie3, pcie4, optane, nand"; }

int parse_emu_spec(const std::string& spec, EmuConfig* out) {
  EmuConfig c;
  c.spec = spec;
  if (spec.rfind("emu:", 0) != 0) return bad(spec, "does not start with 'emu:'");
  std::string rest = spec.substr(4);
  size_t pos = 0;
  bool first = true;
  c.profile = "custom";
  while (pos <= rest.size()) {
    size_t comma = rest.find(',', pos);
    std::string item = rest.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    pos = comma == std::string::npos ? rest.size() + 1 : comma + 1;
    if (item.empty()) {
      if (first && rest.empty())
        return bad(spec, std::string("no profile; use one of ") + emu_profile_names() + " or key=value settings");
      first = false;
      continue;
    }
    size_t eq = item.find('=');
    if (eq == std::string::npos) {
      if (!first) return bad(spec, "'" + item + "' is not key=value");
      const Profile* p = nullptr;
      for (const auto& pr : kProfiles)
        if (item == pr.name) p = &pr;
      if (!p) return bad(spec, "unknown profile '" + item + "' (profiles: " + emu_profile_names() + ")");
      c.profile = p->name;
      c.lat_us = p->lat_us;
      c.iops = p->iops;
      c.bw_mbps = p->bw_mbps;
      first = false;
      continue;
    }
    first = false;
    std::string k = item.substr(0, eq), v = item.substr(eq + 1);
    double d = 0;
    uint64_t u = 0;
    auto num = [&](double lo, double hi) {
      if (!parse_double(v, &d) || d < lo || d > hi) return false;
      return true;
    };
    auto size = [&]() { return parse_size(v, &u); };
    bool ok = true;
    if (k == "lat_us")
      ok = num(0.1, 1e6), c.lat_us = d;
    else if (k == "iops")
      ok = num(1, 1e9), c.iops = d;
    else if (k == "channels")
      ok = num(1, 4096) && d == std::floor(d), c.channels = unsigned(d);
    else if (k == "bw_mbps")
      ok = num(1, 1e6), c.bw_mbps = d;
    else if (k == "jitter_us")
      ok = num(0, 1e6), c.jitter_us = d;
    else if (k == "wlat_us")
      ok = num(0.1, 1e6), c.wlat_us = d;
    else if (k == "size")
      ok = size() && u > 0, c.capacity = u;
    else if (k == "lba")
      ok = size() && (u == 512 || u == 4096), c.lba = uint32_t(u);
    else if (k == "seed")
      ok = size(), c.seed = u;
    else if (k == "fail_offset")
      ok = size(), c.faults.fail_offset = u;
    else if (k == "fail_rate")
      ok = num(0, 1), c.faults.fail_rate = d;
    else if (k == "fail_op") {
      if (v == "read")
        c.faults.fail_op = HIO_OP_READ;
      else if (v == "write")
        c.faults.fail_op = HIO_OP_WRITE;
      else if (v == "flush")
        c.faults.fail_op = HIO_OP_FLUSH;
      else if (v == "any")
        c.faults.fail_op = -1;
      else
        ok = false;
    } else if (k == "slow_rate")
      ok = num(0, 1), c.faults.slow_rate = d;
    else if (k == "slow_factor")
      ok = num(1, 1e6), c.faults.slow_factor = d;
    else if (k == "short_offset")
      ok = size(), c.faults.short_offset = u;
    else if (k == "corrupt_offset")
      ok = size(), c.faults.corrupt_offset = u;
    else
      return bad(spec, "unknown key '" + k +
                           "' (keys: lat_us iops channels bw_mbps jitter_us wlat_us size lba seed "
                           "fail_offset fail_rate fail_op short_offset slow_rate slow_factor corrupt_offset)");
    if (!ok) return bad(spec, "invalid value '" + v + "' for " + k);
  }
  if (c.jitter_us < 0) c.jitter_us = c.lat_us * 0.1;
  if (c.jitter_us > c.lat_us) return bad(spec, "jitter_us must not exceed lat_us");
  if (c.wlat_us < 0) c.wlat_us = c.lat_us;
  if (c.channels == 0) c.channels = unsigned(std::max(1.0, std::ceil(c.iops * c.lat_us * 1e-6)));
  *out = c;
  return 0;
}

}  // namespace hio
