// Fuzz target: a relay message from another node (docs/seamless.md "Relay"): a migrated
// player's client's input on its way to the player's owner, or a frame on its way to the
// client's home. cluster::DecodeRelay, then the same message encoded and decoded again.
//
// Input: the bytes of one NATS message on a cell's relay subject (the seeds are valid messages,
// tests/fuzz/corpus/relay_fuzz, written from text by protoc --encode).
// Properties (a crash, an abort or libFuzzer's timeout when broken):
//   - the link refuses the bytes or hands over a message: no exception, no crash;
//   - what it hands over is within the bounds it promises: cells of the split zone, a session in
//     1..kMaxRelayedSession, finite move and skill numbers, chat on a channel with text that is
//     text (empty when the home refused it), a frame that is one whole client frame (or none,
//     with a close), a held notice of 1..kMaxHeldSessions sessions from the home itself;
//   - the message encodes and decodes to the same.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>

#include "cluster/relay_codec.h"
#include "wire/chat_text.h"
#include "zone/test_world.h"

namespace zs::cluster {
namespace {

void Require(bool ok) {
  if (!ok) __builtin_trap();
}

// TestWorld's zone split in two: "west" owns cell 0, "east" cell 1.
const zone::WorldConfig& Split() {
  static const zone::WorldConfig world = zone::testing::SplitInTwo();
  return world;
}

void CheckInput(const host::ClientInput& input) {
  const auto* in = std::get_if<zone::PlayerInput>(&input);
  if (in == nullptr) return;
  if (const auto* move = std::get_if<zone::MoveInput>(in)) {
    Require(std::isfinite(move->direction.x) && std::isfinite(move->direction.y));
  } else if (const auto* skill = std::get_if<zone::SkillInput>(in)) {
    Require(std::isfinite(skill->facing) && std::isfinite(skill->target.x) &&
            std::isfinite(skill->target.y));
  } else if (const auto* chat = std::get_if<zone::ChatInput>(in)) {
    const auto channel = static_cast<uint32_t>(chat->channel);
    Require(channel >= 1 && channel <= 3);
    Require(chat->text_ok ? wire::IsChatText(chat->text) : chat->text.empty());
    Require(chat->to_name.size() <= kMaxRelayedName);
  }
}

void Run(std::string_view bytes) {
  const zone::WorldConfig& world = Split();
  RelayMessage m;
  if (DecodeRelay(bytes, world, &m).has_value()) return;
  Require(m.to.zone == 1 && m.to.to_cell < 2 && m.to.home_cell < 2 && m.from_cell < 2);
  if (m.what != RelayMessage::What::kHeld) {
    Require(m.to.session >= 1 && m.to.session <= host::kMaxRelayedSession);
  }
  if (m.what == RelayMessage::What::kInput) CheckInput(m.input);
  if (m.what == RelayMessage::What::kFrame) {
    Require(m.frame.size() <= kMaxRelayedFrame);
    Require(!m.frame.empty() || !m.close.empty());
  }
  if (m.what == RelayMessage::What::kHeld) {
    Require(!m.sessions.empty() && m.sessions.size() <= kMaxHeldSessions);
    Require(m.to.session == 0 && m.to.home_cell == m.from_cell);
    for (const uint64_t s : m.sessions) Require(s != 0 && s <= host::kMaxRelayedSession);
  }
  v1::Relay scratch;
  std::string again;
  EncodeRelay(m, world.zones[0].cells.nodes[m.from_cell], &scratch, &again);
  RelayMessage twice;
  Require(!DecodeRelay(again, world, &twice).has_value());
  Require(twice.what == m.what && twice.to.session == m.to.session &&
          twice.to.home_cell == m.to.home_cell && twice.frame == m.frame &&
          twice.close == m.close && twice.input.index() == m.input.index() &&
          twice.sessions == m.sessions);
}

}  // namespace
}  // namespace zs::cluster

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  zs::cluster::Run(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
