// Input quoted in messages: control characters escaped, bytes that are not
// UTF-8 shown as \xNN, long input cut and counted.
#include "infra/text/quote.h"

#include <gtest/gtest.h>

#include <string>

using namespace pccx::text;

TEST(Quote, ControlCharactersAreEscaped) {
  EXPECT_EQ(escaped(std::string("a\nb\tc\rd\x1b[31me\x01", 14)), "a\\nb\\tc\\rd\\e[31me\\x01");
  EXPECT_EQ(escaped(std::string("nul\0here", 8)), "nul\\x00here");
  EXPECT_EQ(escaped("\x7f"), "\\x7F");
}

TEST(Quote, Utf8StaysAndOtherBytesAreShownAsHex) {
  EXPECT_EQ(escaped("caf\xc3\xa9 \xea\xb0\x80"), "caf\xc3\xa9 \xea\xb0\x80");
  EXPECT_EQ(escaped("bad \xff\xc3("), "bad \\xFF\\xC3(");
  EXPECT_EQ(escaped("cut \xe2\x82"), "cut \\xE2\\x82");  // a sequence cut short
}

TEST(Quote, LongInputIsCutAndCounted) {
  const std::string big(100000, 'x');
  // The cut input ends in the marker "..." and the count of bytes left out.
  EXPECT_EQ(escaped(big, 10), std::string(10, 'x') + "... (99990 more bytes)");
  EXPECT_EQ(escaped("short", 10), "short");
}

TEST(Quote, QuotedEscapesItsQuotes) {
  EXPECT_EQ(quoted("say \"hi\"\\"), "\"say \\\"hi\\\"\\\\\"");
}

TEST(Quote, AMessageKeepsItsLinesAndCutsEachOne) {
  EXPECT_EQ(printable_message("one\ntwo\x1b]0;title\x07"), "one\ntwo\\e]0;title\\x07");
  EXPECT_EQ(printable_message(std::string(50, 'y') + "\nz", 5), "yyyyy... (45 more bytes)\nz");
  EXPECT_EQ(printable_message("ends\n"), "ends\n");
}
