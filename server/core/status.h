// Status: the result of an operation on outside input, as a value (no exceptions).
//
// A Status is a code plus a static message; it never allocates, so it is cheap enough to
// return from hot-path calls such as Quadtree::Move. Messages are string literals owned by the
// code that produced them.
#pragma once

#include <cstdint>
#include <string_view>

namespace zs {

enum class StatusCode : uint8_t {
  kOk = 0,
  kInvalidArgument,  // a value that can never be valid (NaN, negative radius, ...)
  kOutOfBounds,      // a position outside the world/zone
  kNotFound,         // unknown or stale id
  kAlreadyExists,    // duplicate insert
};

class [[nodiscard]] Status {
 public:
  constexpr Status() noexcept = default;
  constexpr Status(StatusCode code, const char* message) noexcept
      : code_(code), message_(message) {}

  static constexpr Status Ok() noexcept { return Status(); }

  constexpr bool ok() const noexcept { return code_ == StatusCode::kOk; }
  constexpr StatusCode code() const noexcept { return code_; }
  constexpr std::string_view message() const noexcept { return message_; }

 private:
  StatusCode code_ = StatusCode::kOk;
  const char* message_ = "ok";
};

std::string_view StatusCodeName(StatusCode code) noexcept;

}  // namespace zs
