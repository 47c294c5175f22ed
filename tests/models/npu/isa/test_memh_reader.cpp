// .memh reader and listing formatter.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "models/npu/isa/memh_reader.h"

using namespace pccx::isa;

namespace {

const std::string kData = PCCX_ISA_TEST_DATA_DIR;

std::string data(const std::string& name) {
  return kData + "/" + name;
}

// The memh_error message for `path`, or "" (and a failure) if none.
std::string error_of(const std::string& path) {
  try {
    (void)read_memh(path);
  } catch (const memh_error& e) {
    return e.what();
  }
  ADD_FAILURE() << path << " was accepted";
  return "";
}

std::string parse_error(const std::string& text) {
  std::istringstream in(text);
  try {
    (void)parse_memh(in, "mem");
  } catch (const memh_error& e) {
    return e.what();
  }
  ADD_FAILURE() << "accepted: " << text;
  return "";
}

}  // namespace

TEST(Memh, ReadsGoodFile) {
  const std::vector<uint64_t> expect = {0x3000000000000000ull, 0x3420001080008000ull,
                                        0x2800200000000004ull, 0x000800080300c420ull,
                                        0x4000800080020039ull};
  EXPECT_EQ(read_memh(data("good.memh")), expect);
}

TEST(Memh, CommentsBlankLinesAndCase) {
  const std::vector<uint64_t> expect = {0x3000000000000000ull, 0xabcdef0123456789ull,
                                        0xABCDEF0123456789ull, 0x2800200000000004ull};
  EXPECT_EQ(read_memh(data("comments.memh")), expect);
}

TEST(Memh, EmptyFileGivesNoWords) {
  EXPECT_TRUE(read_memh(data("only_comments.memh")).empty());
}

TEST(Memh, CrLfLineEndings) {
  std::istringstream in("3000000000000000\r\n  0000000000000001 \r\n\r\n");
  EXPECT_EQ(parse_memh(in, "crlf"),
            (std::vector<uint64_t>{0x3000000000000000ull, 0x0000000000000001ull}));
}

TEST(Memh, AddressRecordsRejected) {
  EXPECT_EQ(error_of(data("address.memh")),
            data("address.memh") +
                ":3: address records are not supported (one word per line from 0): '@0010'");
}

TEST(Memh, ShortWordRejected) {
  EXPECT_EQ(error_of(data("short_word.memh")),
            data("short_word.memh") + ":2: expected 16 hex digits, got 15: '300000000000000'");
}

TEST(Memh, LongWordRejected) {
  EXPECT_EQ(error_of(data("long_word.memh")),
            data("long_word.memh") + ":4: expected 16 hex digits, got 17: '30000000000000000'");
}

TEST(Memh, NonHexRejected) {
  EXPECT_EQ(error_of(data("non_hex.memh")),
            data("non_hex.memh") + ":2: non-hex character 'g': '30000000000g0000'");
  EXPECT_EQ(parse_error("0x30000000000000"), "mem:1: non-hex character 'x': '0x30000000000000'");
}

TEST(Memh, TwoWordsOnOneLineRejected) {
  EXPECT_EQ(error_of(data("two_words.memh")),
            data("two_words.memh") +
                ":1: expected one word per line: '3000000000000000 3000000000000000'");
}

TEST(Memh, UnreadableFiles) {
  const std::string missing = data("does_not_exist.memh");
  EXPECT_EQ(error_of(missing), missing + ": cannot open file: No such file or directory");
  EXPECT_EQ(error_of(kData), kData + ": cannot open file: is a directory");
}

TEST(Memh, ErrorIsARuntimeError) {
  EXPECT_THROW(read_memh(data("address.memh")), std::runtime_error);
}

TEST(Memh, FormatListing) {
  const std::vector<uint64_t> words = read_memh(data("good.memh"));
  std::vector<uint64_t> with_bad = words;
  with_bad.push_back(0xF000000000000000ull);
  EXPECT_EQ(format_listing(with_bad, decode_limits{}),
            "0000: 3000000000000000  MEMSET fmap_shape[0] <- (0, 0, 0)\n"
            "0001: 3420001080008000  MEMSET weight_shape[2] <- (1, 2048, 2048)\n"
            "0002: 2800200000000004  MEMCPY host->L2 dest=0x00010 src=0x00000 shape=fmap_shape[2]\n"
            "0003: 000800080300c420  GEMV dest=0x00100 src=0x00200 flags=findemax|accm "
            "size=fmap_shape[3] shape=weight_shape[4] lanes=4\n"
            "0004: 4000800080020039  CVO EXP src=0x00100 dst=0x00200 len=2048 "
            "flags=sub_emax|recip_scale|accm async\n"
            "0005: f000000000000000  .word 0xf000000000000000 ; illegal: ERR_UNKNOWN_OPCODE: "
            "opcode 0xf: reserved opcode\n");
  EXPECT_EQ(format_listing({}, decode_limits{}), "");
}
