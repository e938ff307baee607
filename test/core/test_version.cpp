// Two versions, each written once in meson.build: encore's own (project version; passed in as
// ENCORE_MESON_VERSION) and the rocprofiler-sdk API level encore implements
// (rocprofiler_sdk_api_version; ENCORE_MESON_SDK_API_VERSION). The generated macros, the
// reference's macros, what rocprofiler_configure is handed and the run-time queries must agree.
#include <encore/version.h>
#include <rocprofiler-sdk/rocprofiler.h>
#include <rocprofiler-sdk/cxx/operators.hpp>
#include <rocprofiler-sdk/cxx/version.hpp>

#include <doctest/doctest.h>

#include "../../src/core/registration.hpp"

#include <cstdint>
#include <string>

#ifndef ENCORE_MESON_VERSION
#    error "build with -DENCORE_MESON_VERSION=\"<meson.project_version()>\""
#endif
#ifndef ENCORE_MESON_SDK_API_VERSION
#    error "build with -DENCORE_MESON_SDK_API_VERSION=\"<rocprofiler_sdk_api_version>\""
#endif

namespace {
std::string dotted(std::uint32_t major, std::uint32_t minor, std::uint32_t patch) {
    return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}
}  // namespace

// A tool that requires rocprofiler-sdk 1.0 or newer accepts these headers.
#if ROCPROFILER_SDK_VERSION < ROCPROFILER_SDK_COMPUTE_VERSION(1, 0, 0)
#    error "the rocprofiler-sdk API level must be a 1.x release"
#endif
static_assert(ROCPROFILER_IS_ROCPROFILER_SDK == 1);
static_assert(ROCPROFILER_SDK_COMPUTE_VERSION(1, 4, 1) == 10401);
static_assert(ROCPROFILER_SDK_COMPUTE_VERSION_VALUE(1000, 1, 4, 1) == 1004001);
static_assert(ROCPROFILER_VERSION == ROCPROFILER_SDK_VERSION);
static_assert(ROCPROFILER_SDK_VERSION_MAJOR == ENCORE_ROCPROFILER_SDK_API_MAJOR);
static_assert(ROCPROFILER_VERSION_MAJOR == ROCPROFILER_SDK_VERSION_MAJOR &&
              ROCPROFILER_VERSION_MINOR == ROCPROFILER_SDK_VERSION_MINOR &&
              ROCPROFILER_VERSION_PATCH == ROCPROFILER_SDK_VERSION_PATCH);
static_assert(ROCPROFILER_SDK_SOVERSION == ROCPROFILER_SDK_VERSION_MAJOR);

TEST_CASE("encore's version: meson.build, ENCORE_VERSION_* and encore_get_version agree") {
    const std::string meson_version = ENCORE_MESON_VERSION;
    CHECK(std::string(ENCORE_VERSION_STRING) == meson_version);
    CHECK(dotted(ENCORE_VERSION_MAJOR, ENCORE_VERSION_MINOR, ENCORE_VERSION_PATCH) == meson_version);
    CHECK(ENCORE_VERSION_NUMBER ==
          ENCORE_COMPUTE_VERSION(ENCORE_VERSION_MAJOR, ENCORE_VERSION_MINOR, ENCORE_VERSION_PATCH));
    std::uint32_t major = 999, minor = 999, patch = 999;
    REQUIRE(encore_get_version(&major, &minor, &patch) == ROCPROFILER_STATUS_SUCCESS);
    CHECK(dotted(major, minor, patch) == meson_version);
    // Any pointer may be null; the others are still written; repeated calls answer the same.
    std::uint32_t only_minor = 999;
    CHECK(encore_get_version(nullptr, &only_minor, nullptr) == ROCPROFILER_STATUS_SUCCESS);
    CHECK(only_minor == minor);
    CHECK(encore_get_version(nullptr, nullptr, nullptr) == ROCPROFILER_STATUS_SUCCESS);
    std::uint32_t again = 999;
    CHECK(encore_get_version(&again, nullptr, nullptr) == ROCPROFILER_STATUS_SUCCESS);
    CHECK(again == major);
    CHECK(std::string(ROCPROFILER_SDK_GIT_DESCRIBE) == "encore-" + meson_version);
}

TEST_CASE("the rocprofiler-sdk API level: meson.build, ROCPROFILER_* and the run-time queries agree") {
    const std::string api = ENCORE_MESON_SDK_API_VERSION;
    CHECK(std::string(ROCPROFILER_SDK_VERSION_STRING) == api);
    CHECK(std::string(ROCPROFILER_VERSION_STRING) == api);
    CHECK(std::string(ENCORE_ROCPROFILER_SDK_API_STRING) == api);
    CHECK(dotted(ROCPROFILER_SDK_VERSION_MAJOR, ROCPROFILER_SDK_VERSION_MINOR, ROCPROFILER_SDK_VERSION_PATCH) == api);

    std::uint32_t major = 999, minor = 999, patch = 999;
    REQUIRE(rocprofiler_get_version(&major, &minor, &patch) == ROCPROFILER_STATUS_SUCCESS);
    CHECK(dotted(major, minor, patch) == api);
    CHECK(ROCPROFILER_SDK_VERSION == 10000 * major + 100 * minor + patch);
    std::uint32_t only_patch = 999;
    CHECK(rocprofiler_get_version(nullptr, nullptr, &only_patch) == ROCPROFILER_STATUS_SUCCESS);
    CHECK(only_patch == patch);
    CHECK(rocprofiler_get_version(nullptr, nullptr, nullptr) == ROCPROFILER_STATUS_SUCCESS);

    rocprofiler_version_triplet_t t{999, 999, 999};
    REQUIRE(rocprofiler_get_version_triplet(&t) == ROCPROFILER_STATUS_SUCCESS);
    CHECK(t == rocprofiler_version_triplet_t{major, minor, patch});
    CHECK(rocprofiler_get_version_triplet(nullptr) == ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT);
    rocprofiler_version_triplet_t again{};
    REQUIRE(rocprofiler_get_version_triplet(&again) == ROCPROFILER_STATUS_SUCCESS);
    CHECK(again == t);
    CHECK(rocprofiler::sdk::version::compute_version_triplet(ROCPROFILER_SDK_VERSION) == t);
    CHECK(rocprofiler_version_triplet_t{1, 0, 0} <= t);

    // encore's version is another number: the API level does not follow it.
    std::uint32_t encore_major = 999;
    REQUIRE(encore_get_version(&encore_major, nullptr, nullptr) == ROCPROFILER_STATUS_SUCCESS);
    CHECK(encore_major == ENCORE_VERSION_MAJOR);
}

TEST_CASE("rocprofiler_configure gets the API level, encoded and as a string, as the reference passes them") {
    static std::uint32_t got_version = 0;
    static std::string got_string;
    struct probe {
        static rocprofiler_tool_configure_result_t* configure(std::uint32_t version, const char* s, std::uint32_t,
                                                              rocprofiler_client_id_t* id) {
            got_version = version;
            got_string = s != nullptr ? s : "(null)";
            id->name = "version-probe";
            return nullptr;  // declines: nothing else to do
        }
    };
    encore::core::reset_registration_for_testing();
    REQUIRE(rocprofiler_force_configure(&probe::configure) == ROCPROFILER_STATUS_SUCCESS);
    encore::core::initialize();
    CHECK(got_version == ROCPROFILER_SDK_VERSION);
    CHECK(got_string == ROCPROFILER_SDK_VERSION_STRING);
    // What the reference's samples check: the triplet of `version` is the run-time triplet.
    rocprofiler_version_triplet_t runtime{};
    REQUIRE(rocprofiler_get_version_triplet(&runtime) == ROCPROFILER_STATUS_SUCCESS);
    CHECK(rocprofiler::sdk::version::compute_version_triplet<100>(got_version) == runtime);
    encore::core::finalize();
}
