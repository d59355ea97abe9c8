// SPDX-License-Identifier: MIT
#include "handle/readahead.hpp"

#include <algorithm>

namespace hio {

uint32_t ReadAhead::on_read(uint64_t offset, uint32_t len, bool miss) {
  if (mode_ == HIO_READAHEAD_OFF) return len;
  if (mode_ == HIO_READAHEAD_ON) return miss ? std::max(len, kMaxWindow) : len;
  clock_++;
  Stream* hit = nullptr;
  for (Stream& st : s_)
    if (st.next == offset) hit = &st;
  if (!hit) {
    // A new stream takes the least recently used slot.
    hit = &*std::min_element(s_.begin(), s_.end(),
                             [](const Stream& a, const Stream& b) { return a.last_use < b.last_use; });
    *hit = Stream{};
  } else {
    hit->run++;
  }
  hit->next = offset + len;
  hit->last_use = clock_;
  if (!miss || hit->run < kSeqToStart) return len;
  // Each miss of a sequential stream doubles its window, up to the largest.
  hit->window = hit->window ? std::min(kMaxWindow, hit->window * 2) : kMinWindow;
  return std::max(len, hit->window);
}

}  // namespace hio
