// The TCP framing (zs_client/framing.h) against every way bytes can arrive: whole, split at
// every byte, many frames per chunk, and hostile input (oversized lengths, malformed varints,
// random garbage), which must end in a typed error, never a crash or unbounded memory.
#include "zs_client/framing.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace zs::client {
namespace {

std::vector<uint8_t> Body(size_t n, uint8_t seed) {
  std::vector<uint8_t> b(n);
  for (size_t i = 0; i < n; ++i) b[i] = static_cast<uint8_t>(seed + i);
  return b;
}

TEST(ClientFraming, VarintsRoundTripAtEveryWidth) {
  for (const uint32_t n : {0U, 1U, 127U, 128U, 16383U, 16384U, 2097151U, 2097152U, 0xFFFFFFFFU}) {
    std::vector<uint8_t> out;
    AppendVarint(n, &out);
    EXPECT_EQ(out.size(), VarintSize(n));
    FrameDecoder d(0xFFFFFFFFU);
    d.Feed(out);
    EXPECT_EQ(d.buffered(), out.size());
  }
}

TEST(ClientFraming, FramesSplitAtEveryByteComeOutWhole) {
  std::vector<uint8_t> stream;
  const std::vector<size_t> sizes = {0, 1, 127, 128, 300, 5000};
  for (size_t i = 0; i < sizes.size(); ++i) {
    AppendFrame(Body(sizes[i], static_cast<uint8_t>(i)), &stream);
  }
  for (size_t split = 1; split < stream.size(); ++split) {
    FrameDecoder d(65536);
    std::vector<std::vector<uint8_t>> got;
    for (size_t at = 0; at < stream.size(); at += split) {
      const size_t n = std::min(split, stream.size() - at);
      d.Feed(std::span<const uint8_t>(stream.data() + at, n));
      while (auto body = d.Next()) got.emplace_back(body->begin(), body->end());
    }
    ASSERT_EQ(got.size(), sizes.size()) << "split " << split;
    for (size_t i = 0; i < sizes.size(); ++i) {
      EXPECT_EQ(got[i], Body(sizes[i], static_cast<uint8_t>(i)));
    }
    EXPECT_EQ(d.buffered(), 0U);
    EXPECT_EQ(d.error(), FrameError::kNone);
  }
}

TEST(ClientFraming, ALengthOverTheLimitIsRefusedBeforeItsBody) {
  FrameDecoder d(1000);
  std::vector<uint8_t> exact;
  AppendFrame(Body(1000, 1), &exact);
  d.Feed(exact);
  ASSERT_TRUE(d.Next().has_value());
  std::vector<uint8_t> prefix;
  AppendVarint(1001, &prefix);  // only the length: the body never needs to arrive
  d.Feed(prefix);
  EXPECT_FALSE(d.Next().has_value());
  EXPECT_EQ(d.error(), FrameError::kTooLarge);
  d.Feed(Body(5000, 0));  // ignored once failed
  EXPECT_FALSE(d.Next().has_value());
  EXPECT_LE(d.buffered(), prefix.size());
  d.Reset();
  EXPECT_EQ(d.error(), FrameError::kNone);
}

TEST(ClientFraming, AVarintOfMoreThan32BitsIsMalformed) {
  for (const std::vector<uint8_t>& bad :
       {std::vector<uint8_t>{0xFF, 0xFF, 0xFF, 0xFF, 0x10},
        std::vector<uint8_t>{0x80, 0x80, 0x80, 0x80, 0x80, 0x01},
        std::vector<uint8_t>{0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01}}) {
    FrameDecoder d(0xFFFFFFFFU);
    for (const uint8_t b : bad) d.Feed(std::span<const uint8_t>(&b, 1));
    EXPECT_FALSE(d.Next().has_value());
    EXPECT_EQ(d.error(), FrameError::kBadLength);
  }
  FrameDecoder d(0xFFFFFFFFU);  // 2^32 - 1 itself is a well-formed length, just incomplete
  d.Feed(std::vector<uint8_t>{0xFF, 0xFF, 0xFF, 0xFF, 0x0F});
  EXPECT_FALSE(d.Next().has_value());
  EXPECT_EQ(d.error(), FrameError::kNone);
}

TEST(ClientFraming, RandomGarbageNeverCrashesNorGrowsPastOneFrame) {
  std::mt19937 rng(7);
  for (int round = 0; round < 200; ++round) {
    FrameDecoder d(4096);
    for (int chunk = 0; chunk < 50; ++chunk) {
      std::vector<uint8_t> bytes(rng() % 700);
      for (uint8_t& b : bytes) b = static_cast<uint8_t>(rng());
      d.Feed(bytes);
      while (d.Next()) {
      }
      // What stays is at most one incomplete frame (prefix + body) plus the newest chunk.
      EXPECT_LE(d.buffered(), kMaxVarintBytes + 4096 + bytes.size());
      if (d.error() != FrameError::kNone) break;
    }
  }
}

}  // namespace
}  // namespace zs::client
