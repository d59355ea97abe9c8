/* SPDX-License-Identifier: MIT */
/* hybridio as a fio ioengine: fio keeps its parser, job files, verify and
 * reports; hybridio submits the job's reads, writes and flushes and waits
 * for their completions under the job's strategy. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <hybridio/hio.h>
#include "fio.h"
#include "optgroup.h"

#include "options.h"
#include "report.h"

#ifndef HIO_FIO_HEADERS_VERSION
#error "HIO_FIO_HEADERS_VERSION: the version of the fio source whose headers this is built against"
#endif

/* The loading fio's version; weak so that a fio without it still loads us. */
extern const char fio_version_string[] __attribute__((weak));

/* One of the job's files; kept from its first open to the job's end,
 * since a bare queue cannot close one target alone. */
struct hio_fio_file {
  struct hio_fio_job *owner;
  const struct fio_file *file;
  int target;           /* bare queue: the target's id, -1 before the first open */
  hio_handle *handle;   /* through a handle: open between fio's open and close */
  hio_queue *queues[2]; /* split_rw: the handle's read and write queues */
  unsigned inflight;
};

struct hio_fio_job {
  const struct hio_fio_options *o;
  hio_engine *engine;
  hio_queue *queue; /* bare queue: every file's target is on it */
  hio_cache *cache;
  hio_reaper *reaper;
  int handles;
  int synchronous;        /* depth 1: each command is done in fio's queue call */
  int buffers_registered; /* bare queue: fio's I/O buffers, after the first open */
  unsigned depth, inflight, npending, nevents, nfailed;
  hio_io *pending; /* queued by fio, not yet submitted; the tag is the io_u */
  struct io_u **events;
  hio_completion *done;
  struct io_u **failed; /* refused at submission: returned by the next getevents */
  int told_failure;     /* the first failed command has been named */
  struct hio_fio_file **files;
  unsigned nfiles;
  struct hio_fio_figures figures; /* of handles' queues, taken as each closes */
};

static int fio_matches(void) {
  if (fio_version_string && !strcmp(fio_version_string, HIO_FIO_HEADERS_VERSION)) return 1;
  log_err(
      "fio: the hybridio engine was built against %s headers, but this fio is %s: rebuild it against "
      "this fio's source (scripts/fio-source.sh)\n",
      HIO_FIO_HEADERS_VERSION, fio_version_string ? fio_version_string : "of an unknown version");
  return 0;
}

static int fail(struct thread_data *td, int err, const char *what) {
  log_err("fio: hybridio: %s: %s\n", what, hio_last_error());
  td_verror(td, err, what);
  return 1;
}

static uint64_t emu_file_size(struct thread_data *td) {
  return td->o.size ? td->o.size / (td->o.nr_files ? td->o.nr_files : 1) : (1ull << 30);
}

/* Checks an emulated-SSD spec by opening it on a throw-away engine, before
 * fio forks its jobs; 0, or -errno with hio_last_error() set. */
static int check_spec(const char *spec, int as_timing) {
  hio_engine *e = NULL;
  int r = hio_engine_create(&e);
  if (r < 0) return r;
  if (as_timing) {
    r = hio_engine_emulate(e, spec);
  } else {
    hio_queue *q = NULL;
    hio_queue_opts qo;
    hio_queue_opts_init(&qo, sizeof(qo));
    qo.depth = 1;
    char full[512];
    snprintf(full, sizeof(full), "emu:%s", spec);
    hio_open_opts oo = {.struct_size = sizeof(hio_open_opts)};
    r = hio_queue_create(e, &qo, &q);
    if (r >= 0) r = hio_queue_open(q, full, &oo);
    if (q) hio_queue_destroy(q);
  }
  hio_engine_destroy(e);
  return r < 0 ? r : 0;
}

static int hio_fio_get_file_size(struct thread_data *td, struct fio_file *f) {
  const struct hio_fio_options *o = td->eo;
  if (!o->emu) return generic_get_file_size(td, f);
  if (!fio_file_size_known(f)) {
    f->real_file_size = emu_file_size(td);
    fio_file_set_size_known(f);
  }
  return 0;
}

/* Runs before fio lays out files, in the process that forks the jobs: it
 * checks what fio's parser cannot, and sizes the files. */
static int hio_fio_setup(struct thread_data *td) {
  if (!fio_matches()) return 1;
  const struct hio_fio_options *o = td->eo;
  if (o->emu && o->emulate) {
    log_err(
        "fio: hio_emu=%s and hio_emulate=%s: a job's files are either emulated SSDs or real files with "
        "emulated timing, not both\n",
        o->emu, o->emulate);
    return 1;
  }
  if (o->emulate && check_spec(o->emulate, 1) < 0) {
    log_err("fio: hio_emulate=%s: %s\n", o->emulate, hio_last_error());
    return 1;
  }
  int bad;
  hio_fio_poll_period_ns(o, &bad);
  if (bad) {
    log_err("fio: hio_poll_period_us=%s: not auto or a number of microseconds up to 10000000\n", o->poll_period_us);
    return 1;
  }
  struct fio_file *f;
  unsigned int i;
  if (o->emu) {
    if (check_spec(o->emu, 0) < 0) {
      log_err("fio: hio_emu=%s: %s\n", o->emu, hio_last_error());
      return 1;
    }
    /* A named file that exists is a job meant for real storage. */
    struct stat st;
    if (td->o.filename) {
      for_each_file(td, f, i) {
        if (stat(f->file_name, &st) == 0 && (S_ISREG(st.st_mode) || S_ISBLK(st.st_mode))) {
          log_err(
              "fio: hio_emu=%s makes the job's files emulated SSDs, but filename %s exists: leave filename "
              "out, or give the real file an emulated timing with hio_emulate=%s\n",
              o->emu, f->file_name, o->emu);
          return 1;
        }
      }
    }
    td->flags |= (unsigned long long)(FIO_DISKLESSIO | FIO_NODISKUTIL) << TD_ENG_FLAG_SHIFT;
  }
  /* What fio does itself when an engine has no setup. */
  for_each_file(td, f, i) {
    if (td_io_get_file_size(td, f)) {
      if (td->error != ENOENT) {
        log_err("%s\n", td->verror);
        return 1;
      }
      td->error = 0;
      td->verror[0] = '\0';
    }
    if (f->real_file_size == -1ULL && td->o.size) f->real_file_size = td->o.size / td->o.nr_files;
  }
  return 0;
}

/* A queue of the job's depth and strategy. */
static int create_queue(struct hio_fio_job *j, hio_queue **out) {
  hio_queue_opts qo;
  hio_queue_opts_init(&qo, sizeof(qo));
  qo.depth = j->depth;
  qo.strategy = hio_fio_strategy(j->o);
  return hio_queue_create(j->engine, &qo, out);
}

static int hio_fio_init(struct thread_data *td) {
  if (!fio_matches()) return 1;
  const struct hio_fio_options *o = td->eo;
  struct hio_fio_job *j = calloc(1, sizeof(*j));
  if (!j) return 1;
  td->io_ops_data = j;
  j->o = o;
  j->depth = td->o.iodepth < 1 ? 1 : (td->o.iodepth > 4096 ? 4096 : td->o.iodepth);
  j->handles = hio_fio_wants_handles(o);
  /* At depth 1 each command is waited for before the next, so it goes
   * through hybridio's synchronous calls: waited for by interrupt, a lone
   * read or write is then one pread or pwrite, cheaper than a ring's submit
   * and wait. fio then times it as a sync engine's, around the queue call. */
  j->synchronous = j->depth == 1;
  if (j->synchronous) td->flags |= (unsigned long long)FIO_SYNCIO << TD_ENG_FLAG_SHIFT;
  j->pending = calloc(j->depth, sizeof(*j->pending));
  j->events = calloc(j->depth, sizeof(*j->events));
  j->done = calloc(j->depth, sizeof(*j->done));
  j->failed = calloc(j->depth, sizeof(*j->failed));
  if (!j->pending || !j->events || !j->done || !j->failed) return 1;
  int r = hio_engine_create(&j->engine);
  if (r < 0) return fail(td, -r, "hio_engine_create");
  if (o->emulate && (r = hio_engine_emulate(j->engine, o->emulate)) < 0) return fail(td, -r, "hio_emulate");
  if (!j->handles) return (r = create_queue(j, &j->queue)) < 0 ? fail(td, -r, "hio_queue_create") : 0;
  if (o->cache_mb &&
      (r = hio_cache_create((uint64_t)o->cache_mb << 20, (hio_cache_write)o->cache_policy, &j->cache)) < 0)
    return fail(td, -r, "hio_cache_mb");
  if (o->reaper == HIO_FIO_REAPER_THREAD) {
    int bad;
    hio_reaper_opts ro = {.struct_size = sizeof(hio_reaper_opts),
                          .poll_period_ns = hio_fio_poll_period_ns(o, &bad),
                          .cpu = o->reaper_cpu};
    if ((r = hio_reaper_create(&ro, &j->reaper)) < 0) return fail(td, -r, "hio_reaper");
  }
  return 0;
}

/* Ours for fio's file f. With io_submit_mode=offload, fio's submission
 * workers each run an engine of their own on the job's files, so a file's
 * engine_data may be another instance's. */
static struct hio_fio_file *file_for(struct hio_fio_job *j, const struct fio_file *f) {
  struct hio_fio_file *hf = f->engine_data;
  if (hf && hf->owner == j) return hf;
  for (unsigned i = 0; i < j->nfiles; i++)
    if (j->files[i]->file == f) return j->files[i];
  return NULL;
}

static struct hio_fio_file *track_file(struct hio_fio_job *j, struct fio_file *f) {
  struct hio_fio_file **grown = realloc(j->files, (j->nfiles + 1) * sizeof(*grown));
  if (!grown) return NULL;
  j->files = grown;
  struct hio_fio_file *hf = calloc(1, sizeof(*hf));
  if (!hf) return NULL;
  hf->owner = j;
  hf->file = f;
  hf->target = -1;
  j->files[j->nfiles++] = hf;
  if (!f->engine_data) f->engine_data = hf;
  return hf;
}

/* 0, or -errno with hio_last_error() set. */
static int open_handle(struct hio_fio_job *j, struct hio_fio_file *hf, const char *spec, const hio_open_opts *oo) {
  const struct hio_fio_options *o = j->o;
  hio_handle_opts ho;
  hio_handle_opts_init(&ho, sizeof(ho));
  ho.open = *oo;
  ho.depth = j->depth;
  ho.strategy = hio_fio_strategy(o);
  ho.cache = j->cache;
  ho.readahead = (hio_readahead)o->readahead;
  ho.reaper = j->reaper;
  if (o->handle_priority == HIO_FIO_PRIORITY_HIGH) ho.flags |= HIO_HANDLE_HIGH_PRIORITY;
  if (o->queue == HIO_FIO_QUEUE_SPLIT_RW && !(ho.flags & HIO_HANDLE_HIGH_PRIORITY)) {
    for (int k = 0; k < 2; k++) {
      int r = hf->queues[k] ? 0 : create_queue(j, &hf->queues[k]);
      if (r < 0) return r;
    }
    ho.queue = hf->queues[0];
    ho.write_queue = hf->queues[1];
  }
  return hio_handle_open(j->engine, spec, &ho, &hf->handle);
}

/* Registers fio's I/O buffers with the bare queue once it has a ring (its
 * first open): a read or write in them then skips the kernel's pinning of
 * its pages. Without them the job still runs, so a refusal (the memlock
 * limit) is reported once and not an error. */
static void register_buffers(struct thread_data *td, struct hio_fio_job *j) {
  if (j->buffers_registered || !td->orig_buffer || !td->orig_buffer_size) return;
  j->buffers_registered = 1;
  if (hio_queue_register_buffer(j->queue, td->orig_buffer, td->orig_buffer_size) < 0)
    log_info("fio: hybridio: %s; the job's I/O goes without registered buffers\n", hio_last_error());
}

/* The file's target (or handle) in this engine instance. */
static int open_target(struct thread_data *td, struct hio_fio_job *j, struct hio_fio_file *hf,
                       const struct fio_file *f) {
  const struct hio_fio_options *o = j->o;
  if (j->handles ? hf->handle != NULL : hf->target >= 0) return 0;
  char spec[4096];
  snprintf(spec, sizeof(spec), o->emu ? "emu:%s" : "%s", o->emu ? o->emu : f->file_name);
  hio_open_opts oo = {.struct_size = sizeof(hio_open_opts)};
  if (td->o.odirect) oo.flags |= HIO_OPEN_DIRECT;
  if (td_read(td) && !td_write(td) && !td_trim(td)) oo.flags |= HIO_OPEN_RDONLY;
  if (o->emu) oo.size = f->real_file_size;
  int r = j->handles ? open_handle(j, hf, spec, &oo) : hio_queue_open(j->queue, spec, &oo);
  if (r < 0) {
    log_err("fio: hybridio: cannot open %s: %s\n", spec, hio_last_error());
    td_verror(td, -r, j->handles ? "hio_handle_open" : "hio_queue_open");
    return 1;
  }
  if (!j->handles) {
    hf->target = r;
    register_buffers(td, j);
  }
  return 0;
}

static int hio_fio_open_file(struct thread_data *td, struct fio_file *f) {
  struct hio_fio_job *j = td->io_ops_data;
  const struct hio_fio_options *o = j->o;
  struct hio_fio_file *hf = file_for(j, f);
  if (!hf && !(hf = track_file(j, f))) return 1;
  /* A real file keeps fio's own descriptor too: fio lays it out, trims,
   * syncs ranges and drops its cached pages through it. */
  if (!o->emu) {
    int r = generic_open_file(td, f);
    if (r) return r;
  }
  if (!open_target(td, j, hf, f)) return 0;
  if (!o->emu && generic_close_file(td, f)) log_err("fio: hybridio: closing %s failed\n", f->file_name);
  return 1;
}

static void close_handle(struct hio_fio_job *j, struct hio_fio_file *hf) {
  if (!hf->handle) return;
  hio_queue *reads = hio_handle_queue_get(hf->handle, HIO_HANDLE_READS);
  hio_queue *writes = hio_handle_queue_get(hf->handle, HIO_HANDLE_WRITES);
  if (reads) hio_fio_figures_add(&j->figures, reads);
  if (writes && writes != reads) hio_fio_figures_add(&j->figures, writes);
  int r = hio_handle_close(hf->handle);
  if (r < 0) log_err("fio: hybridio: %s\n", hio_last_error());
  hf->handle = NULL;
}

static int hio_fio_close_file(struct thread_data *td, struct fio_file *f) {
  struct hio_fio_job *j = td->io_ops_data;
  struct hio_fio_file *hf = j ? file_for(j, f) : NULL;
  /* A handle writes its dirty cache pages back as it closes. */
  if (hf && j->handles && !hf->inflight) close_handle(j, hf);
  return ((const struct hio_fio_options *)td->eo)->emu ? 0 : generic_close_file(td, f);
}

/* One command through hybridio's synchronous calls, done on return. */
static enum fio_q_status run_now(struct thread_data *td, struct hio_fio_job *j, struct hio_fio_file *hf,
                                 struct io_u *io_u, hio_op op) {
  void *buf = io_u->xfer_buf;
  uint32_t len = (uint32_t)io_u->xfer_buflen;
  int64_t r;
  if (j->handles)
    r = op == HIO_OP_READ    ? hio_handle_read(hf->handle, buf, len, io_u->offset)
        : op == HIO_OP_WRITE ? hio_handle_write(hf->handle, buf, len, io_u->offset)
                             : hio_handle_flush(hf->handle);
  else
    r = op == HIO_OP_READ    ? hio_read(j->queue, hf->target, buf, len, io_u->offset)
        : op == HIO_OP_WRITE ? hio_write(j->queue, hf->target, buf, len, io_u->offset)
                             : hio_flush(j->queue, hf->target);
  if (r < 0) {
    io_u->error = (int)-r;
    if (!j->told_failure++) log_err("fio: hybridio: %s\n", hio_last_error());
  } else if (op == HIO_OP_READ && (uint64_t)r < len) {
    io_u->resid = len - (uint64_t)r;
  }
  io_u_mark_submit(td, 1);
  io_u_mark_complete(td, 1);
  return FIO_Q_COMPLETED;
}

static enum fio_q_status hio_fio_queue(struct thread_data *td, struct io_u *io_u) {
  struct hio_fio_job *j = td->io_ops_data;
  fio_ro_check(td, io_u);
  if (j->npending + j->inflight >= j->depth) return FIO_Q_BUSY;
  hio_io *io = &j->pending[j->npending];
  memset(io, 0, sizeof(*io));
  switch (io_u->ddir) {
    case DDIR_READ: io->op = HIO_OP_READ; break;
    case DDIR_WRITE: io->op = HIO_OP_WRITE; break;
    case DDIR_SYNC:
    case DDIR_DATASYNC: io->op = HIO_OP_FLUSH; break;
    default:
      /* Trims and synced ranges go through fio's own descriptor, in order. */
      if (j->npending || j->inflight) return FIO_Q_BUSY;
      if (io_u->file->fd < 0) {
        io_u->error = EOPNOTSUPP;
        return FIO_Q_COMPLETED;
      }
      if (io_u->ddir == DDIR_TRIM)
        do_io_u_trim(td, io_u);
      else
        do_io_u_sync(td, io_u);
      io_u_mark_submit(td, 1);
      io_u_mark_complete(td, 1);
      return FIO_Q_COMPLETED;
  }
  struct hio_fio_file *hf = file_for(j, io_u->file);
  if (!hf && !(hf = track_file(j, io_u->file))) {
    io_u->error = ENOMEM;
    return FIO_Q_COMPLETED;
  }
  if (open_target(td, j, hf, io_u->file)) {
    io_u->error = td->error ? td->error : EIO;
    return FIO_Q_COMPLETED;
  }
  if (j->synchronous) return run_now(td, j, hf, io_u, io->op);
  io->target = hf->target;
  io->buf = io_u->xfer_buf;
  io->len = (uint32_t)io_u->xfer_buflen;
  io->offset = io_u->offset;
  io->tag = (uint64_t)(uintptr_t)io_u;
  j->npending++;
  return FIO_Q_QUEUED;
}

static struct hio_fio_file *file_of_io(struct hio_fio_job *j, const hio_io *io) {
  return file_for(j, ((struct io_u *)(uintptr_t)io->tag)->file);
}

/* One command on its own; a refused one completes with its error at the
 * next getevents, so that fio sees it rather than waits for it. */
static void submit_one(struct hio_fio_job *j, const hio_io *io) {
  struct hio_fio_file *hf = file_of_io(j, io);
  int r = j->handles ? hio_handle_submit(hf->handle, io, 1) : hio_submit(j->queue, io, 1, 0);
  hf->inflight++;
  j->inflight++;
  if (r >= 0) return;
  struct io_u *io_u = (struct io_u *)(uintptr_t)io->tag;
  io_u->error = -r;
  j->failed[j->nfailed++] = io_u;
  if (!j->told_failure++) log_err("fio: hybridio refused a command: %s\n", hio_last_error());
}

static int hio_fio_commit(struct thread_data *td) {
  struct hio_fio_job *j = td->io_ops_data;
  unsigned n = j->npending;
  if (!n) return 0;
  j->npending = 0;
  if (!j->handles && hio_submit(j->queue, j->pending, n, 0) == (int)n) {
    for (unsigned i = 0; i < n; i++) file_of_io(j, &j->pending[i])->inflight++;
    j->inflight += n;
  } else {
    for (unsigned i = 0; i < n; i++) submit_one(j, &j->pending[i]);
  }
  io_u_mark_submit(td, n);
  return 0;
}

/* Hands io_u, its error set, to fio's next event() calls. */
static void deliver(struct hio_fio_job *j, struct io_u *io_u) {
  file_for(j, io_u->file)->inflight--;
  j->inflight--;
  j->events[j->nevents++] = io_u;
}

static void finish(struct hio_fio_job *j, const hio_completion *c) {
  struct io_u *io_u = (struct io_u *)(uintptr_t)c->tag;
  io_u->error = 0;
  if (c->res < 0)
    io_u->error = -c->res;
  else if (c->op != HIO_OP_FLUSH && (unsigned long long)c->res < io_u->xfer_buflen)
    io_u->resid = io_u->xfer_buflen - (unsigned long long)c->res;
  deliver(j, io_u);
}

/* Through handles: what every handle has ready, and if that is less than
 * want, a wait on a handle with commands in flight. */
static int reap_handles(struct hio_fio_job *j, unsigned room, unsigned want) {
  int got = 0;
  for (int pass = 0; pass < 2 && room; pass++) {
    for (unsigned i = 0; i < j->nfiles && room; i++) {
      struct hio_fio_file *hf = j->files[i];
      if (!hf->handle || !hf->inflight) continue;
      unsigned wait = pass == 1 && (unsigned)got < want ? 1 : 0;
      int r = hio_handle_reap(hf->handle, j->done, room, wait);
      if (r < 0) return r;
      for (int k = 0; k < r; k++) finish(j, &j->done[k]);
      got += r;
      room -= (unsigned)r;
      if (pass == 1 && (unsigned)got >= want) return got;
    }
    if ((unsigned)got >= want) break;
  }
  return got;
}

static int hio_fio_getevents(struct thread_data *td, unsigned int min, unsigned int max,
                             const struct timespec fio_unused *t) {
  struct hio_fio_job *j = td->io_ops_data;
  j->nevents = 0;
  while (j->nfailed && j->nevents < max) deliver(j, j->failed[--j->nfailed]);
  do {
    unsigned room = max - j->nevents;
    unsigned want = j->nevents < min ? min - j->nevents : 0;
    if (!room || (want && j->inflight == 0)) break;
    int r;
    if (j->handles) {
      r = reap_handles(j, room, want);
    } else {
      r = hio_reap(j->queue, j->done, room, want);
      for (int k = 0; k < r; k++) finish(j, &j->done[k]);
    }
    if (r < 0) {
      log_err("fio: hybridio: %s\n", hio_last_error());
      td_verror(td, -r, "hio_reap");
      return r;
    }
    if (!want) break;
  } while (j->nevents < min);
  return (int)j->nevents;
}

static struct io_u *hio_fio_event(struct thread_data *td, int event) {
  struct hio_fio_job *j = td->io_ops_data;
  return j->events[event];
}

static void report(struct thread_data *td, struct hio_fio_job *j) {
  /* An io_submit_mode=offload worker serves its job: the job reports. */
  if (td->parent && td->parent != td) return;
  if (j->queue) hio_fio_figures_add(&j->figures, j->queue);
  if (!j->figures.queues) return;
  char line[1024];
  hio_fio_report_line(td->o.name, &j->figures, line, sizeof(line));
  /* fio's JSON goes to stdout: the line must not break it. */
  if (output_format & FIO_OUTPUT_NORMAL)
    log_info("%s\n", line);
  else
    fprintf(stderr, "%s\n", line);
  if (j->o->stats_json) {
    int r = hio_fio_report_json(j->o->stats_json, td->o.name, &j->figures);
    if (r < 0) log_err("fio: hio_stats_json=%s: %s\n", j->o->stats_json, strerror(-r));
  }
}

static void hio_fio_cleanup(struct thread_data *td) {
  struct hio_fio_job *j = td->io_ops_data;
  if (!j) return;
  for (unsigned i = 0; i < j->nfiles; i++) close_handle(j, j->files[i]);
  report(td, j);
  for (unsigned i = 0; i < j->nfiles; i++) {
    for (int k = 0; k < 2; k++)
      if (j->files[i]->queues[k]) hio_queue_destroy(j->files[i]->queues[k]);
    free(j->files[i]);
  }
  if (j->queue) hio_queue_destroy(j->queue);
  if (j->reaper) hio_reaper_destroy(j->reaper);
  if (j->cache) hio_cache_destroy(j->cache);
  if (j->engine) hio_engine_destroy(j->engine);
  free(j->files);
  free(j->pending);
  free(j->events);
  free(j->done);
  free(j->failed);
  free(j);
  td->io_ops_data = NULL;
}

__attribute__((visibility("default"))) struct ioengine_ops ioengine = {
    .name = "hybridio",
    .version = FIO_IOOPS_VERSION,
    .setup = hio_fio_setup,
    .init = hio_fio_init,
    .queue = hio_fio_queue,
    .commit = hio_fio_commit,
    .getevents = hio_fio_getevents,
    .event = hio_fio_event,
    .cleanup = hio_fio_cleanup,
    .open_file = hio_fio_open_file,
    .close_file = hio_fio_close_file,
    .get_file_size = hio_fio_get_file_size,
    .options = hio_fio_option_table,
    .option_struct_size = sizeof(struct hio_fio_options),
};
