// SPDX-License-Identifier: MIT
// The API's names from 0.1's drafts, kept for 0.1 only: each forwards to
// the name that follows hio.h's rule.
#include "hybridio/hio_adaptive.h"

#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

extern "C" {

int hio_queue_set_strategy(hio_queue* q, const hio_strategy* s) { return hio_queue_strategy_set(q, s); }
int hio_queue_get_strategy(hio_queue* q, hio_strategy* out) { return hio_queue_strategy_get(q, out); }
unsigned hio_queue_inflight(hio_queue* q) { return hio_queue_inflight_get(q); }
int hio_queue_percentiles(hio_queue* q, hio_op op, const double* pcts, size_t n, uint64_t* out_ns) {
  return hio_queue_percentiles_get(q, op, pcts, n, out_ns);
}
int hio_queue_adaptive_view(hio_queue* q, hio_adaptive_view* out) { return hio_queue_adaptive_view_get(q, out); }
int hio_handle_target_info(hio_handle* h, hio_target_info* out) { return hio_handle_target_info_get(h, out); }
int hio_handle_percentiles(hio_handle* h, hio_op op, const double* pcts, size_t n, uint64_t* out_ns) {
  return hio_handle_percentiles_get(h, op, pcts, n, out_ns);
}
hio_queue* hio_handle_queue(hio_handle* h, hio_handle_queue_role role) { return hio_handle_queue_get(h, role); }
int hio_completion_describe_handle(hio_handle* h, const hio_completion* c, char* buf, size_t len) {
  return hio_handle_completion_describe(h, c, buf, len);
}

}  // extern "C"
