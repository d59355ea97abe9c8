// SPDX-License-Identifier: MIT
#include "emu/device.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "util/error.hpp"
#include "util/page.hpp"

namespace hio {

EmuDevice* EmuDevice::create(const EmuConfig& cfg) {
  // Anonymous and unreserved: pages cost memory only once written.
  void* m = mmap(nullptr, cfg.capacity, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED) {
    failf(errno, "emulated device %s: cannot map %llu bytes: %s", cfg.spec.c_str(), (unsigned long long)cfg.capacity,
          errno_text(errno).c_str());
    return nullptr;
  }
  return new EmuDevice(cfg, static_cast<uint8_t*>(m));
}

EmuDevice::EmuDevice(const EmuConfig& cfg, uint8_t* mem)
    : cfg_(cfg),
      mem_(mem),
      timing_(cfg),
      written_(new std::atomic<uint64_t>[(cfg.capacity / kPage + 63) / 64 + 1]()),
      rng_(cfg.seed ^ 0x9e3779b97f4a7c15ull) {}

void EmuDevice::mark_written(uint64_t offset, uint32_t len) {
  for (uint64_t p = offset >> kPageShift; p <= (offset + len - 1) >> kPageShift; p++)
    written_[p / 64].fetch_or(1ull << (p % 64), std::memory_order_release);
}

uint64_t EmuDevice::stripes_of(uint64_t offset, uint32_t len) {
  uint64_t first = offset >> kPageShift, last = (offset + len - 1) >> kPageShift;
  if (last - first >= kStripes - 1) return (1ull << kStripes) - 1;
  uint64_t mask = 0;
  for (uint64_t p = first; p <= last; p++) mask |= 1ull << (p % kStripes);
  return mask;
}

void EmuDevice::read_data(uint8_t* dst, uint64_t offset, uint32_t len) const {
  uint64_t end = offset + len;
  while (offset < end) {
    uint64_t p = offset >> kPageShift;
    uint64_t chunk = std::min(end, (p + 1) * kPage) - offset;
    if (written_[p / 64].load(std::memory_order_acquire) & (1ull << (p % 64)))
      std::memcpy(dst, mem_ + offset, chunk);
    else
      std::memset(dst, 0, chunk);
    dst += chunk;
    offset += chunk;
  }
}

EmuDevice::~EmuDevice() { munmap(mem_, cfg_.capacity); }

EmuDevice::Result EmuDevice::execute(const Command& c, uint64_t now_ns) {
  const EmuFaults& f = cfg_.faults;
  bool fail_random = false;
  if (f.fail_rate > 0 && f.applies(c.op)) {
    std::lock_guard<std::mutex> g(mu_);
    fail_random = std::uniform_real_distribution<double>(0.0, 1.0)(rng_) < f.fail_rate;
  }
  Result r{timing_.deadline(c.op, c.len, now_ns), int32_t(f.moved(c.op, c.offset, c.len))};
  if (f.hits(f.fail_offset, c.op, c.offset, c.len) || fail_random) {
    r.res = -EIO;
    return r;
  }
  if (c.op != HIO_OP_READ && c.op != HIO_OP_WRITE) {
    r.res = 0;
    return r;
  }
  // Taken in ascending order, so two commands cannot deadlock.
  uint64_t held = stripes_of(c.offset, c.len);
  bool write = c.op == HIO_OP_WRITE;
  for (uint64_t m = held; m; m &= m - 1) {
    auto& s = stripes_[__builtin_ctzll(m)];
    write ? s.lock() : s.lock_shared();
  }
  uint32_t n = uint32_t(r.res);
  if (write) {
    std::memcpy(mem_ + c.offset, c.buf, n);
    mark_written(c.offset, n);
    if (f.corrupt_offset >= c.offset && f.corrupt_offset < c.offset + n) mem_[f.corrupt_offset] ^= 0x01;
  } else {
    read_data(static_cast<uint8_t*>(c.buf), c.offset, n);
  }
  for (uint64_t m = held; m; m &= m - 1) {
    auto& s = stripes_[__builtin_ctzll(m)];
    write ? s.unlock() : s.unlock_shared();
  }
  return r;
}

}  // namespace hio
