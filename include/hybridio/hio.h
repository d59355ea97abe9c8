/* SPDX-License-Identifier: MIT */
/* hybridio public C API.
 *
 * An engine owns the emulated devices shared by its queues. A queue is one
 * submission/completion ring; a dedicated queue is used by one thread at a
 * time and takes no lock, a shared queue (HIO_QUEUE_SHARED) takes a lock on
 * every call. Targets (files, block devices, emulated SSDs) are opened on a
 * queue. I/O is submitted asynchronously with a user tag and reaped under the
 * queue's wait strategy, which may change at any time.
 *
 * Every function that can fail returns a negative errno value; hio_last_error()
 * then holds a one-line message for the calling thread.
 *
 * Names: hio_<object>_<verb>. A function that reads a value of an object is
 * hio_<object>_<value>_get, one that changes it hio_<object>_<value>_set.
 * What the adaptive strategy sees, for tools and research, is in
 * <hybridio/hio_adaptive.h>. */
#ifndef HYBRIDIO_HIO_H
#define HYBRIDIO_HIO_H

#include <hybridio/version.h> /* HIO_VERSION_MAJOR, _MINOR, _PATCH, _STRING */
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The library is built with hidden visibility: only what is marked HIO_API
 * (the functions below) is exported. */
#if defined(__GNUC__)
#define HIO_API __attribute__((visibility("default")))
#else
#define HIO_API
#endif

typedef struct hio_engine hio_engine;
typedef struct hio_queue hio_queue;

/* Structs that may grow start with struct_size: set it to sizeof the struct
 * as you compiled it. The options' hio_*_opts_init functions do, with the
 * defaults; for the structs the library fills in (statistics, target
 * information, the adaptive view) set it yourself. 0 is refused (-EINVAL,
 * naming the struct). The library reads and writes only that many bytes, so
 * a program built against an older hio.h keeps working with a newer
 * library; one built against a newer hio.h is refused (-EINVAL) if it sets
 * fields this library does not know. A struct inside another (the open
 * options in hio_handle_opts) goes with the outer struct's struct_size. */

/* ---- errors ---------------------------------------------------------- */

/* Message of the last failed call on this thread ("" if none). The string
 * belongs to the calling thread and stays valid until that thread's next
 * failing hybridio call or its exit: copy it to keep it. */
HIO_API const char *hio_last_error(void);
HIO_API const char *hio_version(void);
/* 0 if the library loaded is of major version `major` and at least
 * major.minor, else -ENOTSUP with a message naming both versions: a program
 * calls it with the HIO_VERSION_MAJOR and HIO_VERSION_MINOR it was built
 * with before relying on what that version brought. */
HIO_API int hio_version_check(int major, int minor);

/* ---- engine ---------------------------------------------------------- */

HIO_API int hio_engine_create(hio_engine **out);
/* Queues must be destroyed first. */
HIO_API void hio_engine_destroy(hio_engine *e);

/* Gives file targets an emulated SSD's timing: the I/O is done on the file,
 * and each completion is held until the device spec would have finished it.
 * It applies to the queues of this engine (and handles' own queues) that
 * open their first target from now on: a queue's timing is fixed when its
 * first target opens. spec is what follows "emu:" (e.g. "pcie4" or
 * "lat_us=10,iops=400000"; see docs/emulated-ssd.md); fail_offset,
 * short_offset and fail_op inject faults into every file it serves, and
 * fail_rate, corrupt_offset, size and lba are refused. One device model serves all those queues and files, so
 * its channels and IOPS ceiling are shared. Kernel-side wait modes cannot
 * wait on such a target. NULL or "": later queues keep files' own timing. */
HIO_API int hio_engine_emulate(hio_engine *e, const char *spec);

/* ---- wait strategies ------------------------------------------------- */

typedef enum hio_wait_mode {
  HIO_WAIT_INTERRUPT = 0, /* block in the kernel until a completion arrives */
  HIO_WAIT_POLL = 1,      /* spin on the completion ring, never sleep */
  HIO_WAIT_HYBRID = 2,    /* sleep, then spin */
  /* Kernel-side modes: fixed when the queue's ring is created (first open);
   * they need a device with kernel poll queues (except SQPOLL). */
  HIO_WAIT_IOPOLL = 3,        /* IORING_SETUP_IOPOLL: the kernel polls the device */
  HIO_WAIT_HYBRID_IOPOLL = 4, /* IORING_SETUP_HYBRID_IOPOLL (Linux >= 6.13) */
  HIO_WAIT_SQPOLL = 5,        /* a kernel thread polls the submission ring */
  /* Chooses interrupt, poll or hybrid per queue, continuously, from the CPU
   * contention it measures, the device's latency and the I/O size
   * (docs/adaptive.md). */
  HIO_WAIT_ADAPTIVE = 6
} hio_wait_mode;

/* The length of the per-mode arrays of the statistics and the adaptive
 * view, indexed by hio_wait_mode: the modes adaptive chooses among today
 * are the first three (interrupt, poll, hybrid); the others read 0, room
 * for modes it may choose among later without a change of layout. */
#define HIO_ADAPTIVE_MODES_MAX 8

/* ADAPTIVE only: what it maximises beside other tenants of its cores, and
 * alone for a queue that waits less than half the time (OWN polls, SHARED
 * takes the cheapest mode within polling's latency). */
typedef enum hio_objective {
  HIO_OBJECTIVE_SHARED = 0, /* both tenants' combined progress, each relative to alone */
  HIO_OBJECTIVE_OWN = 1     /* this queue's own throughput */
} hio_objective;

typedef struct hio_strategy {
  /* sizeof(hio_strategy) as compiled; hio_strategy_init sets it. Inside
   * options it is not read (theirs says the layout) and may be 0. */
  size_t struct_size;
  hio_wait_mode mode;
  /* HYBRID only: a fixed sleep if > 0, else hybrid_fraction x the queue's
   * moving-average completion latency (0 means Linux's 0.5). */
  uint64_t hybrid_sleep_ns;
  double hybrid_fraction;
  hio_objective objective; /* ADAPTIVE only; 0 is HIO_OBJECTIVE_SHARED */
  /* Zero. Room for fields a later version adds without moving those of the
   * options that embed a strategy. */
  uint32_t reserved[7];
} hio_strategy;

/* The defaults: interrupt, Linux's hybrid fraction, the shared objective.
 * size: sizeof *s. The options that embed a strategy fill it in too. */
HIO_API void hio_strategy_init(hio_strategy *s, size_t size);

/* "interrupt", "poll", "hybrid", "iopoll", "hybrid_iopoll", "sqpoll", "adaptive". */
HIO_API const char *hio_wait_mode_name(hio_wait_mode m);
/* Returns 0 and sets *out, or -EINVAL naming the bad string. */
HIO_API int hio_wait_mode_parse(const char *name, hio_wait_mode *out);
/* "shared", "own". */
HIO_API const char *hio_objective_name(hio_objective o);
/* Returns 0 and sets *out, or -EINVAL naming the bad string. */
HIO_API int hio_objective_parse(const char *name, hio_objective *out);

/* ---- queues ---------------------------------------------------------- */

#define HIO_QUEUE_SHARED 0x1u /* several threads may call it: takes a lock */

typedef struct hio_queue_opts {
  size_t struct_size; /* sizeof(hio_queue_opts) as compiled */
  unsigned depth;     /* max commands in flight (1..4096) */
  unsigned flags;     /* HIO_QUEUE_* */
  hio_strategy strategy;
} hio_queue_opts;

/* The defaults: depth 64, no flags, waiting by interrupt. size: sizeof *o. */
HIO_API void hio_queue_opts_init(hio_queue_opts *o, size_t size);

HIO_API int hio_queue_create(hio_engine *e, const hio_queue_opts *opts, hio_queue **out);
/* Waits for the commands still in flight (their completions are dropped),
 * then frees the queue and closes its targets. */
HIO_API void hio_queue_destroy(hio_queue *q);

/* Takes effect at the next reap; in-flight commands are unaffected.
 * Kernel-side modes cannot be entered or left once the ring exists. */
HIO_API int hio_queue_strategy_set(hio_queue *q, const hio_strategy *s);
HIO_API int hio_queue_strategy_get(hio_queue *q, hio_strategy *out);

/* ---- targets --------------------------------------------------------- */

#define HIO_OPEN_DIRECT 0x1u /* O_DIRECT: bypass the page cache */
#define HIO_OPEN_CREATE 0x2u /* create a missing regular file of opts->size */
#define HIO_OPEN_RDONLY 0x4u

typedef struct hio_open_opts {
  size_t struct_size; /* sizeof(hio_open_opts) as compiled */
  unsigned flags;     /* HIO_OPEN_* */
  /* Size of a created file, or capacity of an emulated device whose spec
   * names none (0: 1 GiB). */
  uint64_t size;
} hio_open_opts;

/* The defaults: no flags (buffered, an existing target, read and write). */
HIO_API void hio_open_opts_init(hio_open_opts *o, size_t size);

typedef struct hio_target_info {
  size_t struct_size;    /* sizeof(hio_target_info) as compiled */
  uint64_t size;         /* bytes */
  uint32_t offset_align; /* offset and length must be multiples of this */
  uint32_t mem_align;    /* buffers must be aligned to this */
  int emulated;          /* 1 for the emulated SSD */
  int growable;          /* 1 for a regular file: writes may extend it */
  const char *backend;   /* "uring" or "emu" */
} hio_target_info;

/* spec: a path, or "emu:PROFILE[,key=value...]" (see docs/emulated-ssd.md).
 * Returns a target id >= 0. The first target fixes the queue's backend. */
HIO_API int hio_queue_open(hio_queue *q, const char *spec, const hio_open_opts *opts);
/* Which backend serves spec: "emu" (emu:...) or "uring" (a path). A queue
 * serves one backend. */
HIO_API const char *hio_spec_backend(const char *spec);
HIO_API int hio_target_info_get(hio_queue *q, int target, hio_target_info *out);

/* Registers one memory region with the queue so that I/O inside it skips
 * the kernel's per-I/O page pinning (io_uring fixed buffers). Optional. */
HIO_API int hio_queue_register_buffer(hio_queue *q, void *base, size_t len);

/* ---- asynchronous I/O ------------------------------------------------ */

typedef enum hio_op { HIO_OP_READ = 0, HIO_OP_WRITE = 1, HIO_OP_FLUSH = 2 } hio_op;

typedef struct hio_io {
  hio_op op;
  int target;
  void *buf;    /* unused for FLUSH */
  uint32_t len; /* unused for FLUSH */
  uint64_t offset;
  /* Returned in the completion. Bit 63 is the library's: its synchronous
   * calls tag their own commands with it set, so a program's tags leave it
   * clear (one equal to the library's would be taken for it). */
  uint64_t tag;
  /* Zero (a command with any set is refused): room for per-command options
   * a later version adds, as io_uring's SQE keeps. */
  uint64_t reserved[3];
} hio_io;

typedef struct hio_completion {
  uint64_t tag;
  int32_t res; /* bytes transferred, or -errno */
  hio_op op;
  int target;
  uint64_t offset;
  uint32_t len;
  uint64_t lat_ns;      /* submission to reap */
  uint64_t reserved[2]; /* zero: room for what a later version reports */
} hio_completion;

/* Leave the commands in the submission ring; the next hio_reap (or a
 * submit without this flag) hands them to the device, in the same system
 * call as the wait where the strategy allows. */
#define HIO_SUBMIT_DEFER 0x1u

/* Returns the number of commands accepted (all of them) or -errno:
 * -EBUSY when the queue is full, -EINVAL for a bad command (alignment,
 * range, target), with the message naming the value. */
HIO_API int hio_submit(hio_queue *q, const hio_io *ios, unsigned n, unsigned flags);

/* Waits, under the queue's strategy, until at least min_complete commands
 * have completed (min_complete 0: never waits), and returns up to max of
 * them. Returns the number returned, or -errno. An I/O error is not a
 * failure of hio_reap: it is reported in the completion's res. */
HIO_API int hio_reap(hio_queue *q, hio_completion *out, unsigned max, unsigned min_complete);

/* Commands submitted and not yet reaped. */
HIO_API unsigned hio_queue_inflight_get(hio_queue *q);

/* Synchronous helpers: submit one command and wait for it. They return the
 * byte count (0 for flush) or -errno, with a message naming the operation,
 * target, offset and errno. A short write is -EIO. A read may cover the last,
 * partial 4 KiB page of a regular file and then returns the bytes up to the
 * end of the file. */
HIO_API int64_t hio_read(hio_queue *q, int target, void *buf, uint32_t len, uint64_t offset);
HIO_API int64_t hio_write(hio_queue *q, int target, const void *buf, uint32_t len, uint64_t offset);
HIO_API int hio_flush(hio_queue *q, int target);

/* One line naming the operation, target, offset and errno of a failed
 * completion, e.g. "read at offset 4096 of emu:pcie4: Input/output error (errno 5)". */
HIO_API int hio_completion_describe(hio_queue *q, const hio_completion *c, char *buf, size_t len);

/* ---- statistics ------------------------------------------------------ */

typedef struct hio_lat_summary {
  uint64_t count;
  uint64_t min_ns, max_ns;
  double mean_ns, stddev_ns;
} hio_lat_summary;

typedef struct hio_queue_stats {
  size_t struct_size; /* sizeof(hio_queue_stats) as compiled */
  uint64_t submitted, completed, errors;
  uint64_t read_ios, read_bytes, write_ios, write_bytes, flush_ios;
  uint64_t sleep_ns;     /* time blocked in the kernel or asleep */
  uint64_t spin_ns;      /* time spinning on the completion ring */
  uint64_t waits;        /* reaps that had to wait */
  uint64_t mode_changes; /* strategy changes */
  uint64_t wall_ns;      /* since creation or the last reset */
  uint64_t cpu_ns;       /* CPU time of the queue's owner thread, same span */
  double cpu_us_per_io;  /* cpu_ns / completed, in microseconds */
  hio_lat_summary read_lat, write_lat;
  /* ADAPTIVE: time spent in interrupt, poll and hybrid (indexed by
   * hio_wait_mode), settled-mode switches, probes of the other modes. */
  uint64_t adaptive_ns[HIO_ADAPTIVE_MODES_MAX];
  uint64_t adaptive_switches, adaptive_probes;
} hio_queue_stats;

HIO_API int hio_queue_stats_get(hio_queue *q, hio_queue_stats *out);
/* Zeroes the counters and histograms, and makes the calling thread the
 * owner whose CPU time is accounted. */
HIO_API int hio_queue_stats_reset(hio_queue *q);
/* Latency percentiles (pcts in 0..100) of reads or writes, fio-style. */
HIO_API int hio_queue_percentiles_get(hio_queue *q, hio_op op, const double *pcts, size_t n, uint64_t *out_ns);

/* ---- block cache ----------------------------------------------------- */

/* 4 KiB pages in a bounded, scan-resistant cache (segmented LRU) that one
 * handle or several use; handles on the same target share its pages. */
typedef struct hio_cache hio_cache;

typedef enum hio_cache_write {
  HIO_CACHE_WRITE_THROUGH = 0, /* a write reaches the device before it completes */
  HIO_CACHE_WRITE_BACK = 1     /* a write completes in the cache; flush makes it durable */
} hio_cache_write;

/* bytes: the capacity (>= 4096). */
HIO_API int hio_cache_create(uint64_t bytes, hio_cache_write policy, hio_cache **out);
/* Handles using it must be closed first. */
HIO_API void hio_cache_destroy(hio_cache *c);

typedef struct hio_cache_stats {
  size_t struct_size;    /* sizeof(hio_cache_stats) as compiled */
  uint64_t hits, misses; /* page lookups by reads */
  uint64_t fills;        /* pages installed from device reads */
  uint64_t stale_fills;  /* device reads not installed: a write came after them */
  uint64_t evictions, writebacks;
  uint64_t pages, dirty, capacity_pages;
} hio_cache_stats;
HIO_API int hio_cache_stats_get(hio_cache *c, hio_cache_stats *out);

/* ---- completion thread ----------------------------------------------- */

/* A thread that reaps the queues of the handles bound to it, high-priority
 * handles' queues first, instead of each submitting thread reaping its own. */
typedef struct hio_reaper hio_reaper;

/* Poll period chosen from the I/O size, the observed latency and the
 * thread's CPU contention (docs/handles.md). */
#define HIO_POLL_PERIOD_AUTO UINT64_MAX

typedef struct hio_reaper_opts {
  size_t struct_size;      /* sizeof(hio_reaper_opts) as compiled */
  uint64_t poll_period_ns; /* between reaps; 0 spins; HIO_POLL_PERIOD_AUTO */
  int cpu;                 /* pin the thread to this CPU; -1: any */
} hio_reaper_opts;

/* The defaults: the automatic poll period, on any CPU. */
HIO_API void hio_reaper_opts_init(hio_reaper_opts *o, size_t size);

HIO_API int hio_reaper_create(const hio_reaper_opts *opts, hio_reaper **out);
/* Handles bound to it must be closed first. */
HIO_API void hio_reaper_destroy(hio_reaper *r);

typedef struct hio_reaper_stats {
  size_t struct_size;       /* sizeof(hio_reaper_stats) as compiled */
  uint64_t rounds;          /* passes over the queues */
  uint64_t sleeps;          /* poll-period sleeps between passes */
  uint64_t idle_waits;      /* waits for work with nothing in flight */
  uint64_t completions;     /* delivered to handles */
  uint64_t wall_ns, cpu_ns; /* since creation: the thread's CPU time */
  double period_ns_mean;    /* mean poll period slept between rounds */
  uint64_t period_ns;       /* the period now */
  double contention;        /* the thread's CPU contention, 0..1 */
} hio_reaper_stats;
HIO_API int hio_reaper_stats_get(hio_reaper *r, hio_reaper_stats *out);

/* ---- handles --------------------------------------------------------- */

/* A handle opens one target and binds it to queues: a dedicated queue of its
 * own (queue NULL), a queue shared with other handles (queue given), or a
 * queue for reads and another for writes and flushes (write_queue given), so
 * that a burst of writes cannot hold up reads. Any thread may call a handle;
 * completions go to whichever thread reaps it. A queue bound to handles is
 * used through them only. */
typedef struct hio_handle hio_handle;

#define HIO_HANDLE_HIGH_PRIORITY 0x1u /* queues of its own, reaped first */

typedef enum hio_readahead {
  HIO_READAHEAD_AUTO = 0, /* read ahead on streams detected as sequential */
  HIO_READAHEAD_OFF = 1,
  HIO_READAHEAD_ON = 2 /* every cache miss reads a window ahead */
} hio_readahead;

typedef struct hio_handle_opts {
  size_t struct_size; /* sizeof(hio_handle_opts) as compiled */
  hio_open_opts open;
  unsigned flags;          /* HIO_HANDLE_* */
  hio_queue *queue;        /* NULL: a dedicated queue of depth and strategy below */
  hio_queue *write_queue;  /* non-NULL: writes and flushes go here (needs queue) */
  unsigned depth;          /* a dedicated queue's (0: 64) */
  hio_strategy strategy;   /* a dedicated queue's */
  hio_cache *cache;        /* NULL: none, I/O aligned as the target needs; else whole 4 KiB pages */
  hio_readahead readahead; /* with a cache */
  hio_reaper *reaper;      /* NULL: the threads that call hio_handle_reap reap */
} hio_handle_opts;

/* The defaults: a dedicated queue of depth 64 waiting by interrupt, no
 * cache, automatic read-ahead, reaped by the calling threads. */
HIO_API void hio_handle_opts_init(hio_handle_opts *o, size_t size);

HIO_API int hio_handle_open(hio_engine *e, const char *spec, const hio_handle_opts *opts, hio_handle **out);
/* Waits for what is in flight, writes the handle's dirty cache pages back
 * and frees it (and its dedicated queues). Returns 0 or the -errno of that
 * write-back; the handle is freed either way. */
HIO_API int hio_handle_close(hio_handle *h);
HIO_API int hio_handle_target_info_get(hio_handle *h, hio_target_info *out);

/* As hio_submit and hio_reap; io.target is ignored. A read served by the
 * cache, or a write-back write, completes at once (seen by the next reap).
 * hio_handle_submit checks every command first (-EINVAL, none submitted);
 * if the queue then refuses one (full, -EBUSY, or a device error) after
 * others were accepted, it returns how many were: the rest were not
 * submitted, and submitting them again gives the error. */
HIO_API int hio_handle_submit(hio_handle *h, const hio_io *ios, unsigned n);
HIO_API int hio_handle_reap(hio_handle *h, hio_completion *out, unsigned max, unsigned min_complete);
HIO_API int64_t hio_handle_read(hio_handle *h, void *buf, uint32_t len, uint64_t offset);
HIO_API int64_t hio_handle_write(hio_handle *h, const void *buf, uint32_t len, uint64_t offset);
/* Writes the handle's dirty cache pages, then flushes the device. */
HIO_API int hio_handle_flush(hio_handle *h);
HIO_API int hio_handle_completion_describe(hio_handle *h, const hio_completion *c, char *buf, size_t len);

typedef struct hio_handle_stats {
  size_t struct_size; /* sizeof(hio_handle_stats) as compiled */
  uint64_t submitted, completed, errors;
  uint64_t read_ios, read_bytes, write_ios, write_bytes, flush_ios;
  hio_lat_summary read_lat, write_lat;     /* from hio_handle_submit to reap */
  uint64_t cache_hits, cache_misses;       /* this handle's reads, in pages */
  uint64_t readahead_ios, readahead_pages; /* device reads that read ahead */
  uint64_t lock_wait_ns, lock_waits;       /* waiting for its queues' lock */
  unsigned queues;                         /* 1, or 2 when reads and writes are apart */
} hio_handle_stats;
HIO_API int hio_handle_stats_get(hio_handle *h, hio_handle_stats *out);
/* Zeroes the counters, histograms and its queues' statistics. */
HIO_API int hio_handle_stats_reset(hio_handle *h);
HIO_API int hio_handle_percentiles_get(hio_handle *h, hio_op op, const double *pcts, size_t n, uint64_t *out_ns);
/* Which of a handle's queues: the one its reads go to, or its writes and
 * flushes (the same queue unless the handle splits them). */
typedef enum hio_handle_queue_role { HIO_HANDLE_READS = 0, HIO_HANDLE_WRITES = 1 } hio_handle_queue_role;
/* The handle's queue for that role, e.g. for hio_queue_stats_get or
 * hio_queue_adaptive_view_get; NULL for an unknown role. */
HIO_API hio_queue *hio_handle_queue_get(hio_handle *h, hio_handle_queue_role role);

#ifdef __cplusplus
}
#endif
#endif
