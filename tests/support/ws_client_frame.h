// A client-to-server WebSocket frame (RFC 6455 5.2) written out by hand, for tests that send
// what no client library would: any opcode, with or without FIN, mask or reserved bits. Written
// independently of the server's codec (server/wire/ws_codec.h), so the two check each other.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace zs::test {

inline std::string ClientFrame(uint8_t opcode, std::string_view payload, bool fin = true,
                               bool masked = true, uint8_t rsv = 0) {
  std::string out;
  out.push_back(static_cast<char>((fin ? 0x80 : 0) | rsv | opcode));
  const uint8_t mask_bit = masked ? 0x80 : 0;
  const size_t n = payload.size();
  if (n < 126) {
    out.push_back(static_cast<char>(mask_bit | n));
  } else if (n <= 0xFFFF) {
    out.push_back(static_cast<char>(mask_bit | 126));
    out.push_back(static_cast<char>(n >> 8));
    out.push_back(static_cast<char>(n & 0xFF));
  } else {
    out.push_back(static_cast<char>(mask_bit | 127));
    for (int s = 56; s >= 0; s -= 8) out.push_back(static_cast<char>((uint64_t{n} >> s) & 0xFF));
  }
  const uint8_t mask[4] = {0x37, 0xFA, 0x21, 0x3D};
  if (masked) out.append(reinterpret_cast<const char*>(mask), 4);
  for (size_t i = 0; i < n; ++i) {
    out.push_back(static_cast<char>(static_cast<uint8_t>(payload[i]) ^ (masked ? mask[i % 4] : 0)));
  }
  return out;
}

}  // namespace zs::test
