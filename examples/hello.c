/* SPDX-License-Identifier: MIT */
/* Writes a block to the emulated SSD under busy polling and reads it back:
 * the smallest program. */
#include <hybridio/hio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void) {
  hio_engine *e;
  hio_queue *q;
  hio_queue_opts qo = {.struct_size = sizeof(hio_queue_opts), .depth = 8, .strategy = {.mode = HIO_WAIT_POLL}};
  if (hio_engine_create(&e) < 0 || hio_queue_create(e, &qo, &q) < 0) return 1;
  int t = hio_queue_open(q, "emu:pcie4", NULL);
  char *out = aligned_alloc(4096, 4096), *in = aligned_alloc(4096, 4096);
  memset(out, 'h', 4096);
  if (t < 0 || hio_write(q, t, out, 4096, 0) < 0 || hio_read(q, t, in, 4096, 0) < 0) {
    fprintf(stderr, "hello: %s\n", hio_last_error());
    return 1;
  }
  printf("%s\n", memcmp(in, out, 4096) == 0 ? "read back intact" : "MISMATCH");
  hio_queue_destroy(q);
  hio_engine_destroy(e);
  return 0;
}
