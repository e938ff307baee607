// One version: meson.build's project version (passed in as ENCORE_MESON_VERSION), the macros of
// the generated <encore/version.h> and of <rocprofiler-sdk/version.h>, and what the library
// answers at run time (rocprofiler_get_version) must all agree.
#include <encore/version.h>
#include <rocprofiler-sdk/rocprofiler.h>

#include <doctest/doctest.h>

#include <cstdint>
#include <string>

#ifndef ENCORE_MESON_VERSION
#    error "build with -DENCORE_MESON_VERSION=\"<meson.project_version()>\""
#endif

TEST_CASE("version macros, rocprofiler_get_version and meson.build agree") {
    const std::string meson_version = ENCORE_MESON_VERSION;
    CHECK(std::string(ENCORE_VERSION_STRING) == meson_version);
    CHECK(std::string(ROCPROFILER_VERSION_STRING) == meson_version);
    CHECK(std::to_string(ENCORE_VERSION_MAJOR) + "." + std::to_string(ENCORE_VERSION_MINOR) + "." +
              std::to_string(ENCORE_VERSION_PATCH) ==
          meson_version);

    std::uint32_t major = 999, minor = 999, patch = 999;
    REQUIRE(rocprofiler_get_version(&major, &minor, &patch) == ROCPROFILER_STATUS_SUCCESS);
    CHECK(std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch) == meson_version);

    // The reference SDK's encoding, which rocprofiler_configure's `version` argument uses.
    CHECK(ROCPROFILER_SDK_VERSION == 10000 * major + 100 * minor + patch);
    CHECK(ENCORE_VERSION_NUMBER == ROCPROFILER_SDK_VERSION);
    CHECK(ROCPROFILER_VERSION_MAJOR == ENCORE_VERSION_MAJOR);
    CHECK(ROCPROFILER_VERSION_MINOR == ENCORE_VERSION_MINOR);
    CHECK(ROCPROFILER_VERSION_PATCH == ENCORE_VERSION_PATCH);
}
