/* SPDX-License-Identifier: MIT */
/* A handle with a write-back block cache and a completion thread: writes a
 * page, reads it twice (the second from the cache), and closes the handle,
 * which writes the dirty page back before it returns. */
#include <hybridio/hio.h>
#include <stdio.h>
#include <string.h>

static int fail(const char *what) {
  fprintf(stderr, "handle_cache: %s: %s\n", what, hio_last_error());
  return 1;
}

int main(void) {
  if (hio_version_check(HIO_VERSION_MAJOR, HIO_VERSION_MINOR) < 0) return fail("version");
  hio_engine *e;
  hio_cache *cache;
  hio_reaper *reaper;
  hio_reaper_opts ro;
  hio_reaper_opts_init(&ro, sizeof(ro));
  if (hio_engine_create(&e) < 0) return fail("engine");
  if (hio_cache_create(1 << 20, HIO_CACHE_WRITE_BACK, &cache) < 0) return fail("cache");
  if (hio_reaper_create(&ro, &reaper) < 0) return fail("completion thread");

  hio_handle_opts ho;
  hio_handle_opts_init(&ho, sizeof(ho));
  ho.cache = cache;
  ho.reaper = reaper;
  hio_handle *h;
  if (hio_handle_open(e, "emu:nand,size=1m", &ho, &h) < 0) return fail("open");
  static char page[4096], back[4096];
  memset(page, 'c', sizeof(page));
  if (hio_handle_write(h, page, sizeof(page), 4096) != (int64_t)sizeof(page)) return fail("write");
  for (int i = 0; i < 2; i++)
    if (hio_handle_read(h, back, sizeof(back), 4096) != (int64_t)sizeof(back) || memcmp(page, back, sizeof(page)))
      return fail("read");
  hio_cache_stats cs = {.struct_size = sizeof(cs)};
  if (hio_cache_stats_get(cache, &cs) < 0) return fail("cache stats");
  if (hio_handle_close(h) < 0) return fail("close");
  printf("read back intact: %llu cache hits, %llu misses, %llu dirty before close\n", (unsigned long long)cs.hits,
         (unsigned long long)cs.misses, (unsigned long long)cs.dirty);
  hio_reaper_destroy(reaper);
  hio_cache_destroy(cache);
  hio_engine_destroy(e);
  return 0;
}
