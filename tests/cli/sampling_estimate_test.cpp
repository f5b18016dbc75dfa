// The pieces of sampled recording that the real-path tests (tests/tracer/sampling_test.cpp)
// cannot pin down exactly: --sample-bytes's units, the module name that carries the interval,
// and the estimate of one sample, whose rounding must add no bias.
#include <gtest/gtest.h>

#include <cmath>

#include "cli/byte_count_option.h"
#include "model/sampling.h"

namespace rtrace {
namespace {

TEST(ByteCount, UnitsAreBinaryAndCaseInsensitive) {
  EXPECT_EQ(cli::parse_byte_count("0"), 0U);
  EXPECT_EQ(cli::parse_byte_count("4096"), 4096U);
  EXPECT_EQ(cli::parse_byte_count("512K"), 524288U);
  EXPECT_EQ(cli::parse_byte_count("4KiB"), 4096U);
  EXPECT_EQ(cli::parse_byte_count("4kib"), 4096U);
  EXPECT_EQ(cli::parse_byte_count("2M"), 2097152U);
  EXPECT_EQ(cli::parse_byte_count("1GiB"), 1073741824U);
  EXPECT_EQ(cli::parse_byte_count(""), std::nullopt);
  EXPECT_EQ(cli::parse_byte_count("K"), std::nullopt);
  EXPECT_EQ(cli::parse_byte_count("4X"), std::nullopt);
  EXPECT_EQ(cli::parse_byte_count("-4K"), std::nullopt);
  EXPECT_EQ(cli::parse_byte_count("17179869184G"), std::nullopt);  // 2^64 bytes
}

TEST(Sampling, TheModuleNameCarriesTheInterval) {
  EXPECT_EQ(sampling_interval("sample-bytes=524288"), 524288U);
  EXPECT_EQ(sampling_interval("sample-bytes=0"), std::nullopt);
  EXPECT_EQ(sampling_interval("sample-bytes="), std::nullopt);
  EXPECT_EQ(sampling_interval("sample-bytes=12x"), std::nullopt);
  EXPECT_EQ(sampling_interval("memory"), std::nullopt);
  EXPECT_EQ(sampling_note(4096), "estimated (sampled every 4096 bytes)");
}

TEST(Sampling, OneSampleStandsForOneOverItsProbability) {
  EXPECT_EQ(estimate_sample(100, 0, 7), (SampleEstimate{.count = 1, .bytes = 100}));
  EXPECT_DOUBLE_EQ(sample_weight(4096, 4096), 1.0 / (1.0 - std::exp(-1.0)));
  // Far larger than the interval: always sampled, standing for itself.
  EXPECT_EQ(estimate_sample(1 << 20, 4096, 7), (SampleEstimate{.count = 1, .bytes = 1 << 20}));
  // Far smaller: about interval / size blocks, about the interval's bytes.
  const SampleEstimate small = estimate_sample(64, 524288, 7);
  EXPECT_NEAR(static_cast<double>(small.count), 524288.0 / 64, 1.0);
  EXPECT_NEAR(static_cast<double>(small.bytes), 524288.0 + 32, 1.0);
  // The same size and key give the same estimate (a release takes back what its allocation
  // added).
  EXPECT_EQ(estimate_sample(4096, 4096, 12345), estimate_sample(4096, 4096, 12345));
}

TEST(Sampling, RoundingTheCountAddsNoBias) {
  // A weight of 1.582 counts 2 for 58.2 % of the keys: over many keys the mean is the weight.
  double total = 0;
  constexpr int kKeys = 100000;
  for (int key = 0; key < kKeys; ++key) {
    total +=
        static_cast<double>(estimate_sample(4096, 4096, static_cast<std::uint64_t>(key)).count);
  }
  EXPECT_NEAR(total / kKeys, sample_weight(4096, 4096), 0.01);
}

}  // namespace
}  // namespace rtrace
