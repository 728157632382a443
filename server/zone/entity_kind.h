// What an entity is, as every part of the zone names it.
#pragma once

#include <cstddef>
#include <cstdint>

namespace zs::zone {

enum class EntityKind : uint8_t { kPlayer = 0, kMonster = 1 };

inline constexpr size_t kMaxSkills = 4;  // skills per entity

// What a monster is doing (Zone's AI: monster_ai.cc).
enum class MonsterState : uint8_t { kIdle, kChase, kReturn };

}  // namespace zs::zone
