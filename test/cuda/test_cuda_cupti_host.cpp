// test/cuda/test_cuda_cupti_host.cpp — the host side of CUDA's counter source (src/cuda/
// cupti_profiler.cpp) and encore's counter API over it (core/counting.cpp, encore/counters.h),
// against the libcupti named by ENCORE_TEST_CUPTI_LIBRARY for chip ENCORE_TEST_CUPTI_CHIP: the
// fake (fake_cupti_profiler.cpp, chip FAKE100, in CI) or CUDA 13's real one (-Dcupti_library=...,
// chip GH100, the H200's), whose profiler host API works without a GPU. Listing, counters by
// name, counter info, validation of configs (EXCEEDS_HW_LIMIT, METRIC_NOT_VALID_FOR_AGENT) and
// pass scheduling; every function's bad input. Exact pass counts are the fake's rule; against the
// real library the checks are the relations that must hold (a group fits one pass, the groups are
// at least CUPTI's own count, all of them together exceed one pass).
#include "cuda/cupti_profiler.hpp"

#include <encore/counters.h>
#include <rocprofiler-sdk/counter_config.h>
#include <rocprofiler-sdk/counters.h>

#include <doctest/doctest.h>

#include <dlfcn.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace cp = encore::cuda::cupti_profiler;

namespace {

constexpr rocprofiler_agent_id_t agent{1000}, sibling{1001}, other{2000}, unknown{999999};

bool fake() { return std::strcmp(std::getenv("ENCORE_TEST_CUPTI_CHIP"), "FAKE100") == 0; }

/// The catalogue of the chip, registered for `agent` and `sibling` (once per process), and a
/// second catalogue of the same chip for `other` (its own ids).
cp::chip_catalogue& catalogue() {
    static cp::chip_catalogue* cat = [] {
        const char* lib = std::getenv("ENCORE_TEST_CUPTI_LIBRARY");
        const char* chip = std::getenv("ENCORE_TEST_CUPTI_CHIP");
        REQUIRE(lib != nullptr);
        REQUIRE(chip != nullptr);
        void* h = ::dlopen(lib, RTLD_NOW | RTLD_LOCAL);
        REQUIRE(h != nullptr);
        REQUIRE(cp::bind(h, lib) != nullptr);
        auto* c = new cp::chip_catalogue(chip);
        REQUIRE(c->list());
        REQUIRE(encore::core::counting::register_source(agent.handle, *c));
        REQUIRE(encore::core::counting::register_source(sibling.handle, *c));
        auto* second = new cp::chip_catalogue(chip);
        REQUIRE(second->list());
        REQUIRE(encore::core::counting::register_source(other.handle, *second));
        return c;
    }();
    return *cat;
}

rocprofiler_counter_id_t id_of(rocprofiler_agent_id_t a, const char* name) {
    rocprofiler_counter_id_t id{0};
    REQUIRE_MESSAGE(encore_counter_find_by_name(a, name, &id) == ROCPROFILER_STATUS_SUCCESS, name);
    return id;
}

std::vector<rocprofiler_counter_id_t> listed(rocprofiler_agent_id_t a) {
    std::vector<rocprofiler_counter_id_t> out;
    REQUIRE(rocprofiler_iterate_agent_supported_counters(
                a,
                [](rocprofiler_agent_id_t, rocprofiler_counter_id_t* ids, size_t n, void* data) {
                    auto* v = static_cast<std::vector<rocprofiler_counter_id_t>*>(data);
                    v->assign(ids, ids + n);
                    return ROCPROFILER_STATUS_SUCCESS;
                },
                &out) == ROCPROFILER_STATUS_SUCCESS);
    return out;
}

// The metrics the GPU script compares with Nsight Compute, and a few more.
const char* const wanted[] = {"sm__inst_executed.sum", "smsp__inst_executed.sum", "dram__bytes_read.sum",
                              "dram__bytes_write.sum", "gpu__time_duration.sum",  "sm__cycles_elapsed.max",
                              "sm__warps_launched.sum"};

}  // namespace

TEST_CASE("the chip's metrics are the agent's counters, under NVIDIA's names") {
    cp::chip_catalogue& cat = catalogue();
    const auto ids = listed(agent);
    CHECK(ids.size() == cat.size());
    REQUIRE(ids.size() > 0);
    CHECK(listed(sibling).size() == ids.size());
    CHECK(listed(sibling)[0].handle == ids[0].handle);  // one chip, one set of ids
    CHECK(listed(other)[0].handle != ids[0].handle);    // another catalogue: ids of its own
    CHECK(ids[0].handle > 5);                           // after the software runtime's 1..5
    for (const char* name : wanted) {
        const rocprofiler_counter_id_t id = id_of(agent, name);
        CHECK(std::find_if(ids.begin(), ids.end(), [&](auto x) { return x.handle == id.handle; }) != ids.end());
        rocprofiler_counter_info_v0_t v0{};
        REQUIRE(rocprofiler_query_counter_info(id, ROCPROFILER_COUNTER_INFO_VERSION_0, &v0) == ROCPROFILER_STATUS_SUCCESS);
        CHECK(std::string(v0.name) == name);
        CHECK(v0.block != nullptr);
        CHECK(std::strlen(v0.block) > 0);
        rocprofiler_counter_info_v1_t v1{};
        REQUIRE(rocprofiler_query_counter_info(id, ROCPROFILER_COUNTER_INFO_VERSION_1, &v1) == ROCPROFILER_STATUS_SUCCESS);
        CHECK(v1.dimensions_count == 1);
        CHECK(v1.dimensions_instances_count == 1);
        rocprofiler_counter_id_t back{};
        REQUIRE(rocprofiler_query_record_counter_id(v1.dimensions_instances[0]->instance_id, &back) ==
                ROCPROFILER_STATUS_SUCCESS);
        CHECK(back.handle == id.handle);
        size_t instances = 0;
        CHECK(rocprofiler_query_counter_instance_count(agent, id, &instances) == ROCPROFILER_STATUS_SUCCESS);
        CHECK(instances == 1);
        CHECK(rocprofiler_query_counter_instance_count(other, id, &instances) ==
              ROCPROFILER_STATUS_ERROR_METRIC_NOT_VALID_FOR_AGENT);
    }
    // Registering an agent twice is refused; ids past the listed ones (the catalogue's room for
    // names found later) name no counter yet.
    CHECK_FALSE(encore::core::counting::register_source(agent.handle, cat));
    const rocprofiler_counter_id_t past{ids.back().handle + 1};
    rocprofiler_counter_info_v0_t none{};
    CHECK(rocprofiler_query_counter_info(past, ROCPROFILER_COUNTER_INFO_VERSION_0, &none) ==
          ROCPROFILER_STATUS_ERROR_COUNTER_NOT_FOUND);
    CHECK(rocprofiler_query_counter_info(ids[0], ROCPROFILER_COUNTER_INFO_VERSION_0, nullptr) ==
          ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT);
    size_t dims = 0;
    CHECK(rocprofiler_iterate_counter_dimensions(
              ids[0],
              [](rocprofiler_counter_id_t, const rocprofiler_counter_record_dimension_info_t* d, size_t n, void* out) {
                  *static_cast<size_t*>(out) = n == 1 && std::strcmp(d[0].name, "DIMENSION_INSTANCE") == 0 ? 1 : 0;
                  return ROCPROFILER_STATUS_SUCCESS;
              },
              &dims) == ROCPROFILER_STATUS_SUCCESS);
    CHECK(dims == 1);
    CHECK(rocprofiler_iterate_counter_dimensions(
              past, [](auto, auto, auto, auto) { return ROCPROFILER_STATUS_SUCCESS; }, nullptr) ==
          ROCPROFILER_STATUS_ERROR_COUNTER_NOT_FOUND);
    // The software runtime's counters are not this agent's.
    size_t instances = 0;
    CHECK(rocprofiler_query_counter_instance_count(agent, {1}, &instances) ==
          ROCPROFILER_STATUS_ERROR_METRIC_NOT_VALID_FOR_AGENT);
}

TEST_CASE("encore_counter_find_by_name: listed names, other valid names, bad input") {
    catalogue();
    rocprofiler_counter_id_t id{0};
    CHECK(encore_counter_find_by_name(agent, nullptr, &id) == ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK(encore_counter_find_by_name(agent, "sm__inst_executed.sum", nullptr) ==
          ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK(encore_counter_find_by_name(unknown, "sm__inst_executed.sum", &id) == ROCPROFILER_STATUS_ERROR_AGENT_NOT_FOUND);
    CHECK(encore_counter_find_by_name(agent, "no_such__metric.sum", &id) == ROCPROFILER_STATUS_ERROR_COUNTER_NOT_FOUND);
    CHECK(encore_counter_find_by_name(agent, "", &id) == ROCPROFILER_STATUS_ERROR_COUNTER_NOT_FOUND);
    // Repeated: the same id.
    CHECK(id_of(agent, "dram__bytes_read.sum").handle == id_of(agent, "dram__bytes_read.sum").handle);
    // A submetric not listed: added once, with an id of the catalogue's block, then listed.
    const std::size_t before = catalogue().size();
    const rocprofiler_counter_id_t sub = id_of(agent, "sm__cycles_elapsed.avg.per_second");
    CHECK(catalogue().size() == before + 1);
    CHECK(id_of(agent, "sm__cycles_elapsed.avg.per_second").handle == sub.handle);
    CHECK(catalogue().size() == before + 1);
    CHECK(listed(agent).back().handle == sub.handle);
    rocprofiler_counter_info_v0_t v0{};
    REQUIRE(rocprofiler_query_counter_info(sub, ROCPROFILER_COUNTER_INFO_VERSION_0, &v0) == ROCPROFILER_STATUS_SUCCESS);
    CHECK(std::string(v0.name) == "sm__cycles_elapsed.avg.per_second");
}

TEST_CASE("configs: one pass each; EXCEEDS_HW_LIMIT and METRIC_NOT_VALID_FOR_AGENT") {
    catalogue();
    std::vector<rocprofiler_counter_id_t> all;
    for (const char* n : wanted) all.push_back(id_of(agent, n));
    rocprofiler_counter_config_id_t cfg{0};
    rocprofiler_counter_id_t one = all[0];
    CHECK(rocprofiler_create_counter_config(agent, &one, 1, &cfg) == ROCPROFILER_STATUS_SUCCESS);
    CHECK(cfg.handle != 0);
    // Rollups of one base metric share its counter: one pass.
    rocprofiler_counter_id_t rollups[] = {id_of(agent, "sm__inst_executed.sum"), id_of(agent, "sm__inst_executed.max"),
                                          id_of(agent, "sm__inst_executed.avg")};
    rocprofiler_counter_config_id_t cfg2{0};
    CHECK(rocprofiler_create_counter_config(agent, rollups, 3, &cfg2) == ROCPROFILER_STATUS_SUCCESS);
    size_t passes = 0;
    REQUIRE(encore_counter_pass_count(agent, all.data(), all.size(), &passes) == ROCPROFILER_STATUS_SUCCESS);
    CHECK(passes >= 1);
    rocprofiler_counter_config_id_t big{0};
    const rocprofiler_status_t st = rocprofiler_create_counter_config(agent, all.data(), all.size(), &big);
    CHECK(st == (passes > 1 ? ROCPROFILER_STATUS_ERROR_EXCEEDS_HW_LIMIT : ROCPROFILER_STATUS_SUCCESS));
    if (fake()) CHECK(passes == 4);  // 7 base metrics, two a pass
    // The same set as one multi-pass config: accepted, with the library's own pass count.
    rocprofiler_counter_config_id_t multi{0};
    size_t multi_passes = 0;
    CHECK(encore_create_multipass_counter_config(agent, all.data(), all.size(), &multi, &multi_passes) ==
          ROCPROFILER_STATUS_SUCCESS);
    CHECK(multi.handle != 0);
    CHECK(multi_passes == passes);
    CHECK(rocprofiler_destroy_counter_config(multi) == ROCPROFILER_STATUS_SUCCESS);
    // Another catalogue's counter (the same name on another chip's catalogue) is not this agent's.
    rocprofiler_counter_id_t foreign = id_of(other, "sm__inst_executed.sum");
    rocprofiler_counter_config_id_t bad{0};
    CHECK(rocprofiler_create_counter_config(agent, &foreign, 1, &bad) ==
          ROCPROFILER_STATUS_ERROR_METRIC_NOT_VALID_FOR_AGENT);
    rocprofiler_counter_id_t builtin{1};
    CHECK(rocprofiler_create_counter_config(agent, &builtin, 1, &bad) ==
          ROCPROFILER_STATUS_ERROR_METRIC_NOT_VALID_FOR_AGENT);
    // A base config of another agent, and a base config whose counters with the new one exceed a pass.
    rocprofiler_counter_config_id_t on_other{0};
    REQUIRE(rocprofiler_create_counter_config(other, &foreign, 1, &on_other) == ROCPROFILER_STATUS_SUCCESS);
    rocprofiler_counter_config_id_t based = on_other;
    CHECK(rocprofiler_create_counter_config(agent, &one, 1, &based) == ROCPROFILER_STATUS_ERROR_AGENT_MISMATCH);
    CHECK(rocprofiler_destroy_counter_config(cfg) == ROCPROFILER_STATUS_SUCCESS);
    CHECK(rocprofiler_destroy_counter_config(cfg) == ROCPROFILER_STATUS_ERROR_PROFILE_NOT_FOUND);
}

TEST_CASE("encore_counter_schedule_passes: one-pass groups, the fewest greedy finds") {
    catalogue();
    std::vector<rocprofiler_counter_id_t> all;
    for (const char* n : wanted) all.push_back(id_of(agent, n));
    all.push_back(all[2]);  // listed twice
    std::vector<size_t> group_of(all.size());
    size_t groups = 0;
    REQUIRE(encore_counter_schedule_passes(agent, all.data(), all.size(), group_of.data(), &groups) ==
            ROCPROFILER_STATUS_SUCCESS);
    size_t library = 0;
    REQUIRE(encore_counter_pass_count(agent, all.data(), all.size(), &library) == ROCPROFILER_STATUS_SUCCESS);
    CHECK(groups >= library);
    CHECK(group_of.back() == group_of[2]);
    // The figures, in the test log: the catalogue's size, the library's count, greedy's groups.
    std::printf("chip %s: %zu counters listed; %zu metrics: CUPTI's own config %zu passes, greedy %zu groups\n",
                std::getenv("ENCORE_TEST_CUPTI_CHIP"), catalogue().size(), all.size() - 1, library, groups);
    for (size_t g = 0; g < groups; ++g) {
        std::vector<rocprofiler_counter_id_t> members;
        for (size_t i = 0; i < all.size(); ++i)
            if (group_of[i] == g) members.push_back(all[i]);
        CHECK(!members.empty());
        rocprofiler_counter_config_id_t cfg{0};
        CHECK(rocprofiler_create_counter_config(agent, members.data(), members.size(), &cfg) ==
              ROCPROFILER_STATUS_SUCCESS);
    }
    if (fake()) {
        CHECK(groups == 4);
        CHECK(group_of[0] == 0);
        CHECK(group_of[1] == 0);
        CHECK(group_of[2] == 1);
    }
    // Repeated: the same schedule.
    std::vector<size_t> again(all.size());
    size_t groups2 = 0;
    REQUIRE(encore_counter_schedule_passes(agent, all.data(), all.size(), again.data(), &groups2) ==
            ROCPROFILER_STATUS_SUCCESS);
    CHECK(groups2 == groups);
    CHECK(again == group_of);
    // Bad input.
    CHECK(encore_counter_schedule_passes(agent, nullptr, 1, group_of.data(), &groups) ==
          ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK(encore_counter_schedule_passes(agent, all.data(), 0, group_of.data(), &groups) ==
          ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK(encore_counter_schedule_passes(agent, all.data(), 1, nullptr, &groups) ==
          ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK(encore_counter_schedule_passes(agent, all.data(), 1, group_of.data(), nullptr) ==
          ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK(encore_counter_schedule_passes(unknown, all.data(), 1, group_of.data(), &groups) ==
          ROCPROFILER_STATUS_ERROR_AGENT_NOT_FOUND);
    rocprofiler_counter_id_t none{0xfffe};
    CHECK(encore_counter_schedule_passes(agent, &none, 1, group_of.data(), &groups) ==
          ROCPROFILER_STATUS_ERROR_COUNTER_NOT_FOUND);
    rocprofiler_counter_id_t foreign = id_of(other, "sm__inst_executed.sum");
    CHECK(encore_counter_schedule_passes(agent, &foreign, 1, group_of.data(), &groups) ==
          ROCPROFILER_STATUS_ERROR_METRIC_NOT_VALID_FOR_AGENT);
    size_t passes = 0;
    CHECK(encore_counter_pass_count(agent, all.data(), all.size(), nullptr) == ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK(encore_counter_pass_count(agent, nullptr, 1, &passes) == ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK(encore_counter_pass_count(unknown, all.data(), 1, &passes) == ROCPROFILER_STATUS_ERROR_AGENT_NOT_FOUND);
}

TEST_CASE("a metric that alone needs several passes (the fake's lts__t_sectors) cannot be scheduled") {
    if (!fake()) return;  // which of the real chip's metrics need several passes alone is not fixed
    catalogue();
    rocprofiler_counter_id_t ids[] = {id_of(agent, "lts__t_sectors.sum"), id_of(agent, "sm__inst_executed.sum")};
    size_t group_of[2] = {0, 0}, groups = 0;
    CHECK(encore_counter_schedule_passes(agent, ids, 2, group_of, &groups) == ROCPROFILER_STATUS_ERROR_EXCEEDS_HW_LIMIT);
    CHECK(group_of[0] == SIZE_MAX);
    CHECK(group_of[1] == 0);
    CHECK(groups == 1);
    rocprofiler_counter_config_id_t cfg{0};
    CHECK(rocprofiler_create_counter_config(agent, ids, 1, &cfg) == ROCPROFILER_STATUS_ERROR_EXCEEDS_HW_LIMIT);
}

TEST_CASE("many metrics: CUPTI needs several passes, greedy's groups each fit one") {
    catalogue();
    // The first 48 counters of some units listed with .sum.
    std::vector<rocprofiler_counter_id_t> many;
    for (const auto id : listed(agent)) {
        rocprofiler_counter_info_v0_t v0{};
        REQUIRE(rocprofiler_query_counter_info(id, ROCPROFILER_COUNTER_INFO_VERSION_0, &v0) == ROCPROFILER_STATUS_SUCCESS);
        const std::string name = v0.name;
        // SM and cache units' (CUPTI refuses some units together, e.g. NVLink-C2C's ctc__ with
        // dram__: such a set has no pass count at all).
        const bool unit = name.rfind("sm__", 0) == 0 || name.rfind("smsp__", 0) == 0 || name.rfind("l1tex__", 0) == 0 ||
                          name.rfind("lts__", 0) == 0;
        if (unit && name.size() > 4 && name.compare(name.size() - 4, 4, ".sum") == 0) many.push_back(id);
        if (many.size() == 48) break;
    }
    size_t library = 0;
    REQUIRE(encore_counter_pass_count(agent, many.data(), many.size(), &library) == ROCPROFILER_STATUS_SUCCESS);
    std::vector<size_t> group_of(many.size());
    size_t groups = 0;
    const rocprofiler_status_t st = encore_counter_schedule_passes(agent, many.data(), many.size(), group_of.data(),
                                                                   &groups);
    REQUIRE((st == ROCPROFILER_STATUS_SUCCESS || st == ROCPROFILER_STATUS_ERROR_EXCEEDS_HW_LIMIT));
    size_t alone = 0;  // metrics that need more than one pass by themselves
    for (size_t g : group_of) alone += g == SIZE_MAX ? 1 : 0;
    CHECK((st == ROCPROFILER_STATUS_SUCCESS) == (alone == 0));
    for (size_t g = 0; g < groups; ++g) {
        std::vector<rocprofiler_counter_id_t> members;
        for (size_t i = 0; i < many.size(); ++i)
            if (group_of[i] == g) members.push_back(many[i]);
        rocprofiler_counter_config_id_t cfg{0};
        CHECK(rocprofiler_create_counter_config(agent, members.data(), members.size(), &cfg) ==
              ROCPROFILER_STATUS_SUCCESS);
    }
    if (alone == 0) CHECK(groups >= library);
    std::printf("chip %s: %zu .sum metrics: CUPTI's own config %zu passes, greedy %zu groups, %zu need several "
                "passes alone\n",
                std::getenv("ENCORE_TEST_CUPTI_CHIP"), many.size(), library, groups, alone);
}
