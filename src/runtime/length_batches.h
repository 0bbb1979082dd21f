#pragma once

#include <algorithm>
#include <numeric>
#include <span>
#include <vector>

#include "geoalign/error.h"
#include "text/wordpiece_tokenizer.h"

namespace geoalign::runtime {

// Calls run(batch_inputs, slots) for batches of at most batch_size inputs of similar
// length; slots[k] is the input index of batch_inputs[k]. The longest batch runs first:
// the workspace then reaches its largest size once, where ascending order would
// reallocate (and fault in fresh pages for) every activation buffer at every batch.
template <typename Run>
void for_each_length_batch(const std::vector<text::EncodedInput>& inputs, std::size_t batch_size, Run&& run) {
  if (batch_size == 0) throw Error("batch size must be at least 1");
  std::vector<std::size_t> order(inputs.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
    return inputs[x].input_ids.size() > inputs[y].input_ids.size();
  });
  std::vector<const text::EncodedInput*> batch;
  for (std::size_t first = 0; first < order.size(); first += batch_size) {
    const std::size_t count = std::min(batch_size, order.size() - first);
    batch.clear();
    for (std::size_t k = 0; k < count; ++k) batch.push_back(&inputs[order[first + k]]);
    run(std::span<const text::EncodedInput* const>(batch), std::span<const std::size_t>(order.data() + first, count));
  }
}

}  // namespace geoalign::runtime
