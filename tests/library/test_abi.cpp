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
static_assert(sizeof(hio_strategy) == 64);
static_assert(sizeof(hio_queue_opts) == 80);
static_assert(sizeof(hio_open_opts) == 24);
static_assert(sizeof(hio_target_info) == 40);
static_assert(sizeof(hio_io) == 64);
static_assert(sizeof(hio_completion) == 64);
static_assert(sizeof(hio_lat_summary) == 40);
static_assert(sizeof(hio_queue_stats) == 288);
static_assert(sizeof(hio_cache_stats) == 80);
static_assert(sizeof(hio_reaper_opts) == 24);
static_assert(sizeof(hio_reaper_stats) == 80);
static_assert(sizeof(hio_handle_opts) == 152);
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

TEST(Abi, AStrategyPassedAloneMustBeInitialisedAndItsReservedFieldsZero) {
  hio_engine* e = nullptr;
  ASSERT_EQ(hio_engine_create(&e), 0);
  // Inside options the options' struct_size says the layout: the strategy's may be 0.
  hio_queue_opts qo;
  hio_queue_opts_init(&qo, sizeof qo);
  qo.strategy = hio_strategy{};
  qo.strategy.mode = HIO_WAIT_POLL;
  hio_queue* q = nullptr;
  ASSERT_EQ(hio_queue_create(e, &qo, &q), 0) << hio_last_error();
  hio_queue_destroy(q);

  hio_handle_opts ho;
  hio_handle_opts_init(&ho, sizeof ho);
  ho.strategy.reserved[6] = 1;
  hio_handle* h = nullptr;
  EXPECT_EQ(hio_handle_open(e, "emu:pcie4,size=1m", &ho, &h), -EINVAL);
  EXPECT_TRUE(Contains(hio_last_error(), "hio_handle_opts.strategy: its reserved fields are not zero"));

  hio_queue_opts_init(&qo, sizeof qo);
  ASSERT_EQ(hio_queue_create(e, &qo, &q), 0) << hio_last_error();
  hio_strategy s{};
  s.mode = HIO_WAIT_POLL;
  EXPECT_EQ(hio_queue_strategy_set(q, &s), -EINVAL);
  EXPECT_TRUE(Contains(hio_last_error(), "hio_strategy.struct_size is 0"));
  hio_strategy got{};
  EXPECT_EQ(hio_queue_strategy_get(q, &got), -EINVAL);
  hio_strategy_init(&s, sizeof s);
  s.mode = HIO_WAIT_POLL;
  ASSERT_EQ(hio_queue_strategy_set(q, &s), 0) << hio_last_error();
  got.struct_size = sizeof got;
  ASSERT_EQ(hio_queue_strategy_get(q, &got), 0);
  EXPECT_EQ(got.mode, HIO_WAIT_POLL);
  EXPECT_EQ(got.struct_size, sizeof got);
  hio_queue_destroy(q);
  hio_engine_destroy(e);
}

TEST(Abi, ACommandWithReservedFieldsSetIsRefusedAndNothingIsSubmitted) {
  hio_engine* e = nullptr;
  ASSERT_EQ(hio_engine_create(&e), 0);
  hio_queue_opts qo;
  hio_queue_opts_init(&qo, sizeof qo);
  hio_queue* q = nullptr;
  ASSERT_EQ(hio_queue_create(e, &qo, &q), 0) << hio_last_error();
  int t = hio_queue_open(q, "emu:pcie4,size=1m", nullptr);
  ASSERT_GE(t, 0) << hio_last_error();
  alignas(4096) static char buf[2][4096];
  hio_io ios[2] = {{HIO_OP_READ, t, buf[0], 4096, 0, 1}, {HIO_OP_READ, t, buf[1], 4096, 4096, 2}};
  ios[1].reserved[2] = 7;
  EXPECT_EQ(hio_submit(q, ios, 2, 0), -EINVAL);
  EXPECT_TRUE(Contains(hio_last_error(), "command 1 (tag 2): its reserved fields are not zero"));
  EXPECT_EQ(hio_queue_inflight_get(q), 0u);
  ios[1].reserved[2] = 0;
  ASSERT_EQ(hio_submit(q, ios, 2, 0), 2) << hio_last_error();
  hio_completion c[2];
  std::memset(c, 0xff, sizeof c);
  ASSERT_EQ(hio_reap(q, c, 2, 2), 2);
  for (const hio_completion& x : c) {
    EXPECT_EQ(x.res, 4096);
    for (uint64_t r : x.reserved) EXPECT_EQ(r, 0u) << "the library leaves a completion's reserved fields zero";
  }
  hio_queue_destroy(q);

  hio_handle_opts ho;
  hio_handle_opts_init(&ho, sizeof ho);
  hio_handle* h = nullptr;
  ASSERT_EQ(hio_handle_open(e, "emu:pcie4,size=1m", &ho, &h), 0) << hio_last_error();
  hio_io one{HIO_OP_READ, 0, buf[0], 4096, 0, 3};
  one.reserved[0] = 1;
  EXPECT_EQ(hio_handle_submit(h, &one, 1), -EINVAL);
  EXPECT_TRUE(Contains(hio_last_error(), "command 0 (tag 3)"));
  hio_handle_close(h);
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
  EXPECT_EQ(qo.strategy.struct_size, sizeof qo.strategy);
  EXPECT_EQ(qo.strategy.mode, HIO_WAIT_INTERRUPT);

  hio_strategy so = initialised(hio_strategy_init);
  EXPECT_EQ(so.struct_size, sizeof so);
  EXPECT_EQ(so.mode, HIO_WAIT_INTERRUPT);
  EXPECT_EQ(so.hybrid_sleep_ns, 0u);
  EXPECT_EQ(so.hybrid_fraction, 0.0);
  EXPECT_EQ(so.objective, HIO_OBJECTIVE_SHARED);
  for (uint32_t r : so.reserved) EXPECT_EQ(r, 0u);

  hio_handle_opts ho = initialised(hio_handle_opts_init);
  EXPECT_EQ(ho.struct_size, sizeof ho);
  EXPECT_EQ(ho.open.struct_size, sizeof ho.open);
  EXPECT_EQ(ho.strategy.struct_size, sizeof ho.strategy);
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
