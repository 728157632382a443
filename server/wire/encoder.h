// Server -> client frames. Each function returns one complete frame (varint length prefix +
// ServerMessage), ready to append to a connection's send queue.
//
// TickEncoder follows DESIGN.md: each entity's EntityEnter and EntityUpdate, and each hit
// event, are encoded once per tick; a player's TickUpdate is then assembled from those shared
// pieces by copying bytes (protobuf's wire format lets a repeated message field be written as
// tag + length + the already-encoded message). Not thread-safe: one per zone runner.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "zone/world_config.h"
#include "zone/zone_types.h"

namespace zs::wire {

enum class ErrorCode : uint32_t {  // mirrors zone.proto ErrorCode; DO NOT RENUMBER
  kProtocolVersion = 1,
  kBadFrame = 2,
  kNotLoggedIn = 3,
  kAlreadyLoggedIn = 4,
  kBadValue = 5,
  kRateLimited = 6,
  kServerFull = 7,
  kBadName = 8,
};

std::string WelcomeFrame(EntityId player, Vec2 position, const zone::ZoneConfig& zone,
                         uint32_t tick_rate, uint64_t server_tick);
std::string ZoneChangedFrame(const zone::ZoneConfig& zone, Vec2 arrival);
std::string PongFrame(uint64_t client_time, uint64_t server_tick);
std::string ErrorFrame(ErrorCode code, std::string_view message);
std::string KickFrame(std::string_view reason);

class TickEncoder {
 public:
  // Encodes one tick of one zone: after this, Frame(i) is the frame for out.views[i].
  // resync[i] != 0 marks view i's TickUpdate as a resync (`entered` is everything known).
  void Encode(const zone::ZoneTickOutput& out, std::span<const uint8_t> resync = {});
  // All of this tick's frames in one shared buffer, frame i at [FrameOffset(i),
  // FrameOffset(i + 1)): connections send straight from it, no copy per client.
  // After this, Frame() is empty until the next Encode().
  [[nodiscard]] std::shared_ptr<const std::string> TakeFrames() {
    return std::make_shared<const std::string>(std::move(frames_));
  }
  [[nodiscard]] size_t FrameOffset(size_t view) const { return frame_off_[view]; }
  [[nodiscard]] std::string_view Frame(size_t view) const {
    return std::string_view(frames_).substr(frame_off_[view],
                                            frame_off_[view + 1] - frame_off_[view]);
  }
  // Size of the encoded EntityUpdate of `slot` this tick (0 when it did not change).
  [[nodiscard]] size_t UpdateBytes(uint32_t slot) const {
    return update_.off[slot + 1] - update_.off[slot];
  }
  [[nodiscard]] size_t EnterBytes(uint32_t slot) const {
    return enter_.off[slot + 1] - enter_.off[slot];
  }

 private:
  struct Pieces {  // piece i is bytes[off[i], off[i+1])
    std::string bytes;
    std::vector<uint32_t> off;
    void Clear() {
      bytes.clear();
      off.assign(1, 0);
    }
    void Close() { off.push_back(static_cast<uint32_t>(bytes.size())); }
    [[nodiscard]] std::string_view Get(size_t i) const {
      return std::string_view(bytes).substr(off[i], off[i + 1] - off[i]);
    }
  };
  Pieces enter_;
  Pieces update_;
  Pieces self_;  // the player's own update: always at least its id
  Pieces hits_;
  std::string body_;
  std::string frames_;
  std::vector<uint32_t> frame_off_;
  std::string scratch_;
};

}  // namespace zs::wire
