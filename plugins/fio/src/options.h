/* SPDX-License-Identifier: MIT */
/* The engine's job options: each is hio-bench's option of the same name
 * after the hio_ prefix, so that it cannot clash with fio's own. */
#ifndef HYBRIDIO_FIO_OPTIONS_H
#define HYBRIDIO_FIO_OPTIONS_H

#include <hybridio/hio.h>

#include "parse.h"

enum hio_fio_queue { HIO_FIO_QUEUE_DEDICATED = 0, HIO_FIO_QUEUE_SPLIT_RW = 1 };
enum hio_fio_reaper { HIO_FIO_REAPER_SELF = 0, HIO_FIO_REAPER_THREAD = 1 };
enum hio_fio_priority { HIO_FIO_PRIORITY_NORMAL = 0, HIO_FIO_PRIORITY_HIGH = 1 };

struct hio_fio_options {
  void *pad;      /* fio takes an option at offset 0 for "not stored" */
  int completion; /* hio_wait_mode */
  int objective;  /* hio_objective */
  unsigned int hybrid_sleep_us;
  char *emu;     /* diskless job: each file is an emulated SSD of this spec */
  char *emulate; /* real files with an emulated SSD's timing */
  unsigned int cache_mb;
  int cache_policy;     /* hio_cache_write */
  int readahead;        /* hio_readahead */
  int queue;            /* enum hio_fio_queue */
  int reaper;           /* enum hio_fio_reaper */
  char *poll_period_us; /* "auto" or microseconds */
  int reaper_cpu;       /* -1: any */
  int handle_priority;  /* enum hio_fio_priority */
  char *stats_json;     /* append one JSON line per job here */
};

extern struct fio_option hio_fio_option_table[];

/* The job goes through handles (docs/handles.md) rather than a bare queue:
 * any option that only a handle offers is set. */
int hio_fio_wants_handles(const struct hio_fio_options *o);

/* The strategy the options name. */
hio_strategy hio_fio_strategy(const struct hio_fio_options *o);

/* hio_poll_period_us as a hio_reaper_opts period; 0 and sets *bad for a
 * value that is neither "auto" nor a number. */
uint64_t hio_fio_poll_period_ns(const struct hio_fio_options *o, int *bad);

#endif
