// SPDX-License-Identifier: MIT
// The public structs' layout, fixed for 0.1 (a change here is an ABI
// change: the sizes below move with it, on purpose), struct_size required,
// and the options' defaults from their init functions.
#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>

#include "hybridio/hio_adaptive.h"
#include "test_util.hpp"

using hiotest::Contains;

namespace {

// x86-64 and every LP64 target: a struct that grows moves its size here.
static_assert(sizeof(hio_strategy) == 32);
static_assert(sizeof(hio_queue_opts) == 48);
static_assert(sizeof(hio_open_opts) == 24);
static_assert(sizeof(hio_target_info) == 40);
static_assert(sizeof(hio_io) == 40);
static_assert(sizeof(hio_completion) == 48);
static_assert(sizeof(hio_lat_summary) == 40);
static_assert(sizeof(hio_queue_stats) == 288);
static_assert(sizeof(hio_cache_stats) == 80);
static_assert(sizeof(hio_reaper_opts) == 24);
static_assert(sizeof(hio_reaper_stats) == 80);
static_assert(sizeof(hio_handle_opts) == 120);
static_assert(sizeof(hio_handle_stats) == 208);
static_assert(sizeof(hio_adaptive_view) == 232);
static_assert(offsetof(hio_queue_opts, struct_size) == 0 && offsetof(hio_handle_stats, struct_size) == 0);

TEST(Abi, StructSizeZeroIsRefusedNamingTheStructAndItsInit) {
  hio_engine* e = nullptr;
  ASSERT_EQ(hio_engine_create(&e), 0);
  hio_queue_opts qo{};
  qo.depth = 8;
  hio_queue* q = nullptr;
  EXPECT_EQ(hio_queue_create(e, &qo, &q), -EINVAL);
  EXPECT_TRUE(Contains(hio_last_error(), "hio_queue_opts.struct_size is 0"));
  EXPECT_TRUE(Contains(hio_last_error(), "hio_queue_opts_init"));
  hio_handle_opts ho{};
  hio_handle* h = nullptr;
  EXPECT_EQ(hio_handle_open(e, "emu:pcie4,size=1m", &ho, &h), -EINVAL);
  EXPECT_TRUE(Contains(hio_last_error(), "hio_handle_opts.struct_size is 0"));

  hio_queue_opts_init(&qo, sizeof qo);
  ASSERT_EQ(hio_queue_create(e, &qo, &q), 0) << hio_last_error();
  hio_open_opts oo{};
  EXPECT_EQ(hio_queue_open(q, "emu:pcie4,size=1m", &oo), -EINVAL);
  EXPECT_TRUE(Contains(hio_last_error(), "hio_open_opts.struct_size is 0"));
  int t = hio_queue_open(q, "emu:pcie4,size=1m", nullptr);  // NULL: every default
  ASSERT_GE(t, 0) << hio_last_error();
  // A struct the library fills in: 0 refused, naming it (it has no init).
  hio_queue_stats st{};
  EXPECT_EQ(hio_queue_stats_get(q, &st), -EINVAL);
  EXPECT_TRUE(Contains(hio_last_error(), "hio_queue_stats.struct_size is 0: set it to sizeof(hio_queue_stats)"));
  hio_target_info info{};
  EXPECT_EQ(hio_target_info_get(q, t, &info), -EINVAL);
  info.struct_size = sizeof info;
  EXPECT_EQ(hio_target_info_get(q, t, &info), 0);
  EXPECT_EQ(info.size, 1u << 20);
  hio_queue_destroy(q);
  hio_engine_destroy(e);
}

// T as its init function leaves it, over memory that held garbage.
template <class T>
T initialised(void (*init)(T*, size_t)) {
  T o;
  std::memset(&o, 0xff, sizeof o);
  init(&o, sizeof o);
  return o;
}

TEST(Abi, InitFunctionsGiveTheDocumentedDefaults) {
  hio_queue_opts qo = initialised(hio_queue_opts_init);
  EXPECT_EQ(qo.struct_size, sizeof qo);
  EXPECT_EQ(qo.depth, 64u);
  EXPECT_EQ(qo.flags, 0u);
  EXPECT_EQ(qo.strategy.mode, HIO_WAIT_INTERRUPT);

  hio_handle_opts ho = initialised(hio_handle_opts_init);
  EXPECT_EQ(ho.struct_size, sizeof ho);
  EXPECT_EQ(ho.open.struct_size, sizeof ho.open);
  EXPECT_EQ(ho.depth, 64u);
  EXPECT_EQ(ho.queue, nullptr);
  EXPECT_EQ(ho.cache, nullptr);
  EXPECT_EQ(ho.reaper, nullptr);
  EXPECT_EQ(ho.readahead, HIO_READAHEAD_AUTO);

  hio_reaper_opts ro = initialised(hio_reaper_opts_init);
  EXPECT_EQ(ro.struct_size, sizeof ro);
  EXPECT_EQ(ro.poll_period_ns, HIO_POLL_PERIOD_AUTO);
  EXPECT_EQ(ro.cpu, -1);

  hio_open_opts oo = initialised(hio_open_opts_init);
  EXPECT_EQ(oo.struct_size, sizeof oo);
  EXPECT_EQ(oo.flags, 0u);
  EXPECT_EQ(oo.size, 0u);

  // An older program's smaller struct: filled no further than its size.
  struct {
    hio_open_opts o;
    uint64_t guard;
  } box;
  std::memset(&box, 0xab, sizeof box);
  hio_open_opts_init(&box.o, offsetof(hio_open_opts, size));
  EXPECT_EQ(box.o.struct_size, offsetof(hio_open_opts, size));
  EXPECT_EQ(box.o.flags, 0u);
  EXPECT_EQ(box.guard, 0xababababababababull);
  uint64_t untouched;
  std::memset(&untouched, 0xab, sizeof untouched);
  EXPECT_EQ(box.o.size, untouched);
}

}  // namespace
