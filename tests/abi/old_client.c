/* SPDX-License-Identifier: MIT */
/* Programs built against other layouts of hio.h's growable structs, against
 * this library: one built when the structs were smaller, one built when they
 * were larger. The library must read and write no more of a struct than
 * its struct_size says, fill in defaults for what an older program lacks,
 * and refuse what a newer program sets that it does not know. It also asks
 * hio_version_check for this version and for later ones. */
#include <hybridio/hio.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int failures;
#define EXPECT(cond)                                                                        \
  do {                                                                                      \
    if (!(cond)) {                                                                          \
      fprintf(stderr, "old_client: line %d: %s (%s)\n", __LINE__, #cond, hio_last_error()); \
      failures++;                                                                           \
    }                                                                                       \
  } while (0)

/* The older layouts: the first fields of today's, nothing after them. */
struct old_queue_opts {
  size_t struct_size;
  unsigned depth;
  unsigned flags; /* no strategy yet: the queue takes interrupts, the default */
};
struct old_open_opts {
  size_t struct_size;
  unsigned flags; /* no size yet: an emulated SSD takes its default capacity */
};
struct old_queue_stats {
  size_t struct_size;
  uint64_t submitted, completed, errors;
};

/* The library is at least the version this program was built against,
 * and of its major version; not a later minor or another major. */
static void check_versions(void) {
  EXPECT(hio_version_check(HIO_VERSION_MAJOR, HIO_VERSION_MINOR) == 0);
  EXPECT(hio_version_check(HIO_VERSION_MAJOR, HIO_VERSION_MINOR + 1) == -ENOTSUP);
  EXPECT(strstr(hio_last_error(), HIO_VERSION_STRING) != NULL);
  EXPECT(hio_version_check(HIO_VERSION_MAJOR + 1, 0) == -ENOTSUP);
}

/* An older program's options: what it lacks is the default. The queue it
 * makes has written and read one block (the statistics below count them). */
static hio_queue *queue_from_old_options(hio_engine *e) {
  struct old_queue_opts oq = {sizeof(oq), 4, 0};
  hio_queue *q = NULL;
  EXPECT(hio_queue_create(e, (const hio_queue_opts *)&oq, &q) == 0);
  struct old_open_opts oo = {sizeof(oo), 0};
  int t = hio_queue_open(q, "emu:pcie4", (const hio_open_opts *)&oo);
  EXPECT(t >= 0);
  hio_strategy s;
  hio_strategy_init(&s, sizeof(s));
  EXPECT(hio_queue_strategy_get(q, &s) == 0 && s.mode == HIO_WAIT_INTERRUPT);

  static char buf[4096] __attribute__((aligned(4096)));
  memset(buf, 0x5a, sizeof(buf));
  EXPECT(hio_write(q, t, buf, sizeof(buf), 8192) == (int64_t)sizeof(buf));
  memset(buf, 0, sizeof(buf));
  EXPECT(hio_read(q, t, buf, sizeof(buf), 8192) == (int64_t)sizeof(buf) && buf[0] == 0x5a && buf[4095] == 0x5a);
  EXPECT(hio_queue_inflight_get(q) == 0);
  const double half = 50;
  uint64_t p50 = 0;
  EXPECT(hio_queue_percentiles_get(q, HIO_OP_READ, &half, 1, &p50) == 0 && p50 > 0);
  s.mode = HIO_WAIT_POLL;
  EXPECT(hio_queue_strategy_set(q, &s) == 0);
  EXPECT(hio_queue_strategy_get(q, &s) == 0 && s.mode == HIO_WAIT_POLL);
  return q;
}

/* An older program's statistics: its fields filled, nothing written past them. */
static void check_old_stats(hio_queue *q) {
  struct {
    struct old_queue_stats s;
    uint64_t guard;
  } box;
  memset(&box, 0, sizeof(box));
  box.s.struct_size = sizeof(box.s);
  box.guard = 0x600dcafe600dcafeull;
  EXPECT(hio_queue_stats_get(q, (hio_queue_stats *)&box.s) == 0);
  EXPECT(box.s.completed == 2 && box.s.submitted == 2 && box.s.errors == 0);
  EXPECT(box.s.struct_size == sizeof(box.s));
  EXPECT(box.guard == 0x600dcafe600dcafeull);
}

static void check_newer_structs(hio_engine *e, hio_queue *q) {
  /* A newer program's larger struct: its unknown field left alone on output... */
  struct {
    hio_queue_stats s;
    uint64_t newer;
  } big;
  memset(&big, 0, sizeof(big));
  big.s.struct_size = sizeof(big);
  big.newer = 7;
  EXPECT(hio_queue_stats_get(q, &big.s) == 0 && big.s.completed == 2 && big.newer == 7);

  /* ...accepted on input while it is zero, refused once it is set. */
  struct {
    hio_queue_opts o;
    uint64_t newer;
  } nq;
  memset(&nq, 0, sizeof(nq));
  nq.o.struct_size = sizeof(nq);
  nq.o.depth = 4;
  hio_queue *q2 = NULL;
  EXPECT(hio_queue_create(e, &nq.o, &q2) == 0);
  hio_queue_destroy(q2);
  nq.newer = 1;
  q2 = NULL;
  EXPECT(hio_queue_create(e, &nq.o, &q2) == -EINVAL && q2 == NULL);
  EXPECT(strstr(hio_last_error(), "newer hio.h") != NULL);
}

/* A struct_size too small to hold itself is a mistake, named. */
static void check_tiny_struct(hio_queue *q) {
  hio_queue_stats tiny;
  memset(&tiny, 0, sizeof(tiny));
  tiny.struct_size = 4;
  EXPECT(hio_queue_stats_get(q, &tiny) == -EINVAL && strstr(hio_last_error(), "struct_size 4") != NULL);
}

int main(void) {
  hio_engine *e = NULL;
  EXPECT(hio_engine_create(&e) == 0);
  check_versions();
  hio_queue *q = queue_from_old_options(e);
  check_old_stats(q);
  check_newer_structs(e, q);
  check_tiny_struct(q);
  hio_queue_destroy(q);
  hio_engine_destroy(e);
  if (failures) return 1;
  printf("old_client: an older and a newer layout both work against this library\n");
  return 0;
}
