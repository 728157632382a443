// WireCost: what the mid tier's byte budget counts an entity as costing its client per tick.
// The interest floor does not know the encoding: the wire layer states these figures
// (wire::kWireCost, kept equal to what its encoder writes by tests/wire/wire_cost_test.cc) and
// the host hands them down in WorldConfig::wire_cost.
#pragma once

#include <cstdint>

namespace zs::interest {

struct WireCost {
  uint32_t moved_bytes = 0;   // a move sent as a delta (its id gap and its dx, dy)
  uint32_t turned_bytes = 0;  // a move sent as a delta with the new facing (TickUpdate.turned_*)
  uint32_t update_bytes = 0;  // an update carrying the absolute position
  uint32_t field_bytes = 0;   // each further field of an update (facing, hp, alive)
  uint32_t enter_bytes = 0;   // an entity's whole state as it enters (EntityEnter), but a name
  uint32_t name_bytes = 0;    // what a name adds to an entry beyond its own bytes

  // All zero: not stated (a world built without the host or a test builder). The byte budget
  // then does not bind; the per-tier entity caps still do.
  [[nodiscard]] bool stated() const { return update_bytes > 0; }
  // An entry of an entity whose name has `name_length` bytes (0: none, as monsters).
  [[nodiscard]] uint32_t EnterBytes(uint32_t name_length) const {
    return enter_bytes + (name_length > 0 ? name_bytes + name_length : 0);
  }
};

}  // namespace zs::interest
