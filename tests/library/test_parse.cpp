// SPDX-License-Identifier: MIT
// Number parsing (sizes, decimals) and emulated-device specs.
#include <gtest/gtest.h>

#include <cerrno>
#include <cmath>
#include <string>

#include "emu/profile.hpp"
#include "hybridio/hio.h"
#include "test_util.hpp"
#include "util/parse.hpp"

using hiotest::Contains;

// ---- sizes -----------------------------------------------------------------

TEST(ParseSize, PlainAndSuffixed) {
  struct {
    const char* s;
    uint64_t v;
  } cases[] = {
      {"0", 0},
      {"4096", 4096},
      {"512b", 512},
      {"4k", 4096},
      {"4K", 4096},
      {"4kb", 4096},
      {"4KiB", 4096},
      {"1m", 1 << 20},
      {"1MiB", 1 << 20},
      {"2g", 2ull << 30},
      {"2GB", 2ull << 30},
      {"1t", 1ull << 40},
      {"16777215t", 16777215ull << 40},
      {"18446744073709551615", UINT64_MAX},
  };
  for (const auto& c : cases) {
    uint64_t v = 1234;
    EXPECT_TRUE(hio::parse_size(c.s, &v)) << c.s;
    EXPECT_EQ(v, c.v) << c.s;
  }
}

TEST(ParseSize, RejectsJunkAndOverflow) {
  for (const char* s : {"", "k", "-1", "+4", " 4", "4 ", "4x", "4kk", "1.5k", "4pb", "0x10",
                        "18446744073709551616",  // 2^64
                        "16777216t",             // 2^64 after the shift
                        "17179869184g"}) {
    uint64_t v = 77;
    EXPECT_FALSE(hio::parse_size(s, &v)) << "'" << s << "'";
    EXPECT_EQ(v, 77u) << "output written on failure for '" << s << "'";
  }
}

TEST(ParseDouble, Valid) {
  double d = 0;
  EXPECT_TRUE(hio::parse_double("0.5", &d));
  EXPECT_EQ(d, 0.5);
  EXPECT_TRUE(hio::parse_double("-3", &d));
  EXPECT_EQ(d, -3.0);
  EXPECT_TRUE(hio::parse_double("1e3", &d));
  EXPECT_EQ(d, 1000.0);
}

TEST(ParseDouble, RejectsPartialAndNonFinite) {
  for (const char* s : {"", " 1", "1 ", "1.5x", "abc", "nan", "inf", "-inf", "1e999"}) {
    double d = 42;
    EXPECT_FALSE(hio::parse_double(s, &d)) << "'" << s << "'";
    EXPECT_EQ(d, 42.0) << s;
  }
}

TEST(ParseInt, ValidAndInvalid) {
  long long v = 0;
  EXPECT_TRUE(hio::parse_int("-1", &v));
  EXPECT_EQ(v, -1);
  EXPECT_TRUE(hio::parse_int("9223372036854775807", &v));
  EXPECT_EQ(v, INT64_MAX);
  for (const char* s : {"", " 1", "1 ", "1.0", "4k", "9223372036854775808", "x"}) {
    v = 5;
    EXPECT_FALSE(hio::parse_int(s, &v)) << "'" << s << "'";
    EXPECT_EQ(v, 5) << s;
  }
}

// ---- emulated-device specs --------------------------------------------------

TEST(EmuSpec, Profiles) {
  struct {
    const char* name;
    double lat_us, iops, bw;
  } profiles[] = {{"pcie3", 15, 420000, 3500},
                  {"pcie4", 8, 1500000, 7000},
                  {"optane", 10, 550000, 2500},
                  {"nand", 80, 200000, 2000}};
  for (const auto& p : profiles) {
    hio::EmuConfig c;
    std::string spec = std::string("emu:") + p.name;
    ASSERT_EQ(hio::parse_emu_spec(spec, &c), 0) << hio_last_error();
    EXPECT_EQ(c.spec, spec);
    EXPECT_EQ(c.profile, p.name);
    EXPECT_EQ(c.lat_us, p.lat_us);
    EXPECT_EQ(c.iops, p.iops);
    EXPECT_EQ(c.bw_mbps, p.bw);
    // Derived defaults: enough channels to reach the IOPS at that latency,
    // 10% jitter, writes as slow as reads, 512-byte blocks, no faults.
    EXPECT_EQ(c.channels, unsigned(std::ceil(p.iops * p.lat_us * 1e-6)));
    EXPECT_DOUBLE_EQ(c.jitter_us, p.lat_us * 0.1);
    EXPECT_EQ(c.wlat_us, p.lat_us);
    EXPECT_EQ(c.lba, 512u);
    EXPECT_EQ(c.capacity, 0u);
    EXPECT_EQ(c.faults.fail_offset, UINT64_MAX);
    EXPECT_EQ(c.faults.fail_rate, 0.0);
    EXPECT_EQ(c.faults.fail_op, -1);
  }
}

TEST(EmuSpec, CustomKeys) {
  hio::EmuConfig c;
  ASSERT_EQ(hio::parse_emu_spec("emu:lat_us=5,iops=200000", &c), 0) << hio_last_error();
  EXPECT_EQ(c.profile, "custom");
  EXPECT_EQ(c.lat_us, 5.0);
  EXPECT_EQ(c.iops, 200000.0);
  EXPECT_EQ(c.channels, 1u);

  ASSERT_EQ(hio::parse_emu_spec("emu:pcie4,lat_us=20,channels=4,bw_mbps=100,jitter_us=0,wlat_us=30,size=64m,"
                                "lba=4k,seed=9,fail_offset=8192,fail_rate=0.25,fail_op=write,slow_rate=0.5,"
                                "slow_factor=3,corrupt_offset=1m,short_offset=12k",
                                &c),
            0)
      << hio_last_error();
  EXPECT_EQ(c.profile, "pcie4");
  EXPECT_EQ(c.lat_us, 20.0);  // a key after the profile overrides it
  EXPECT_EQ(c.channels, 4u);
  EXPECT_EQ(c.bw_mbps, 100.0);
  EXPECT_EQ(c.jitter_us, 0.0);
  EXPECT_EQ(c.wlat_us, 30.0);
  EXPECT_EQ(c.capacity, 64 * hiotest::MiB);
  EXPECT_EQ(c.lba, 4096u);
  EXPECT_EQ(c.seed, 9u);
  EXPECT_EQ(c.faults.fail_offset, 8192u);
  EXPECT_EQ(c.faults.fail_rate, 0.25);
  EXPECT_EQ(c.faults.fail_op, int(HIO_OP_WRITE));
  EXPECT_EQ(c.faults.slow_rate, 0.5);
  EXPECT_EQ(c.faults.slow_factor, 3.0);
  EXPECT_EQ(c.faults.corrupt_offset, hiotest::MiB);
  EXPECT_EQ(c.faults.short_offset, 12288u);
}

TEST(EmuSpec, FailOpNames) {
  struct {
    const char* v;
    int op;
  } ops[] = {{"read", HIO_OP_READ}, {"write", HIO_OP_WRITE}, {"flush", HIO_OP_FLUSH}, {"any", -1}};
  for (const auto& o : ops) {
    hio::EmuConfig c;
    ASSERT_EQ(hio::parse_emu_spec(std::string("emu:pcie4,fail_op=") + o.v, &c), 0) << hio_last_error();
    EXPECT_EQ(c.faults.fail_op, o.op) << o.v;
  }
}

// Each malformed spec fails with -EINVAL and a message naming the spec and
// what is wrong in it (the bad key, value or profile).
struct BadSpec {
  const char* spec;
  std::vector<const char*> mentions;
};

class EmuSpecError : public testing::TestWithParam<BadSpec> {};

TEST_P(EmuSpecError, NamesTheProblem) {
  const BadSpec& b = GetParam();
  hio::EmuConfig c;
  c.lat_us = -7;  // untouched on failure
  EXPECT_EQ(hio::parse_emu_spec(b.spec, &c), -EINVAL) << b.spec;
  EXPECT_EQ(c.lat_us, -7.0) << "config written on failure";
  std::string msg = hio_last_error();
  if (std::string(b.spec).rfind("emu:", 0) == 0) {
    EXPECT_TRUE(Contains(msg, b.spec));
  }
  for (const char* m : b.mentions) EXPECT_TRUE(Contains(msg, m));
}

INSTANTIATE_TEST_SUITE_P(
    AllPaths, EmuSpecError,
    testing::Values(
        BadSpec{"pcie4", {"does not start with 'emu:'"}}, BadSpec{"emu:", {"no profile", "pcie4"}},
        BadSpec{"emu:pcie9", {"unknown profile 'pcie9'", "nand"}},
        BadSpec{"emu:pcie4,fast", {"'fast' is not key=value"}},
        BadSpec{"emu:pcie4,colour=red", {"unknown key 'colour'", "lat_us"}},
        BadSpec{"emu:pcie4,lat_us=0", {"'0'", "lat_us"}}, BadSpec{"emu:pcie4,lat_us=abc", {"'abc'", "lat_us"}},
        BadSpec{"emu:pcie4,iops=0", {"'0'", "iops"}}, BadSpec{"emu:pcie4,channels=1.5", {"'1.5'", "channels"}},
        BadSpec{"emu:pcie4,channels=5000", {"'5000'", "channels"}},
        BadSpec{"emu:pcie4,bw_mbps=-1", {"'-1'", "bw_mbps"}}, BadSpec{"emu:pcie4,jitter_us=-2", {"'-2'", "jitter_us"}},
        BadSpec{"emu:pcie4,wlat_us=0.01", {"'0.01'", "wlat_us"}}, BadSpec{"emu:pcie4,size=0", {"'0'", "size"}},
        BadSpec{"emu:pcie4,size=12q", {"'12q'", "size"}}, BadSpec{"emu:pcie4,lba=1024", {"'1024'", "lba"}},
        BadSpec{"emu:pcie4,seed=x", {"'x'", "seed"}}, BadSpec{"emu:pcie4,fail_offset=-1", {"'-1'", "fail_offset"}},
        BadSpec{"emu:pcie4,fail_rate=2", {"'2'", "fail_rate"}},
        BadSpec{"emu:pcie4,fail_op=trim", {"'trim'", "fail_op"}},
        BadSpec{"emu:pcie4,slow_rate=1.5", {"'1.5'", "slow_rate"}},
        BadSpec{"emu:pcie4,slow_factor=0.5", {"'0.5'", "slow_factor"}},
        BadSpec{"emu:pcie4,corrupt_offset=abc", {"'abc'", "corrupt_offset"}},
        BadSpec{"emu:pcie4,lat_us=", {"''", "lat_us"}},
        BadSpec{"emu:lat_us=5,jitter_us=6", {"jitter_us must not exceed lat_us"}}));
