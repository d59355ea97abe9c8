// SPDX-License-Identifier: MIT
// hio-bench option parsing: the command line and fio-style job files, and
// the UsageError messages that name each bad value.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "options.hpp"
#include "test_util.hpp"

using namespace hiobench;
using hiotest::Contains;

namespace {

Invocation parse(std::vector<std::string> args) {
  args.insert(args.begin(), "hio-bench");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  return parse_invocation(int(args.size()), argv.data());
}

// The UsageError message parse() throws, or a test failure if it does not.
std::string usage_error(std::vector<std::string> args) {
  try {
    parse(args);
  } catch (const UsageError& e) {
    return e.what();
  }
  std::string all;
  for (const auto& a : args) all += " " + a;
  ADD_FAILURE() << "no UsageError for:" << all;
  return "";
}

// Job files in a private temporary directory, removed with it.
class JobFiles : public testing::Test {
 protected:
  void SetUp() override {
    const char* t = getenv("TMPDIR");
    std::string tmpl = std::string(t && *t ? t : "/tmp") + "/hio-jobs-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    for (const auto& f : files_) unlink(f.c_str());
    rmdir(dir_.c_str());
  }
  std::string write(const std::string& name, const std::string& text) {
    std::string p = dir_ + "/" + name;
    std::ofstream(p) << text;
    files_.push_back(p);
    return p;
  }
  std::string dir_;
  std::vector<std::string> files_;
};

}  // namespace

// ---- command line --------------------------------------------------------------

TEST(Options, DefaultsWithOneGlobalOption) {
  Invocation inv = parse({"--filename=emu:pcie4"});
  ASSERT_EQ(inv.jobs.size(), 1u);
  const JobOptions& j = inv.jobs[0];
  EXPECT_EQ(j.name, "hio-bench");
  EXPECT_EQ(j.filename, "emu:pcie4");
  EXPECT_EQ(j.rw, Rw::Read);
  EXPECT_EQ(j.bs, 4096u);
  EXPECT_EQ(j.iodepth, 1u);
  EXPECT_EQ(j.numjobs, 1u);
  EXPECT_EQ(j.size, 0u);
  EXPECT_FALSE(j.direct);
  EXPECT_FALSE(j.verify);
  EXPECT_FALSE(j.time_based);
  EXPECT_EQ(j.completion, HIO_WAIT_INTERRUPT);
  EXPECT_EQ(inv.output_format, "normal");
  EXPECT_EQ(j.given.at("filename"), "emu:pcie4");
}

TEST(Options, EveryOption) {
  Invocation inv = parse({"--name=j", "--filename=/dev/null", "--size=1g", "--rw=randrw", "--rwmixread=70", "--bs=64k",
                          "--iodepth=32", "--numjobs=2", "--runtime=500ms", "--time_based", "--ramp_time=2s",
                          "--direct=1", "--cpus_allowed=0-2,5", "--rate_iops=1000", "--verify=crc32c",
                          "--completion=hybrid", "--hybrid_sleep_us=3.5", "--output-format=json", "--output=out.json"});
  ASSERT_EQ(inv.jobs.size(), 2u);  // numjobs copies
  const JobOptions& j = inv.jobs[1];
  EXPECT_EQ(j.name, "j");
  EXPECT_EQ(j.size, 1ull << 30);
  EXPECT_EQ(j.rw, Rw::RandRw);
  EXPECT_EQ(j.rwmixread, 70u);
  EXPECT_EQ(j.bs, 65536u);
  EXPECT_EQ(j.iodepth, 32u);
  EXPECT_DOUBLE_EQ(j.runtime_s, 0.5);
  EXPECT_TRUE(j.time_based);
  EXPECT_DOUBLE_EQ(j.ramp_time_s, 2.0);
  EXPECT_TRUE(j.direct);
  EXPECT_EQ(j.cpus, (std::vector<int>{0, 1, 2, 5}));
  EXPECT_EQ(j.rate_iops, 1000u);
  EXPECT_TRUE(j.verify);
  EXPECT_EQ(j.completion, HIO_WAIT_HYBRID);
  EXPECT_DOUBLE_EQ(j.hybrid_sleep_us, 3.5);
  EXPECT_EQ(inv.output_format, "json");
  EXPECT_EQ(inv.output, "out.json");
}

TEST(Options, RwNamesAndHelpers) {
  struct {
    const char* v;
    Rw rw;
    bool r, w, rnd;
  } cases[] = {{"read", Rw::Read, true, false, false},        {"write", Rw::Write, false, true, false},
               {"randread", Rw::RandRead, true, false, true}, {"randwrite", Rw::RandWrite, false, true, true},
               {"rw", Rw::ReadWrite, true, true, false},      {"readwrite", Rw::ReadWrite, true, true, false},
               {"randrw", Rw::RandRw, true, true, true}};
  for (const auto& c : cases) {
    Invocation inv = parse({"--filename=x", std::string("--rw=") + c.v});
    EXPECT_EQ(inv.jobs[0].rw, c.rw) << c.v;
    EXPECT_EQ(rw_reads(c.rw), c.r) << c.v;
    EXPECT_EQ(rw_writes(c.rw), c.w) << c.v;
    EXPECT_EQ(rw_random(c.rw), c.rnd) << c.v;
  }
  EXPECT_STREQ(rw_name(Rw::ReadWrite), "rw");
  // fio's alias for the option itself.
  EXPECT_EQ(parse({"--filename=x", "--readwrite=randwrite"}).jobs[0].rw, Rw::RandWrite);
}

TEST(Options, TimeUnits) {
  struct {
    const char* v;
    double s;
  } cases[] = {{"10", 10}, {"10s", 10}, {"500ms", 0.5}, {"250us", 250e-6}, {"2m", 120}, {"1h", 3600}, {"1.5", 1.5}};
  for (const auto& c : cases)
    EXPECT_DOUBLE_EQ(parse({"--filename=x", std::string("--runtime=") + c.v}).jobs[0].runtime_s, c.s) << c.v;
}

TEST(Options, GlobalOptionsApplyToEveryJob) {
  Invocation inv = parse({"--filename=emu:nand", "--bs=8k", "--name=a", "--iodepth=4", "--name=b", "--bs=16k"});
  ASSERT_EQ(inv.jobs.size(), 2u);
  EXPECT_EQ(inv.jobs[0].name, "a");
  EXPECT_EQ(inv.jobs[0].bs, 8192u);
  EXPECT_EQ(inv.jobs[0].iodepth, 4u);
  EXPECT_EQ(inv.jobs[1].name, "b");
  EXPECT_EQ(inv.jobs[1].bs, 16384u);
  EXPECT_EQ(inv.jobs[1].iodepth, 1u);  // a's option stays with a
  EXPECT_EQ(inv.jobs[1].filename, "emu:nand");
}

TEST(Options, HelpAndVersion) {
  EXPECT_TRUE(parse({"--help"}).help);
  EXPECT_TRUE(parse({"-h"}).help);
  EXPECT_TRUE(parse({"--version"}).version);
  // No job is needed for either.
  EXPECT_TRUE(parse({"--help"}).jobs.empty());
  EXPECT_TRUE(Contains(usage_text(), "--completion"));
}

struct BadArgs {
  std::vector<std::string> args;
  std::vector<std::string> mentions;
};

class OptionsError : public testing::TestWithParam<BadArgs> {};

TEST_P(OptionsError, NamesTheValue) {
  std::string msg = usage_error(GetParam().args);
  for (const auto& m : GetParam().mentions) EXPECT_TRUE(Contains(msg, m));
}

INSTANTIATE_TEST_SUITE_P(
    CommandLine, OptionsError,
    testing::Values(BadArgs{{"--filename=x", "--bs=0"}, {"'0'", "--bs"}},
                    BadArgs{{"--filename=x", "--bs=65m"}, {"'65m'", "--bs"}},
                    BadArgs{{"--filename=x", "--bs=4q"}, {"'4q'", "--bs"}},
                    BadArgs{{"--filename=x", "--iodepth=-1"}, {"'-1'", "--iodepth"}},
                    BadArgs{{"--filename=x", "--iodepth=0"}, {"'0'", "--iodepth"}},
                    BadArgs{{"--filename=x", "--iodepth=4097"}, {"'4097'", "--iodepth"}},
                    BadArgs{{"--filename=x", "--iodepth=two"}, {"'two'", "--iodepth"}},
                    BadArgs{{"--filename=x", "--rw=sideways"}, {"'sideways'", "--rw"}},
                    BadArgs{{"--filename=x", "--rwmixread=101"}, {"'101'", "--rwmixread"}},
                    BadArgs{{"--filename=x", "--numjobs=0"}, {"'0'", "--numjobs"}},
                    BadArgs{{"--filename=x", "--size=0"}, {"'0'", "--size"}},
                    BadArgs{{"--filename=x", "--runtime=-5"}, {"'-5'", "--runtime"}},
                    BadArgs{{"--filename=x", "--runtime=10x"}, {"'10x'", "--runtime"}},
                    BadArgs{{"--filename=x", "--ramp_time=ms"}, {"'ms'", "--ramp_time"}},
                    BadArgs{{"--filename=x", "--time_based=maybe"}, {"'maybe'", "--time_based"}},
                    BadArgs{{"--filename=x", "--direct=2"}, {"'2'", "--direct"}},
                    BadArgs{{"--filename=x", "--cpus_allowed=3-1"}, {"'3-1'", "reversed"}},
                    BadArgs{{"--filename=x", "--cpus_allowed=0,,1"}, {"'0,,1'", "--cpus_allowed"}},
                    BadArgs{{"--filename=x", "--cpus_allowed=2000"}, {"'2000'", "--cpus_allowed"}},
                    BadArgs{{"--filename=x", "--rate_iops=-3"}, {"'-3'", "--rate_iops"}},
                    BadArgs{{"--filename=x", "--verify=md5"}, {"'md5'", "--verify"}},
                    BadArgs{{"--filename=x", "--completion=turbo"}, {"'turbo'", "--completion"}},
                    BadArgs{{"--filename=x", "--completion=hybrid", "--hybrid_sleep_us=-1"},
                            {"'-1'", "--hybrid_sleep_us"}},
                    BadArgs{{"--filename="}, {"''", "--filename"}},
                    BadArgs{{"--filename=x", "--output-format=xml"}, {"'xml'", "--output-format"}},
                    BadArgs{{"--filename=x", "--output"}, {"--output"}},
                    BadArgs{{"--filename=x", "--frobnicate=1"}, {"unknown option", "frobnicate"}},
                    BadArgs{{"--filename=x", "--frobnicate"}, {"unknown option '--frobnicate'"}},
                    BadArgs{{"--filename=x", "-x"}, {"unknown option '-x'"}},
                    BadArgs{{"--filename=x", "--bs"}, {"--bs", "needs a value"}},
                    BadArgs{{"--name=a", "--iodepth=abc"}, {"'abc'", "--iodepth"}},  // within a job
                    // Whole-job checks name the job and the options in conflict.
                    BadArgs{{}, {"no job"}}, BadArgs{{"--bs=4k"}, {"'hio-bench'", "no --filename"}},
                    BadArgs{{"--name=mine", "--bs=4k"}, {"'mine'", "no --filename"}},
                    BadArgs{{"--filename=x", "--time_based"}, {"--time_based needs --runtime"}},
                    BadArgs{{"--filename=x", "--size=1k", "--bs=4k"}, {"--size=1024", "--bs=4096"}},
                    BadArgs{{"--filename=x", "--verify=crc32c", "--bs=16"}, {"--verify=crc32c", "32"}},
                    BadArgs{{"--filename=x", "--hybrid_sleep_us=5"}, {"--hybrid_sleep_us", "hybrid"}}));

// ---- job files -----------------------------------------------------------------

TEST_F(JobFiles, GlobalAndJobSections) {
  std::string p = write("a.fio",
                        "; a comment\n"
                        "# another\n"
                        "[global]\n"
                        "filename=emu:pcie4\n"
                        "  bs = 8k  \n"
                        "\n"
                        "[first]\n"
                        "rw=randread\n"
                        "time_based\n"
                        "runtime=1\n"
                        "[global]\n"
                        "iodepth=16\n"
                        "[second]\r\n"
                        "rw=write\r\n");
  Invocation inv = parse({p});
  ASSERT_EQ(inv.jobs.size(), 2u);
  const JobOptions &a = inv.jobs[0], &b = inv.jobs[1];
  EXPECT_EQ(a.name, "first");
  EXPECT_EQ(a.filename, "emu:pcie4");
  EXPECT_EQ(a.bs, 8192u);
  EXPECT_EQ(a.rw, Rw::RandRead);
  EXPECT_TRUE(a.time_based);
  EXPECT_EQ(a.iodepth, 1u);  // the later [global] applies to later jobs only
  EXPECT_EQ(b.name, "second");
  EXPECT_EQ(b.rw, Rw::Write);
  EXPECT_EQ(b.iodepth, 16u);
  EXPECT_EQ(b.bs, 8192u);
}

TEST_F(JobFiles, CommandLineGlobalsOverrideAndJobsAppend) {
  std::string p = write("b.fio", "[filejob]\nfilename=emu:nand\nbs=8k\n");
  Invocation inv = parse({"--bs=16k", p, "--name=clijob", "--filename=emu:pcie3"});
  ASSERT_EQ(inv.jobs.size(), 2u);
  EXPECT_EQ(inv.jobs[0].name, "filejob");
  EXPECT_EQ(inv.jobs[0].bs, 16384u);
  EXPECT_EQ(inv.jobs[0].filename, "emu:nand");
  EXPECT_EQ(inv.jobs[1].name, "clijob");
  EXPECT_EQ(inv.jobs[1].bs, 16384u);
}

TEST_F(JobFiles, UnknownKeyNamesFileAndLine) {
  std::string p = write("c.fio", "[job]\nfilename=x\nblocksize_range=4k-8k\n");
  std::string msg = usage_error({p});
  EXPECT_TRUE(Contains(msg, p + ":3"));
  EXPECT_TRUE(Contains(msg, "'blocksize_range'"));
}

TEST_F(JobFiles, BareUnknownKeyNamesFileAndLine) {
  std::string p = write("d.fio", "[job]\nfilename=x\n\nfrobnicate\n");
  std::string msg = usage_error({p});
  EXPECT_TRUE(Contains(msg, p + ":4"));
  EXPECT_TRUE(Contains(msg, "'frobnicate'"));
}

TEST_F(JobFiles, BadValueNamesValue) {
  std::string p = write("e.fio", "[job]\nfilename=x\niodepth=-1\n");
  std::string msg = usage_error({p});
  EXPECT_TRUE(Contains(msg, "'-1'"));
  EXPECT_TRUE(Contains(msg, "iodepth"));
  p = write("f.fio", "[job]\nfilename=x\nrw=sideways\n");
  EXPECT_TRUE(Contains(usage_error({p}), "'sideways'"));
}

TEST_F(JobFiles, StructuralErrors) {
  EXPECT_TRUE(Contains(usage_error({dir_ + "/missing.fio"}), "cannot open job file '" + dir_ + "/missing.fio'"));
  std::string p = write("g.fio", "[job\nfilename=x\n");
  std::string msg = usage_error({p});
  EXPECT_TRUE(Contains(msg, p + ":1"));
  EXPECT_TRUE(Contains(msg, "malformed section header"));
  p = write("h.fio", "bs=4k\n[job]\n");
  msg = usage_error({p});
  EXPECT_TRUE(Contains(msg, p + ":1"));
  EXPECT_TRUE(Contains(msg, "outside a section"));
  p = write("i.fio", "[global]\nfilename=x\n");
  EXPECT_TRUE(Contains(usage_error({p}), "defines no job"));
  p = write("j.fio", "[job]\nfilename=x\nbs\n");
  msg = usage_error({p});
  EXPECT_TRUE(Contains(msg, p + ":3"));
  EXPECT_TRUE(Contains(msg, "'bs' needs a value"));
  p = write("k.fio", "[]\n");
  EXPECT_TRUE(Contains(usage_error({p}), "malformed section header"));
}

TEST_F(JobFiles, NumjobsExpands) {
  std::string p = write("l.fio", "[job]\nfilename=x\nnumjobs=3\n[other]\nfilename=y\n");
  Invocation inv = parse({p});
  ASSERT_EQ(inv.jobs.size(), 4u);
  EXPECT_EQ(inv.jobs[2].name, "job");
  EXPECT_EQ(inv.jobs[3].name, "other");
}
