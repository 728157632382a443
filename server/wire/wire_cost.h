// What an entity costs its client in this encoding, as the interest policy's byte budget counts
// it (interest::WireCost). Typical figures of the TickEncoder (encoder.h) in a town of a
// thousand players: ids of two bytes, positions as zigzag centimetres of three bytes each, a
// move's delta of a byte per axis and a one-byte gap between sorted ids. The test
// tests/wire/wire_cost_test.cc encodes such a town's ticks and keeps each figure equal to the
// rounded mean of what the encoder writes. The zone runner puts them in WorldConfig::wire_cost.
#pragma once

#include "interest/wire_cost.h"

namespace zs::wire {

inline constexpr interest::WireCost kWireCost = {
    .moved_bytes = 3,    // id gap + dx + dy in the packed moved lists (measured 3.03)
    .turned_bytes = 5,   // id gap + dx + dy + facing in the packed turned lists (5.48)
    .update_bytes = 13,  // TickUpdate.updated entry: tag + length, id, absolute x, y (12.55)
    .field_bytes = 3,    // facing, hp or alive: tag + value (2.56)
    .enter_bytes = 24,   // TickUpdate.entered entry: tag + length, every field but the name (24.33)
    .name_bytes = 2,     // a name's tag and length byte (player names are at most 32 bytes)
};

}  // namespace zs::wire
