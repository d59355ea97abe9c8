// SPDX-License-Identifier: MIT
#include "emu/profile.hpp"

#include "hybridio/hio.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <optional>

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

// v as a number within [lo, hi].
bool number(const std::string& v, double lo, double hi, double* d) {
  return parse_double(v, d) && *d >= lo && *d <= hi;
}

// The device keys set the emulated SSD's speed and shape; the fault keys its
// failures. Each returns whether v is good, or nothing when k is not its key.
std::optional<bool> set_device_key(const std::string& k, const std::string& v, EmuConfig& c) {
  double d = 0;
  uint64_t u = 0;
  if (k == "lat_us") return number(v, 0.1, 1e6, &d) && (c.lat_us = d, true);
  if (k == "iops") return number(v, 1, 1e9, &d) && (c.iops = d, true);
  if (k == "channels") return number(v, 1, 4096, &d) && d == std::floor(d) && (c.channels = unsigned(d), true);
  if (k == "bw_mbps") return number(v, 1, 1e6, &d) && (c.bw_mbps = d, true);
  if (k == "jitter_us") return number(v, 0, 1e6, &d) && (c.jitter_us = d, true);
  if (k == "wlat_us") return number(v, 0.1, 1e6, &d) && (c.wlat_us = d, true);
  if (k == "size") return parse_size(v, &u) && u > 0 && (c.capacity = u, true);
  if (k == "lba") return parse_size(v, &u) && (u == 512 || u == 4096) && (c.lba = uint32_t(u), true);
  if (k == "seed") return parse_size(v, &u) && (c.seed = u, true);
  return std::nullopt;
}

std::optional<bool> set_fault_key(const std::string& k, const std::string& v, EmuFaults& f) {
  double d = 0;
  uint64_t u = 0;
  if (k == "fail_offset") return parse_size(v, &u) && (f.fail_offset = u, true);
  if (k == "fail_rate") return number(v, 0, 1, &d) && (f.fail_rate = d, true);
  if (k == "fail_op") {
    if (v == "read")
      f.fail_op = HIO_OP_READ;
    else if (v == "write")
      f.fail_op = HIO_OP_WRITE;
    else if (v == "flush")
      f.fail_op = HIO_OP_FLUSH;
    else if (v == "any")
      f.fail_op = -1;
    else
      return false;
    return true;
  }
  if (k == "slow_rate") return number(v, 0, 1, &d) && (f.slow_rate = d, true);
  if (k == "slow_factor") return number(v, 1, 1e6, &d) && (f.slow_factor = d, true);
  if (k == "short_offset") return parse_size(v, &u) && (f.short_offset = u, true);
  if (k == "corrupt_offset") return parse_size(v, &u) && (f.corrupt_offset = u, true);
  return std::nullopt;
}

// One key=value item into c; 0, or the error.
int set_key(const std::string& spec, const std::string& item, size_t eq, EmuConfig& c) {
  std::string k = item.substr(0, eq), v = item.substr(eq + 1);
  std::optional<bool> ok = set_device_key(k, v, c);
  if (!ok) ok = set_fault_key(k, v, c.faults);
  if (!ok)
    return bad(spec, "unknown key '" + k +
                         "' (keys: lat_us iops channels bw_mbps jitter_us wlat_us size lba seed "
                         "fail_offset fail_rate fail_op short_offset slow_rate slow_factor corrupt_offset)");
  if (!*ok) return bad(spec, "invalid value '" + v + "' for " + k);
  return 0;
}

// A named profile's speeds into c; 0, or the error.
int set_profile(const std::string& spec, const std::string& item, EmuConfig& c) {
  const Profile* p = nullptr;
  for (const auto& pr : kProfiles)
    if (item == pr.name) p = &pr;
  if (!p) return bad(spec, "unknown profile '" + item + "' (profiles: " + emu_profile_names() + ")");
  c.profile = p->name;
  c.lat_us = p->lat_us;
  c.iops = p->iops;
  c.bw_mbps = p->bw_mbps;
  return 0;
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
    if (eq == std::string::npos && !first) return bad(spec, "'" + item + "' is not key=value");
    // Only the first item may name a profile: the keys after it refine it.
    int err = eq == std::string::npos ? set_profile(spec, item, c) : set_key(spec, item, eq, c);
    if (err) return err;
    first = false;
  }
  if (c.jitter_us < 0) c.jitter_us = c.lat_us * 0.1;
  if (c.jitter_us > c.lat_us) return bad(spec, "jitter_us must not exceed lat_us");
  if (c.wlat_us < 0) c.wlat_us = c.lat_us;
  if (c.channels == 0) c.channels = unsigned(std::max(1.0, std::ceil(c.iops * c.lat_us * 1e-6)));
  *out = c;
  return 0;
}

}  // namespace hio
