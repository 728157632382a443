#include "client_sim/ws_client.h"

#include <openssl/evp.h>
#include <openssl/sha.h>

#include <algorithm>
#include <cctype>

namespace zs::sim {

namespace {

constexpr std::string_view kGuid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";  // RFC 6455 1.3
constexpr uint8_t kFinBinary = 0x82;
constexpr uint8_t kMaskBit = 0x80;

std::string Base64(const unsigned char* data, int size) {
  std::string out(static_cast<size_t>(4 * ((size + 2) / 3)), '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()), data, size);
  out.resize(static_cast<size_t>(n));
  return out;
}

std::string Lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

// The value of header `name` (lower case) in an HTTP head, trimmed; empty when absent.
std::string Header(std::string_view head, std::string_view name) {
  const std::string lower = Lower(head);
  const std::string key = "\r\n" + std::string(name) + ":";
  const size_t at = lower.find(key);
  if (at == std::string::npos) return {};
  size_t from = at + key.size();
  const size_t to = head.find("\r\n", from);
  while (from < to && (head[from] == ' ' || head[from] == '\t')) ++from;
  size_t end = to;
  while (end > from && (head[end - 1] == ' ' || head[end - 1] == '\t')) --end;
  return std::string(head.substr(from, end - from));
}

}  // namespace

std::string WsKey(const std::array<uint8_t, 16>& nonce) {
  return Base64(nonce.data(), static_cast<int>(nonce.size()));
}

std::string WsUpgradeRequest(std::string_view host, uint16_t port, std::string_view key,
                             uint32_t version) {
  return "GET / HTTP/1.1\r\nHost: " + std::string(host) + ":" + std::to_string(port) +
         "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
         "Sec-WebSocket-Key: " +
         std::string(key) + "\r\nSec-WebSocket-Protocol: zone.v" + std::to_string(version) +
         "\r\n\r\n";
}

size_t WsResponseEnd(std::string_view bytes) {
  const size_t at = bytes.find("\r\n\r\n");
  return at == std::string_view::npos ? std::string_view::npos : at + 4;
}

std::string CheckWsUpgrade(std::string_view response, std::string_view key, uint32_t version) {
  const std::string_view status = response.substr(0, response.find("\r\n"));
  if (!status.starts_with("HTTP/1.1 101")) return "upgrade refused: " + std::string(status);
  const std::string accept_in = std::string(key) + std::string(kGuid);
  std::array<unsigned char, SHA_DIGEST_LENGTH> digest{};
  SHA1(reinterpret_cast<const unsigned char*>(accept_in.data()), accept_in.size(), digest.data());
  if (Header(response, "sec-websocket-accept") != Base64(digest.data(), SHA_DIGEST_LENGTH)) {
    return "upgrade answered with a wrong Sec-WebSocket-Accept";
  }
  if (Header(response, "sec-websocket-protocol") != "zone.v" + std::to_string(version)) {
    return "upgrade answered without the subprotocol offered";
  }
  return {};
}

void AppendMaskedFrame(std::string_view payload, uint32_t mask, std::string* out) {
  out->push_back(static_cast<char>(kFinBinary));
  const size_t n = payload.size();
  if (n < 126) {
    out->push_back(static_cast<char>(kMaskBit | n));
  } else if (n <= 0xFFFF) {
    out->push_back(static_cast<char>(kMaskBit | 126));
    out->push_back(static_cast<char>(n >> 8));
    out->push_back(static_cast<char>(n & 0xFF));
  } else {
    out->push_back(static_cast<char>(kMaskBit | 127));
    for (int shift = 56; shift >= 0; shift -= 8) {
      out->push_back(static_cast<char>((static_cast<uint64_t>(n) >> shift) & 0xFF));
    }
  }
  const std::array<uint8_t, 4> m = {static_cast<uint8_t>(mask >> 24),
                                    static_cast<uint8_t>(mask >> 16),
                                    static_cast<uint8_t>(mask >> 8), static_cast<uint8_t>(mask)};
  out->append(reinterpret_cast<const char*>(m.data()), m.size());
  const size_t start = out->size();
  out->append(payload);
  for (size_t i = 0; i < n; ++i) {
    (*out)[start + i] = static_cast<char>(static_cast<uint8_t>((*out)[start + i]) ^ m[i % 4]);
  }
}

}  // namespace zs::sim
