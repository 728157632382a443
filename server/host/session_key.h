// SessionKey: whose client a runner's player is, as its PlayerDirectory files it.
//
// A node's session ids are its own (net::Server counts them from 1). A player owned here has
// its client either here (Local: this node's session id) or at the node of another cell of its
// split zone, its home (Relayed: the home's cell and the session id there; docs/seamless.md
// "Relay"). The two kinds never collide: a Relayed key is never equal to a Local one, and no
// connection of this node ever has a Relayed key.
//
// Threads: a value; any.
#pragma once

#include <compare>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>

namespace zs::host {

// The highest session id a home may relay (the relay's wire refuses higher ones).
inline constexpr uint64_t kMaxRelayedSession = (uint64_t{1} << 48) - 1;

class SessionKey {
 public:
  constexpr SessionKey() = default;
  // This node's connection `session`.
  [[nodiscard]] static constexpr SessionKey Local(uint64_t session) {
    return SessionKey(session, kLocal);
  }
  // Connection `session` of the node of `home_cell` (REQUIRES: a cell of a split zone, so
  // below zone::kMaxCellsPerAxis squared).
  [[nodiscard]] static constexpr SessionKey Relayed(uint32_t home_cell, uint64_t session) {
    return SessionKey(session, home_cell);
  }

  [[nodiscard]] constexpr bool relayed() const { return home_cell_ != kLocal; }
  // The session id at the node holding the connection (here when Local).
  [[nodiscard]] constexpr uint64_t session() const { return session_; }
  // The cell of the node holding the connection; nullopt when Local.
  [[nodiscard]] constexpr std::optional<uint32_t> home_cell() const {
    return relayed() ? std::optional<uint32_t>(home_cell_) : std::nullopt;
  }

  friend constexpr bool operator==(const SessionKey&, const SessionKey&) = default;
  friend constexpr auto operator<=>(const SessionKey&, const SessionKey&) = default;

 private:
  // No cell of a split zone has this index (cells are far fewer): the key of a local session.
  static constexpr uint32_t kLocal = UINT32_MAX;

  constexpr SessionKey(uint64_t session, uint32_t home_cell)
      : session_(session), home_cell_(home_cell) {}

  uint64_t session_ = 0;
  uint32_t home_cell_ = kLocal;
};

}  // namespace zs::host

template <>
struct std::hash<zs::host::SessionKey> {
  size_t operator()(const zs::host::SessionKey& key) const noexcept {
    const uint64_t cell = key.home_cell().value_or(UINT32_MAX);
    return std::hash<uint64_t>{}(key.session() ^ (cell * 0x9E3779B97F4A7C15ULL));
  }
};
