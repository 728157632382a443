// Frame codec: every split point of a valid stream decodes the same; every error is reported
// before the body is buffered.
#include "wire/frame_codec.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace zs::wire {
namespace {

std::string Stream(const std::vector<std::string>& bodies) {
  std::string out;
  for (const std::string& b : bodies) AppendFrame(b, &out);
  return out;
}

std::vector<std::string> DecodeAll(FrameDecoder* d) {
  std::vector<std::string> frames;
  std::string f;
  while (d->Next(&f) == FrameDecoder::Result::kFrame) frames.push_back(f);
  return frames;
}

TEST(FrameCodec, VarintMatchesProtobufEncoding) {
  std::string s;
  AppendVarint(0, &s);
  AppendVarint(1, &s);
  AppendVarint(127, &s);
  AppendVarint(128, &s);
  AppendVarint(300, &s);
  EXPECT_EQ(s, std::string("\x00\x01\x7f\x80\x01\xac\x02", 7));
}

TEST(FrameCodec, EverySplitPointDecodesTheSameFrames) {
  const std::vector<std::string> bodies = {
      "", "a", std::string(127, 'b'), std::string(128, 'c'), std::string(20000, 'd'), "end"};
  const std::string stream = Stream(bodies);
  for (size_t split = 0; split <= stream.size(); split += (split < 300 ? 1 : 997)) {
    FrameDecoder d(64 * 1024);
    std::vector<std::string> got;
    d.Feed(std::string_view(stream).substr(0, split));
    for (const std::string& f : DecodeAll(&d)) got.push_back(f);
    d.Feed(std::string_view(stream).substr(split));
    for (const std::string& f : DecodeAll(&d)) got.push_back(f);
    ASSERT_EQ(got, bodies) << "split at " << split;
    ASSERT_EQ(d.buffered(), 0u);
    ASSERT_FALSE(d.failed());
  }
}

TEST(FrameCodec, ByteByByte) {
  const std::vector<std::string> bodies = {"hello", std::string(300, 'x'), ""};
  const std::string stream = Stream(bodies);
  FrameDecoder d(1024);
  std::vector<std::string> got;
  for (char c : stream) {
    d.Feed(std::string_view(&c, 1));
    for (const std::string& f : DecodeAll(&d)) got.push_back(f);
  }
  EXPECT_EQ(got, bodies);
}

TEST(FrameCodec, OversizeLengthIsRejectedBeforeTheBody) {
  FrameDecoder d(64 * 1024);
  std::string prefix;
  AppendVarint(64 * 1024 + 1, &prefix);
  d.Feed(prefix);  // no body at all: the length alone is enough to refuse
  std::string f;
  EXPECT_EQ(d.Next(&f), FrameDecoder::Result::kError);
  EXPECT_EQ(d.error(), FrameError::kTooLarge);
  EXPECT_EQ(d.Next(&f), FrameDecoder::Result::kError);  // stays failed
}

TEST(FrameCodec, ExactlyTheLimitIsAccepted) {
  FrameDecoder d(100);
  std::string s;
  AppendFrame(std::string(100, 'z'), &s);
  d.Feed(s);
  std::string f;
  EXPECT_EQ(d.Next(&f), FrameDecoder::Result::kFrame);
  EXPECT_EQ(f.size(), 100u);
}

TEST(FrameCodec, OverlongVarintIsInvalid) {
  FrameDecoder d(64 * 1024);
  d.Feed(std::string("\x80\x80\x80\x80\x80\x01", 6));
  std::string f;
  EXPECT_EQ(d.Next(&f), FrameDecoder::Result::kError);
  EXPECT_EQ(d.error(), FrameError::kInvalidLength);
}

TEST(FrameCodec, TruncatedFrameNeedsMore) {
  FrameDecoder d(1024);
  std::string s;
  AppendFrame("0123456789", &s);
  d.Feed(std::string_view(s).substr(0, 5));
  std::string f;
  EXPECT_EQ(d.Next(&f), FrameDecoder::Result::kNeedMore);
  EXPECT_EQ(d.buffered(), 5u);
  EXPECT_FALSE(d.failed());
}

}  // namespace
}  // namespace zs::wire
