#include "protocol/text.h"

#include <gtest/gtest.h>

#include <string>

namespace parlor::protocol {
namespace {

constexpr auto npos = std::string_view::npos;

TEST(Utf8, AcceptsWellFormedText) {
  EXPECT_EQ(find_invalid_utf8(""), npos);
  EXPECT_EQ(find_invalid_utf8("alice"), npos);
  EXPECT_EQ(find_invalid_utf8("Zoë"), npos);                   // 2 bytes
  EXPECT_EQ(find_invalid_utf8("\xE2\x82\xAC"), npos);          // U+20AC, 3 bytes
  EXPECT_EQ(find_invalid_utf8("\xF0\x9F\x82\xA1"), npos);      // U+1F0A1 playing card, 4 bytes
  EXPECT_EQ(find_invalid_utf8("\xF4\x8F\xBF\xBF"), npos);      // U+10FFFF, the last code point
  EXPECT_EQ(find_invalid_utf8(std::string("a\0b", 3)), npos);  // NUL is valid UTF-8
}

TEST(Utf8, FindsTheFirstBadByte) {
  EXPECT_EQ(find_invalid_utf8("ab\xFF"), 2u);
  EXPECT_EQ(find_invalid_utf8("\x80"), 0u);              // lone continuation byte
  EXPECT_EQ(find_invalid_utf8("\xC0\x80"), 0u);          // overlong NUL
  EXPECT_EQ(find_invalid_utf8("\xC1\xBF"), 0u);          // overlong
  EXPECT_EQ(find_invalid_utf8("\xE0\x80\xAF"), 0u);      // overlong '/'
  EXPECT_EQ(find_invalid_utf8("\xED\xA0\x80"), 0u);      // surrogate U+D800
  EXPECT_EQ(find_invalid_utf8("\xF0\x80\x80\x80"), 0u);  // overlong
  EXPECT_EQ(find_invalid_utf8("\xF4\x90\x80\x80"), 0u);  // above U+10FFFF
  EXPECT_EQ(find_invalid_utf8("\xF5\x80\x80\x80"), 0u);
  EXPECT_EQ(find_invalid_utf8("ok\xE2\x82"), 2u);    // truncated at the end
  EXPECT_EQ(find_invalid_utf8("\xE2\x28\xA1"), 0u);  // bad continuation
  EXPECT_FALSE(is_valid_utf8("\xFE"));
  EXPECT_TRUE(is_valid_utf8("plain"));
}

TEST(Trim, RemovesAsciiWhitespaceAtBothEnds) {
  EXPECT_EQ(trim_ascii_whitespace("  bob\t\n"), "bob");
  EXPECT_EQ(trim_ascii_whitespace("a b"), "a b");
  EXPECT_EQ(trim_ascii_whitespace(" \r\n\t\f\v"), "");
  EXPECT_EQ(trim_ascii_whitespace(""), "");
}

TEST(ControlCharacters, FlagsC0C1DelAndDirectionOverrides) {
  EXPECT_FALSE(has_control_characters("Zoë 🂡"));
  EXPECT_TRUE(has_control_characters("a\nb"));
  EXPECT_FALSE(has_control_characters("a\nb\tc", "\t\n"));
  EXPECT_TRUE(has_control_characters("a\rb", "\t\n"));
  EXPECT_TRUE(has_control_characters(std::string("a\0b", 3)));
  EXPECT_TRUE(has_control_characters("a\x7F"));
  EXPECT_TRUE(has_control_characters("a\xC2\x85"));  // U+0085 NEL (C1)
  EXPECT_TRUE(
      has_control_characters("\xE2\x80\xAE"
                             "evil"));                   // U+202E right-to-left override
  EXPECT_TRUE(has_control_characters("x\xE2\x81\xA6"));  // U+2066 isolate
  EXPECT_TRUE(has_control_characters("x\xE2\x80\xA8"));  // U+2028 line separator
  EXPECT_TRUE(has_control_characters("bad\xFF"));
}

TEST(QuoteClientText, KeepsShortTextAndCutsLongTextAtCharacterBoundaries) {
  EXPECT_EQ(quote_client_text("hello"), "\"hello\"");
  EXPECT_EQ(quote_client_text(std::string(64, 'x')), '"' + std::string(64, 'x') + '"');
  EXPECT_EQ(quote_client_text(std::string(65, 'x')), '"' + std::string(64, 'x') + "...\"");
  // 'é' is 2 bytes: 5 of them do not fit in 9 bytes, and no half character is kept.
  EXPECT_EQ(quote_client_text("ééééé", 9), "\"éééé...\"");
}

TEST(TruncateUtf8, CutsOnlyBetweenCharacters) {
  EXPECT_EQ(truncate_utf8("hello", 10), "hello");
  EXPECT_EQ(truncate_utf8("hello", 3), "hel");
  EXPECT_EQ(truncate_utf8("ééé", 5), "éé");              // 2 bytes each: the third does not fit
  EXPECT_EQ(truncate_utf8("\xF0\x9F\x82\xA1x", 3), "");  // a 4-byte card symbol is kept whole
  EXPECT_EQ(truncate_utf8("", 4), "");
}

TEST(QuoteClientText, ReplacesInvalidBytesAndControls) {
  EXPECT_EQ(quote_client_text("a\xFF\xC0z"), "\"a??z\"");
  EXPECT_EQ(quote_client_text("line\nbreak"), "\"line?break\"");
  EXPECT_EQ(quote_client_text("\xE2\x80\xAEx"), "\"?x\"");
  EXPECT_TRUE(is_valid_utf8(quote_client_text("\xF0\x9F\x82")));
}

}  // namespace
}  // namespace parlor::protocol
