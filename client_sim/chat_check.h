// ChatCheck: does a `say` reach exactly the players within the zone's chat radius?
//
// The server's rule (proto/zone.proto, Chat): a `say` said in tick T reaches every player whose
// hitbox overlaps the circle of chat_radius around the speaker's position at the end of tick T,
// in the TickUpdate of tick T. client_sim checks it from the outside: every verifying bot is a
// Listener that records where it stood at the end of each tick (its own `self` position, exact
// in centimetres) and which says it heard in which tick; a speaker records its own line (it hears
// itself) with its position. After the run, every said line is checked against every listener
// that was in the same zone in that tick:
//   say_missed      within the radius (2 cm inside, for rounding) but not heard;
//   say_too_far     heard, but beyond the radius (2 cm outside);
//   say_wrong_tick  heard in another tick than the one it was said in.
// Pure: no sockets, no clock. Bots hand their records to a shared ChatCheck (thread-safe).
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace zs::sim {

struct SaidLine {
  std::string token;  // the text: unique per line in a run
  uint64_t tick = 0;
  uint32_t zone = 0;
  int32_t x = 0;  // the speaker's position at the end of `tick`, centimetres
  int32_t y = 0;
  uint32_t chat_radius = 0;  // centimetres
};

struct Listener {
  struct Place {
    uint64_t tick = 0;
    uint32_t zone = 0;
    int32_t x = 0;
    int32_t y = 0;
  };
  uint32_t radius = 0;                              // its hitbox, centimetres
  std::vector<Place> places;                        // one per tick received, ascending ticks
  std::unordered_map<std::string, uint64_t> heard;  // say token -> tick it arrived in
};

class ChatCheck {
 public:
  inline static constexpr int64_t kSlackCm = 2;

  void Said(SaidLine line);
  void AddListener(Listener listener);
  [[nodiscard]] size_t lines() const;
  // Checks every line against every listener; violations by kind (empty when all is well).
  [[nodiscard]] std::map<std::string, uint64_t> Check() const;

 private:
  mutable std::mutex mu_;
  std::vector<SaidLine> said_;       // guarded by mu_
  std::vector<Listener> listeners_;  // guarded by mu_
};

}  // namespace zs::sim
