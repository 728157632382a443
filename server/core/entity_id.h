// EntityId: a generational handle for anything that lives in a zone.
//
// The low kIndexBits bits are a slot index (dense, reused); the high bits are a generation that
// the owner bumps each time a slot is reused, so a stale id (kept after its entity died) is
// detected instead of silently naming the new occupant. kInvalidEntity (all ones) is reserved:
// owners must not issue generation kMaxGeneration for index kMaxEntityIndex.
#pragma once

#include <cstdint>

namespace zs {

enum class EntityId : uint32_t {};

inline constexpr uint32_t kIndexBits = 20;  // up to ~1M live entities per index
inline constexpr uint32_t kMaxEntityIndex = (1u << kIndexBits) - 1;
inline constexpr uint32_t kGenerationBits = 32 - kIndexBits;
inline constexpr uint32_t kMaxGeneration = (1u << kGenerationBits) - 1;
inline constexpr EntityId kInvalidEntity = static_cast<EntityId>(0xFFFFFFFFu);

[[nodiscard]] constexpr EntityId MakeEntityId(uint32_t index, uint32_t generation) noexcept {
  return static_cast<EntityId>((generation << kIndexBits) | (index & kMaxEntityIndex));
}
[[nodiscard]] constexpr uint32_t EntityIndex(EntityId id) noexcept {
  return static_cast<uint32_t>(id) & kMaxEntityIndex;
}
[[nodiscard]] constexpr uint32_t EntityGeneration(EntityId id) noexcept {
  return static_cast<uint32_t>(id) >> kIndexBits;
}
[[nodiscard]] constexpr uint32_t ToRaw(EntityId id) noexcept { return static_cast<uint32_t>(id); }

}  // namespace zs
