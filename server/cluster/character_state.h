// Character state on the cluster wire: storage::CharacterRecord <-> zs.cluster.v1.CharacterState.
//
// A hand-off carries a character from one zone server to another; what it carries is exactly
// what storage keeps (CharacterRecord: name, account, the simulation's PlayerSnapshot,
// saved_at_ms), so the receiver can put the player back as the source had them. The conversion
// is field for field and lossless both ways (a round trip gives an equal record).
//
// Errors: the message comes from another process, so FromProto validates everything it could
// not represent or the simulation must not receive (an empty name, a non-finite position or
// facing, more cooldowns than zone::kMaxSkills) and says which field is wrong.
//
// Threads: pure functions, no state.
#pragma once

#include <string>

#include "cluster.pb.h"
#include "storage/character_record.h"

namespace zs::cluster {

void ToProto(const storage::CharacterRecord& record, v1::CharacterState* out);

// false (and *error says which field) when `state` is not a valid character; *out is then
// unspecified.
[[nodiscard]] bool FromProto(const v1::CharacterState& state, storage::CharacterRecord* out,
                             std::string* error);

}  // namespace zs::cluster
