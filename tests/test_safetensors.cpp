#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "model/safetensors.h"
#include "support/safetensors_writer.h"
#include "support/temp_dir.h"

namespace geoalign::model {
namespace {

using namespace geoalign::testing;

std::string error_of(const std::filesystem::path& path) {
  try {
    SafetensorsFile::open(path);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

void expect_error_mentions(const std::string& message, const std::string& needle) {
  EXPECT_NE(message.find(needle), std::string::npos) << "message: " << message;
}

TEST(Safetensors, ReadsF32F16AndBf16AsF32) {
  TempDir dir;
  const std::vector<float> values = {1.0f, -2.5f, 0.15625f, 1024.0f, -0.0009765625f, 65504.0f};
  RawTensor bf16{"BF16", {2, 3}, std::string(12, '\0')};
  RawTensor f16{"F16", {6}, std::string(12, '\0')};
  for (std::size_t i = 0; i < values.size(); ++i) {
    const std::uint16_t b = to_bf16(values[i]), h = to_f16(values[i]);
    std::memcpy(bf16.bytes.data() + 2 * i, &b, 2);
    std::memcpy(f16.bytes.data() + 2 * i, &h, 2);
  }
  write_file(dir / "t.safetensors", safetensors_bytes({{"a", f32_tensor({2, 3}, values)}, {"b", bf16}, {"h", f16}}));
  const auto file = SafetensorsFile::open(dir / "t.safetensors");
  EXPECT_EQ(file.names(), (std::vector<std::string>{"a", "b", "h"}));
  EXPECT_EQ(file.load_f32("a").to_vector(), values);
  EXPECT_EQ(file.load_f32("a").shape(), (Shape{2, 3}));
  const auto b = file.load_f32("b").to_vector();
  const auto h = file.load_f32("h").to_vector();
  for (std::size_t i = 0; i < values.size(); ++i) {
    EXPECT_NEAR(b[i], values[i], std::abs(values[i]) / 128) << i;
    EXPECT_NEAR(h[i], values[i], std::abs(values[i]) / 1024) << i;
  }
}

TEST(Safetensors, F16SubnormalsConvertAndNonFiniteWeightsAreRefused) {
  TempDir dir;
  const std::uint16_t bits[] = {0x0001, 0x0200, 0x83FF, 0x3C00, 0x8000};
  RawTensor f16{"F16", {5}, std::string(reinterpret_cast<const char*>(bits), sizeof bits)};
  const std::uint16_t infinite[] = {0x3C00, 0xFC00};
  RawTensor f16_inf{"F16", {2}, std::string(reinterpret_cast<const char*>(infinite), sizeof infinite)};
  write_file(dir / "t.safetensors", safetensors_bytes({{"h", f16},
                                                      {"inf", f16_inf},
                                                      {"nan", f32_tensor({3}, {0.5f, 1.0f, std::nanf("")})}}));
  const auto file = SafetensorsFile::open(dir / "t.safetensors");
  const auto v = file.load_f32("h").to_vector();
  EXPECT_EQ(v[0], std::ldexp(1.0f, -24));
  EXPECT_EQ(v[1], std::ldexp(1.0f, -15));
  EXPECT_EQ(v[2], -1023 * std::ldexp(1.0f, -24));
  EXPECT_EQ(v[3], 1.0f);
  EXPECT_TRUE(std::signbit(v[4]) && v[4] == 0.0f);
  // A NaN weight made every embedding null and every label a comparison of NaNs.
  try {
    file.load_f32("nan");
    ADD_FAILURE() << "a NaN weight was accepted";
  } catch (const Error& e) {
    expect_error_mentions(e.what(), "tensor \"nan\" holds a non-finite value (nan at element 2)");
  }
  try {
    file.load_f32("inf");
    ADD_FAILURE() << "an infinite weight was accepted";
  } catch (const Error& e) {
    expect_error_mentions(e.what(), "tensor \"inf\" holds a non-finite value (-inf at element 1)");
  }
}

TEST(Safetensors, TruncatedFileNamesTheTensor) {
  TempDir dir;
  std::string bytes = safetensors_bytes({{"encoder.w", f32_tensor({4}, {1, 2, 3, 4})}});
  bytes.resize(bytes.size() - 3);
  write_file(dir / "t.safetensors", bytes);
  const std::string message = error_of(dir / "t.safetensors");
  expect_error_mentions(message, "encoder.w");
  expect_error_mentions(message, "truncated");
}

TEST(Safetensors, TruncatedHeader) {
  TempDir dir;
  write_file(dir / "t.safetensors", safetensors_bytes({{"w", f32_tensor({4}, {1, 2, 3, 4})}}).substr(0, 20));
  expect_error_mentions(error_of(dir / "t.safetensors"), "truncated");
  write_file(dir / "short.safetensors", "abc");
  expect_error_mentions(error_of(dir / "short.safetensors"), "too short");
}

TEST(Safetensors, UnknownDtypeIsNamed) {
  TempDir dir;
  write_file(dir / "t.safetensors", safetensors_bytes({{"w", RawTensor{"Q4_K", {2}, "ab"}}}));
  const std::string message = error_of(dir / "t.safetensors");
  expect_error_mentions(message, "Q4_K");
  expect_error_mentions(message, "\"w\"");
}

TEST(Safetensors, UnsupportedButValidDtypeFailsOnlyWhenRead) {
  TempDir dir;
  write_file(dir / "t.safetensors",
             safetensors_bytes({{"ids", RawTensor{"I64", {2}, std::string(16, '\0')}}, {"w", f32_tensor({1}, {5})}}));
  const auto file = SafetensorsFile::open(dir / "t.safetensors");
  EXPECT_EQ(file.load_f32("w").to_vector(), std::vector<float>{5});
  try {
    file.load_f32("ids");
    FAIL();
  } catch (const Error& e) {
    expect_error_mentions(e.what(), "I64");
  }
}

TEST(Safetensors, SizeThatDisagreesWithShape) {
  TempDir dir;
  write_file(dir / "t.safetensors", safetensors_bytes({{"w", RawTensor{"F32", {3}, std::string(8, '\0')}}}));
  expect_error_mentions(error_of(dir / "t.safetensors"), "expected 12");
}

TEST(Safetensors, MalformedHeaders) {
  TempDir dir;
  auto with_header = [&](const std::string& header) {
    std::string out(8, '\0');
    out[0] = static_cast<char>(header.size());
    write_file(dir / "t.safetensors", out + header);
    return error_of(dir / "t.safetensors");
  };
  expect_error_mentions(with_header("{not json"), "not valid JSON");
  expect_error_mentions(with_header(R"({"w":{"dtype":"F32","shape":[66304E66432],"data_offsets":[0,0]}})"),
                        "not valid JSON");  // found by fuzz_safetensors: overflow is not a parse_error
  expect_error_mentions(with_header("[1,2]"), "not a JSON object");
  expect_error_mentions(with_header(R"({"w":{"dtype":"F32","shape":[-1],"data_offsets":[0,0]}})"), "non-negative");
  expect_error_mentions(with_header(R"({"w":{"dtype":"F32","shape":[1]}})"), "data_offsets");
  expect_error_mentions(with_header(R"({"w":{"dtype":"F32","shape":[1],"data_offsets":[8,4]}})"), "outside");
  expect_error_mentions(error_of(dir / "missing.safetensors"), "cannot open");
}

// What the safetensors library itself refuses: one tensor's bytes read as another's.
TEST(Safetensors, OverlappingOrRepeatedTensorsAreRefused) {
  TempDir dir;
  auto with_header = [&](const std::string& header, std::size_t data_bytes) {
    std::string out(8, '\0');
    out[0] = static_cast<char>(header.size());
    write_file(dir / "t.safetensors", out + header + std::string(data_bytes, '\0'));
    return error_of(dir / "t.safetensors");
  };
  expect_error_mentions(with_header(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                                    R"("b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})", 12),
                        "tensors \"a\" and \"b\" overlap");
  expect_error_mentions(with_header(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},)"
                                    R"("a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})", 8),
                        "tensor \"a\" is listed twice");
  // Adjacent ranges, gaps and empty tensors are fine.
  EXPECT_EQ(with_header(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},)"
                        R"("b":{"dtype":"F32","shape":[0],"data_offsets":[4,4]},)"
                        R"("c":{"dtype":"F32","shape":[1],"data_offsets":[8,12]}})", 12),
            "");
}

TEST(Safetensors, MissingTensorIsNamed) {
  TempDir dir;
  write_file(dir / "t.safetensors", safetensors_bytes({{"w", f32_tensor({1}, {5})}}));
  const auto file = SafetensorsFile::open(dir / "t.safetensors");
  try {
    file.load_f32("classifier.weight");
    FAIL();
  } catch (const Error& e) {
    expect_error_mentions(e.what(), "classifier.weight");
  }
}

}  // namespace
}  // namespace geoalign::model
