// Login tokens: every way a token can be wrong is refused, and a good one logs in exactly once.
#include <gtest/gtest.h>

#include <string>

#include "auth/authenticator.h"
#include "auth/base64url.h"
#include "auth/token.h"

namespace zs::auth {
namespace {

const std::string kSecret(40, 's');
constexpr int64_t kNow = 1'800'000'000;

Identity Aria(int64_t expiry = kNow + 300) {
  return {.account = 42, .name = "Aria", .expiry = expiry};
}

Authenticator TokenMode(size_t cache = 1000) {
  return Authenticator({.mode = AuthMode::kToken,
                        .secret = kSecret,
                        .max_token_ttl_seconds = 3600,
                        .replay_cache_size = cache});
}

TEST(Base64Url, RoundTripsEveryLengthAndRefusesNonCanonicalText) {
  std::string bytes;
  for (int i = 0; i < 70; ++i) {
    EXPECT_EQ(Base64UrlDecode(Base64UrlEncode(bytes)), bytes) << i;
    bytes.push_back(static_cast<char>(i * 37));
  }
  EXPECT_EQ(Base64UrlEncode("\xfb\xff"), "-_8");
  EXPECT_FALSE(Base64UrlDecode("QQ=="));  // padding
  EXPECT_FALSE(Base64UrlDecode("Q+"));    // the other alphabet
  EXPECT_FALSE(Base64UrlDecode("QR"));    // leftover bits set: a second spelling of "A"
  EXPECT_FALSE(Base64UrlDecode("Q"));     // six bits end no byte
  EXPECT_FALSE(Base64UrlDecode("QU E"));
}

TEST(Token, AGoodTokenCarriesItsAccountNameAndExpiry) {
  const TokenCodec codec(kSecret);
  const std::string token = codec.Sign(Aria());
  EXPECT_TRUE(token.starts_with("zs1."));
  EXPECT_LT(token.size(), 120u);
  Identity id;
  ASSERT_EQ(codec.Verify(token, &id), Refusal::kNone);
  EXPECT_EQ(id.account, 42u);
  EXPECT_EQ(id.name, "Aria");
  EXPECT_EQ(id.expiry, kNow + 300);
}

TEST(Token, ForgedWrongSecretTruncatedAndOversizedTokensAreRefused) {
  const TokenCodec codec(kSecret);
  const std::string token = codec.Sign(Aria());
  Identity id;
  std::string forged = token;
  forged[forged.size() - 3] = forged[forged.size() - 3] == 'A' ? 'B' : 'A';
  EXPECT_EQ(codec.Verify(forged, &id), Refusal::kBadSignature);
  // The payload changed to another account, with the original MAC.
  const std::string other =
      TokenCodec(kSecret).Sign({.account = 43, .name = "Aria", .expiry = kNow + 300});
  const std::string spliced =
      other.substr(0, other.rfind('.')) + "." + std::string(TokenCodec::MacPart(token));
  EXPECT_EQ(codec.Verify(spliced, &id), Refusal::kBadSignature);
  EXPECT_EQ(TokenCodec(std::string(40, 't')).Verify(token, &id), Refusal::kBadSignature);
  for (size_t cut : {size_t{0}, size_t{3}, size_t{4}, token.size() / 2, token.size() - 1}) {
    EXPECT_NE(codec.Verify(token.substr(0, cut), &id), Refusal::kNone) << cut;
  }
  EXPECT_EQ(codec.Verify(std::string(64 * 1024, 'A'), &id), Refusal::kTooLong);
  EXPECT_EQ(codec.Verify("zs2." + token.substr(4), &id), Refusal::kMalformed);
}

TEST(Token, EachTokenIsNewEvenForTheSameLoginInTheSameSecond) {
  const TokenCodec codec(kSecret);
  EXPECT_NE(codec.Sign(Aria()), codec.Sign(Aria())) << "the nonce: a token logs in once";
}

TEST(Token, ASignedButImpossiblePayloadIsRefused) {
  const TokenCodec codec(kSecret);
  Identity id;
  EXPECT_EQ(codec.Verify(codec.Sign({.account = 0, .name = "Aria", .expiry = kNow}), &id),
            Refusal::kBadPayload);
  EXPECT_EQ(codec.Verify(codec.Sign({.account = 1, .name = " Aria", .expiry = kNow}), &id),
            Refusal::kBadName);
  EXPECT_EQ(codec.Verify(codec.Sign({.account = 1, .name = "", .expiry = kNow}), &id),
            Refusal::kBadName);
}

TEST(Authenticator, ATokenLogsInOnceAndOnlyWhileValid) {
  Authenticator auth = TokenMode();
  const TokenCodec codec(kSecret);
  const std::string token = codec.Sign(Aria());
  Identity id;
  EXPECT_EQ(auth.Check(token, kNow, &id), Refusal::kNone);
  EXPECT_EQ(id.name, "Aria");
  EXPECT_EQ(auth.Check(token, kNow + 10, &id), Refusal::kReplayed) << "after a logout, say";
  EXPECT_EQ(auth.Check(codec.Sign(Aria(kNow - 1)), kNow, &id), Refusal::kExpired);
  EXPECT_EQ(auth.Check(codec.Sign(Aria(kNow)), kNow, &id), Refusal::kExpired);
  EXPECT_EQ(auth.Check(codec.Sign(Aria(kNow + 3601)), kNow, &id), Refusal::kTooFarAhead);
  EXPECT_EQ(auth.Check(token, kNow + 301, &id), Refusal::kExpired) << "and forgotten then";
  EXPECT_EQ(auth.Check(codec.Sign(Aria(kNow + 600)), kNow + 301, &id), Refusal::kNone);
  EXPECT_EQ(auth.remembered(), 1u) << "the expired token was forgotten";
}

TEST(Authenticator, AFullReplayCacheRefusesUntilTokensExpire) {
  Authenticator auth = TokenMode(/*cache=*/2);
  const TokenCodec codec(kSecret);
  Identity id;
  EXPECT_EQ(auth.Check(codec.Sign(Aria(kNow + 10)), kNow, &id), Refusal::kNone);
  EXPECT_EQ(auth.Check(codec.Sign(Aria(kNow + 20)), kNow, &id), Refusal::kNone);
  EXPECT_EQ(auth.Check(codec.Sign(Aria(kNow + 30)), kNow, &id), Refusal::kCacheFull);
  EXPECT_EQ(auth.Check(codec.Sign(Aria(kNow + 30)), kNow + 10, &id), Refusal::kNone)
      << "the first one expired and was forgotten";
  EXPECT_EQ(auth.remembered(), 2u);
}

TEST(Authenticator, ModeNoneChecksNoToken) {
  Authenticator auth({});
  EXPECT_EQ(auth.mode(), AuthMode::kNone);
  Identity id;
  EXPECT_NE(auth.Check(TokenCodec(kSecret).Sign(Aria()), kNow, &id), Refusal::kNone);
}

}  // namespace
}  // namespace zs::auth
