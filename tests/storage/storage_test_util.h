// Helpers shared by the storage tests: records with every field set, temp dirs, waiting.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <thread>

#include "storage/character_record.h"

namespace zs::storage {

// How GoogleTest prints a record in a failure (found by ADL): the fields, not 112 bytes of hex.
inline void PrintTo(const CharacterRecord& r, std::ostream* os) {
  const zone::PlayerSnapshot& p = r.state;
  *os << "{" << r.name << " account " << r.account << " zone " << p.zone << " at (" << p.position.x
      << ", " << p.position.y << ") facing " << p.facing << " hp " << p.hp
      << (p.alive ? " alive" : " dead") << " respawn_ms " << p.respawn_ms << " cooldowns '"
      << EncodeCooldowns(p) << "' saved_at_ms " << r.saved_at_ms << "}";
}

}  // namespace zs::storage

namespace zs::storage::test {

// A record whose every field depends on `seed`, with `seed % 5` cooldowns (0..4).
inline CharacterRecord MakeRecord(const std::string& name, uint32_t seed) {
  CharacterRecord r{
      .name = name, .account = 1000 + seed, .state = {}, .saved_at_ms = 1'700'000'000'000 + seed};
  zone::PlayerSnapshot& p = r.state;
  p.zone = 1 + seed % 7;
  p.position = {0.1f + static_cast<float>(seed) * 1.37f, 1e-7f - static_cast<float>(seed) / 3.0f};
  p.facing = -3.1415926f + static_cast<float>(seed % 100) * 0.0631f;
  p.hp = static_cast<int32_t>(seed % 250) - 10;
  p.alive = seed % 3 != 0;
  p.respawn_ms = p.alive ? 0 : 500 + seed;
  p.num_cooldowns = seed % 5;
  for (uint32_t i = 0; i < p.num_cooldowns; ++i) {
    p.cooldowns[i] = {.skill = 10 + i, .remaining_ms = seed * 13 + i};
  }
  return r;
}

// A fresh directory under /tmp, removed (recursively) at the end of the scope.
class TempDir {
 public:
  TempDir() {
    std::string pattern = "/tmp/zs_storage_XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// Polls `done` every millisecond until it holds (true) or `seconds` pass (false).
inline bool WaitFor(const std::function<bool()>& done, double seconds) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < deadline) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return done();
}

}  // namespace zs::storage::test
