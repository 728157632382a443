// IdBuffer: the caller-owned array a query writes its hits into.
//
// Like std::vector<EntityId> without zero-filling on growth: the leaf scan reserves room for a
// whole slab of candidates, writes them branch-free and commits only the hits. Capacity only
// grows, so a buffer reused across queries stops allocating once warm. Not thread-safe.
#pragma once

#include <algorithm>
#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

#include "core/entity_id.h"

namespace zs::spatial {

class IdBuffer {
 public:
  IdBuffer() = default;
  IdBuffer(IdBuffer&& o) noexcept
      : buf_(std::move(o.buf_)), size_(std::exchange(o.size_, 0)), cap_(std::exchange(o.cap_, 0)) {}
  IdBuffer& operator=(IdBuffer&& o) noexcept {
    buf_ = std::move(o.buf_);
    size_ = std::exchange(o.size_, 0);
    cap_ = std::exchange(o.cap_, 0);
    return *this;
  }

  [[nodiscard]] size_t size() const noexcept { return size_; }
  [[nodiscard]] bool empty() const noexcept { return size_ == 0; }
  [[nodiscard]] size_t capacity() const noexcept { return cap_; }
  [[nodiscard]] const EntityId* data() const noexcept { return buf_.get(); }
  [[nodiscard]] EntityId* data() noexcept { return buf_.get(); }
  [[nodiscard]] const EntityId* begin() const noexcept { return buf_.get(); }
  [[nodiscard]] const EntityId* end() const noexcept { return buf_.get() + size_; }
  [[nodiscard]] EntityId operator[](size_t i) const noexcept { return buf_[i]; }
  [[nodiscard]] std::vector<EntityId> ToVector() const { return {begin(), end()}; }

  void clear() noexcept { size_ = 0; }
  void push_back(EntityId id) {
    *Reserve(1) = id;
    ++size_;
  }
  // Room for n more ids after the current end. Write up to n ids there, then Commit(k).
  EntityId* Reserve(size_t n) {
    if (size_ + n > cap_) Grow(size_ + n);
    return buf_.get() + size_;
  }
  void Commit(size_t k) noexcept { size_ += k; }

 private:
  void Grow(size_t need) {
    const size_t cap = std::max<size_t>({need, cap_ * 2, 64});
    std::unique_ptr<EntityId[]> bigger(new EntityId[cap]);
    std::copy(begin(), end(), bigger.get());
    buf_ = std::move(bigger);
    cap_ = cap;
  }

  std::unique_ptr<EntityId[]> buf_;
  size_t size_ = 0;
  size_t cap_ = 0;
};

}  // namespace zs::spatial
