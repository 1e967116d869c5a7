// Scratch's ownership, common to every flavour; the allocation itself is the flavour's
// (detail::allocate_payload in mpich.cpp / smpi.cpp).
#include <utility>

#include "flavour/detail.hpp"
#include "flavour/flavour.hpp"

namespace collsel::flavour {

Scratch::Scratch(std::size_t bytes) : size_(bytes) {
  if (bytes > 0) data_ = detail::allocate_payload(bytes, shared_);
}

Scratch::~Scratch() { release(); }

Scratch::Scratch(Scratch&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)),
      size_(std::exchange(other.size_, 0)),
      shared_(std::exchange(other.shared_, false)) {}

Scratch& Scratch::operator=(Scratch&& other) noexcept {
  if (this != &other) {
    release();
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
    shared_ = std::exchange(other.shared_, false);
  }
  return *this;
}

void Scratch::release() {
  if (data_ != nullptr) detail::free_payload(data_, shared_);
  data_ = nullptr;
  size_ = 0;
  shared_ = false;
}

}  // namespace collsel::flavour
