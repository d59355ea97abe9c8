/* SPDX-License-Identifier: MIT */
/* The engine's option table, in fio's own option language, so that fio's
 * parser checks names and values and prints its usual errors. */
#include "options.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "fio.h"
#include "optgroup.h"

#define HIO_OPT(field) offsetof(struct hio_fio_options, field)

struct fio_option hio_fio_option_table[] = {
    {
        .name = "hio_completion",
        .lname = "hybridio completion",
        .type = FIO_OPT_STR,
        .off1 = HIO_OPT(completion),
        .help = "How hybridio waits for completions",
        .def = "interrupt",
        .posval =
            {
                {.ival = "interrupt", .oval = HIO_WAIT_INTERRUPT, .help = "block in the kernel"},
                {.ival = "poll", .oval = HIO_WAIT_POLL, .help = "spin on the completion ring"},
                {.ival = "hybrid", .oval = HIO_WAIT_HYBRID, .help = "sleep, then spin"},
                {.ival = "iopoll", .oval = HIO_WAIT_IOPOLL, .help = "the kernel polls the device"},
                {.ival = "hybrid_iopoll", .oval = HIO_WAIT_HYBRID_IOPOLL, .help = "kernel hybrid polling"},
                {.ival = "sqpoll", .oval = HIO_WAIT_SQPOLL, .help = "a kernel thread polls submissions"},
                {.ival = "adaptive", .oval = HIO_WAIT_ADAPTIVE, .help = "chosen continuously from contention"},
            },
        .category = FIO_OPT_C_ENGINE,
        .group = FIO_OPT_G_INVALID,
    },
    {
        .name = "hio_adaptive_objective",
        .lname = "hybridio adaptive objective",
        .type = FIO_OPT_STR,
        .off1 = HIO_OPT(objective),
        .help = "adaptive: what to maximise beside other tenants",
        .def = "shared",
        .posval =
            {
                {.ival = "shared", .oval = HIO_OBJECTIVE_SHARED, .help = "both tenants' combined progress"},
                {.ival = "own", .oval = HIO_OBJECTIVE_OWN, .help = "this job's throughput"},
            },
        .category = FIO_OPT_C_ENGINE,
        .group = FIO_OPT_G_INVALID,
    },
    {
        .name = "hio_hybrid_sleep_us",
        .lname = "hybridio hybrid sleep",
        .type = FIO_OPT_INT,
        .off1 = HIO_OPT(hybrid_sleep_us),
        .help = "hybrid: sleep this long before polling (0: half the moving-average latency)",
        .def = "0",
        .category = FIO_OPT_C_ENGINE,
        .group = FIO_OPT_G_INVALID,
    },
    {
        .name = "hio_emu",
        .lname = "hybridio emulated SSD",
        .type = FIO_OPT_STR_STORE,
        .off1 = HIO_OPT(emu),
        .help = "Each of the job's files is an emulated SSD of this spec (pcie3, pcie4, optane, nand, "
                "lat_us=N,iops=N,...); no file is created",
        .category = FIO_OPT_C_ENGINE,
        .group = FIO_OPT_G_INVALID,
    },
    {
        .name = "hio_emulate",
        .lname = "hybridio emulated timing",
        .type = FIO_OPT_STR_STORE,
        .off1 = HIO_OPT(emulate),
        .help = "Give the job's real files an emulated SSD's timing (spec as for hio_emu)",
        .category = FIO_OPT_C_ENGINE,
        .group = FIO_OPT_G_INVALID,
    },
    {
        .name = "hio_cache_mb",
        .lname = "hybridio cache size",
        .type = FIO_OPT_INT,
        .off1 = HIO_OPT(cache_mb),
        .help = "A block cache of this many MiB for the job (0: none)",
        .def = "0",
        .category = FIO_OPT_C_ENGINE,
        .group = FIO_OPT_G_INVALID,
    },
    {
        .name = "hio_cache_policy",
        .lname = "hybridio cache policy",
        .type = FIO_OPT_STR,
        .off1 = HIO_OPT(cache_policy),
        .help = "How the cache takes writes",
        .def = "writethrough",
        .posval =
            {
                {.ival = "writethrough", .oval = HIO_CACHE_WRITE_THROUGH, .help = "a write reaches the device first"},
                {.ival = "writeback", .oval = HIO_CACHE_WRITE_BACK, .help = "writes complete in the cache"},
            },
        .category = FIO_OPT_C_ENGINE,
        .group = FIO_OPT_G_INVALID,
    },
    {
        .name = "hio_readahead",
        .lname = "hybridio read-ahead",
        .type = FIO_OPT_STR,
        .off1 = HIO_OPT(readahead),
        .help = "With a cache: read ahead",
        .def = "auto",
        .posval =
            {
                {.ival = "auto", .oval = HIO_READAHEAD_AUTO, .help = "on sequential streams"},
                {.ival = "off", .oval = HIO_READAHEAD_OFF, .help = "never"},
                {.ival = "on", .oval = HIO_READAHEAD_ON, .help = "on every miss"},
            },
        .category = FIO_OPT_C_ENGINE,
        .group = FIO_OPT_G_INVALID,
    },
    {
        .name = "hio_queue",
        .lname = "hybridio queues",
        .type = FIO_OPT_STR,
        .off1 = HIO_OPT(queue),
        .help = "The job's queues",
        .def = "dedicated",
        .posval =
            {
                {.ival = "dedicated", .oval = HIO_FIO_QUEUE_DEDICATED, .help = "one queue for everything"},
                {.ival = "split_rw", .oval = HIO_FIO_QUEUE_SPLIT_RW, .help = "one for reads, one for writes"},
            },
        .category = FIO_OPT_C_ENGINE,
        .group = FIO_OPT_G_INVALID,
    },
    {
        .name = "hio_reaper",
        .lname = "hybridio reaper",
        .type = FIO_OPT_STR,
        .off1 = HIO_OPT(reaper),
        .help = "Who reaps the job's queues",
        .def = "self",
        .posval =
            {
                {.ival = "self", .oval = HIO_FIO_REAPER_SELF, .help = "the job's thread"},
                {.ival = "thread", .oval = HIO_FIO_REAPER_THREAD, .help = "a completion thread"},
            },
        .category = FIO_OPT_C_ENGINE,
        .group = FIO_OPT_G_INVALID,
    },
    {
        .name = "hio_poll_period_us",
        .lname = "hybridio polling period",
        .type = FIO_OPT_STR_STORE,
        .off1 = HIO_OPT(poll_period_us),
        .help = "The completion thread's period between reaps: auto, or microseconds (0 spins)",
        .def = "auto",
        .category = FIO_OPT_C_ENGINE,
        .group = FIO_OPT_G_INVALID,
    },
    {
        .name = "hio_reaper_cpu",
        .lname = "hybridio reaper CPU",
        .type = FIO_OPT_INT,
        .off1 = HIO_OPT(reaper_cpu),
        .help = "Pin the completion thread to this CPU (-1: any)",
        .def = "-1",
        .minval = -1,
        .category = FIO_OPT_C_ENGINE,
        .group = FIO_OPT_G_INVALID,
    },
    {
        .name = "hio_handle_priority",
        .lname = "hybridio handle priority",
        .type = FIO_OPT_STR,
        .off1 = HIO_OPT(handle_priority),
        .help = "high: queues of the job's own, reaped first by a completion thread",
        .def = "normal",
        .posval =
            {
                {.ival = "normal", .oval = HIO_FIO_PRIORITY_NORMAL, .help = "normal priority"},
                {.ival = "high", .oval = HIO_FIO_PRIORITY_HIGH, .help = "reaped first"},
            },
        .category = FIO_OPT_C_ENGINE,
        .group = FIO_OPT_G_INVALID,
    },
    {
        .name = "hio_stats_json",
        .lname = "hybridio statistics file",
        .type = FIO_OPT_STR_STORE,
        .off1 = HIO_OPT(stats_json),
        .help = "Append the job's hybridio figures to this file, one JSON object a line",
        .category = FIO_OPT_C_ENGINE,
        .group = FIO_OPT_G_INVALID,
    },
    {.name = NULL},
};

int hio_fio_wants_handles(const struct hio_fio_options *o) {
  return o->cache_mb > 0 || o->queue != HIO_FIO_QUEUE_DEDICATED || o->reaper != HIO_FIO_REAPER_SELF ||
         o->handle_priority != HIO_FIO_PRIORITY_NORMAL;
}

hio_strategy hio_fio_strategy(const struct hio_fio_options *o) {
  hio_strategy s;
  hio_strategy_init(&s, sizeof(s));
  s.mode = (hio_wait_mode)o->completion;
  s.hybrid_sleep_ns = (uint64_t)o->hybrid_sleep_us * 1000;
  s.objective = (hio_objective)o->objective;
  return s;
}

uint64_t hio_fio_poll_period_ns(const struct hio_fio_options *o, int *bad) {
  *bad = 0;
  if (!o->poll_period_us || !strcmp(o->poll_period_us, "auto")) return HIO_POLL_PERIOD_AUTO;
  char *end = NULL;
  unsigned long long us = strtoull(o->poll_period_us, &end, 10);
  if (end == o->poll_period_us || *end || o->poll_period_us[0] == '-' || us > 10000000ull) {
    *bad = 1;
    return 0;
  }
  return (uint64_t)us * 1000;
}
