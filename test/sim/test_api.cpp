// encore-sim: init, agents, system info, memory, signals.
#include <doctest/doctest.h>

#include "sim_test_util.hpp"

#include <encore/sim/sim.h>

#include <dlfcn.h>

#include <atomic>
#include <chrono>

using namespace simtest;

namespace {
struct Rt {
    Rt() { REQUIRE(hsa_init() == HSA_STATUS_SUCCESS); }
    ~Rt() { CHECK(hsa_shut_down() == HSA_STATUS_SUCCESS); }
};
}  // namespace

TEST_CASE("functions before hsa_init report NOT_INITIALIZED") {
    int x = 0;
    CHECK(hsa_amd_memory_migrate(&x, hsa_amd_memory_pool_t{1}, 0) == HSA_STATUS_ERROR_NOT_INITIALIZED);
    hsa_signal_t s{};
    CHECK(hsa_signal_create(1, 0, nullptr, &s) == HSA_STATUS_ERROR_NOT_INITIALIZED);
    CHECK(hsa_iterate_agents([](hsa_agent_t, void*) { return HSA_STATUS_SUCCESS; }, nullptr) ==
          HSA_STATUS_ERROR_NOT_INITIALIZED);
    uint64_t ts = 0;
    CHECK(hsa_system_get_info(HSA_SYSTEM_INFO_TIMESTAMP, &ts) == HSA_STATUS_ERROR_NOT_INITIALIZED);
    CHECK(hsa_shut_down() == HSA_STATUS_ERROR_NOT_INITIALIZED);
    const char* str = nullptr;
    CHECK(hsa_status_string(HSA_STATUS_ERROR_INVALID_AGENT, &str) == HSA_STATUS_SUCCESS);
    REQUIRE(str != nullptr);
    CHECK(std::string(str).find("INVALID_AGENT") != std::string::npos);
    CHECK(hsa_status_string(HSA_STATUS_SUCCESS, nullptr) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
}

TEST_CASE("init and shut_down are reference counted") {
    REQUIRE(hsa_init() == HSA_STATUS_SUCCESS);
    REQUIRE(hsa_init() == HSA_STATUS_SUCCESS);
    CHECK(hsa_shut_down() == HSA_STATUS_SUCCESS);
    CHECK(agents_of(HSA_DEVICE_TYPE_GPU).size() == 1);  // still initialized
    CHECK(hsa_shut_down() == HSA_STATUS_SUCCESS);
    CHECK(hsa_shut_down() == HSA_STATUS_ERROR_NOT_INITIALIZED);
    // Re-initialization works.
    REQUIRE(hsa_init() == HSA_STATUS_SUCCESS);
    CHECK(agents_of(HSA_DEVICE_TYPE_CPU).size() == 1);
    CHECK(hsa_shut_down() == HSA_STATUS_SUCCESS);
}

TEST_CASE("simulator extension symbols and unimplemented list") {
    Rt rt;
    CHECK(encore_sim_is_simulator() == 1);
    const uint32_t n = encore_sim_unimplemented_count();
    CHECK(n > 0);
    bool found = false;
    for (uint32_t i = 0; i < n; ++i) found |= std::string(encore_sim_unimplemented_name(i)) == "hsa_amd_memory_migrate";
    CHECK(found);
    CHECK(encore_sim_unimplemented_name(n) == nullptr);
    // The intercept-queue API is exported with C names too (hsa_api_trace.h declares it C++).
    CHECK(dlsym(RTLD_DEFAULT, "hsa_amd_queue_intercept_create") != nullptr);
    CHECK(dlsym(RTLD_DEFAULT, "hsa_amd_queue_intercept_register") != nullptr);
    CHECK(dlsym(RTLD_DEFAULT, "hsa_amd_runtime_queue_create_register") != nullptr);
    CHECK(dlsym(RTLD_DEFAULT, "hsa_ven_amd_loader_loaded_code_object_get_info") != nullptr);
    CHECK(dlsym(RTLD_DEFAULT, "hsa_signal_load_acquire") != nullptr);
    // An unimplemented function returns an error, never crashes.
    int x = 0;
    CHECK(hsa_amd_memory_migrate(&x, pools_of(gpu()).at(0), 0) == HSA_STATUS_ERROR);
}

TEST_CASE("agents and their info") {
    Rt rt;
    auto gpus = agents_of(HSA_DEVICE_TYPE_GPU);
    auto cpus = agents_of(HSA_DEVICE_TYPE_CPU);
    REQUIRE(gpus.size() == 1);
    REQUIRE(cpus.size() == 1);
    hsa_agent_t g = gpus[0];
    char name[64] = {};
    CHECK(hsa_agent_get_info(g, HSA_AGENT_INFO_NAME, name) == HSA_STATUS_SUCCESS);
    CHECK(std::string(name) == "encore-sim-gpu");
    hsa_agent_feature_t feat{};
    CHECK(hsa_agent_get_info(g, HSA_AGENT_INFO_FEATURE, &feat) == HSA_STATUS_SUCCESS);
    CHECK((feat & HSA_AGENT_FEATURE_KERNEL_DISPATCH) != 0);
    CHECK(hsa_agent_get_info(cpus[0], HSA_AGENT_INFO_FEATURE, &feat) == HSA_STATUS_SUCCESS);
    CHECK((feat & HSA_AGENT_FEATURE_KERNEL_DISPATCH) == 0);
    uint32_t v = 0;
    CHECK(hsa_agent_get_info(g, HSA_AGENT_INFO_WAVEFRONT_SIZE, &v) == HSA_STATUS_SUCCESS);
    CHECK(v == 64);
    CHECK(hsa_agent_get_info(g, HSA_AGENT_INFO_QUEUE_MIN_SIZE, &v) == HSA_STATUS_SUCCESS);
    CHECK(v == 64);
    CHECK(hsa_agent_get_info(g, HSA_AGENT_INFO_QUEUE_MAX_SIZE, &v) == HSA_STATUS_SUCCESS);
    CHECK(v == 131072);
    CHECK(hsa_agent_get_info(g, HSA_AGENT_INFO_WORKGROUP_MAX_SIZE, &v) == HSA_STATUS_SUCCESS);
    CHECK(v == 1024);
    uint16_t dims[3] = {};
    CHECK(hsa_agent_get_info(g, HSA_AGENT_INFO_WORKGROUP_MAX_DIM, dims) == HSA_STATUS_SUCCESS);
    CHECK(dims[0] == 1024);
    CHECK(hsa_agent_get_info(g, HSA_AGENT_INFO_NODE, &v) == HSA_STATUS_SUCCESS);
    CHECK(v == 1);
    char uuid[24] = {};
    CHECK(hsa_agent_get_info(g, static_cast<hsa_agent_info_t>(HSA_AMD_AGENT_INFO_UUID), uuid) == HSA_STATUS_SUCCESS);
    CHECK(std::string(uuid).rfind("GPU-", 0) == 0);
    // ISA iteration and info.
    std::vector<hsa_isa_t> isas;
    CHECK(hsa_agent_iterate_isas(
              g,
              [](hsa_isa_t i, void* d) {
                  static_cast<std::vector<hsa_isa_t>*>(d)->push_back(i);
                  return HSA_STATUS_SUCCESS;
              },
              &isas) == HSA_STATUS_SUCCESS);
    REQUIRE(isas.size() == 1);
    uint32_t len = 0;
    CHECK(hsa_isa_get_info_alt(isas[0], HSA_ISA_INFO_NAME_LENGTH, &len) == HSA_STATUS_SUCCESS);
    std::string isa_name(len, '\0');
    CHECK(hsa_isa_get_info_alt(isas[0], HSA_ISA_INFO_NAME, isa_name.data()) == HSA_STATUS_SUCCESS);
    hsa_isa_t back{};
    CHECK(hsa_isa_from_name(isa_name.c_str(), &back) == HSA_STATUS_SUCCESS);
    CHECK(back.handle == isas[0].handle);
    // Errors.
    CHECK(hsa_agent_get_info(hsa_agent_t{0xdead}, HSA_AGENT_INFO_NAME, name) == HSA_STATUS_ERROR_INVALID_AGENT);
    CHECK(hsa_agent_get_info(g, HSA_AGENT_INFO_NAME, nullptr) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK(hsa_iterate_agents(nullptr, nullptr) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
}

TEST_CASE("ENCORE_SIM_GPU_AGENTS selects the GPU count at the first hsa_init") {
    setenv("ENCORE_SIM_GPU_AGENTS", "3", 1);
    REQUIRE(hsa_init() == HSA_STATUS_SUCCESS);
    auto gpus = agents_of(HSA_DEVICE_TYPE_GPU);
    CHECK(gpus.size() == 3);
    uint32_t node = 0;
    hsa_agent_get_info(gpus[2], HSA_AGENT_INFO_NODE, &node);
    CHECK(node == 3);
    CHECK(hsa_shut_down() == HSA_STATUS_SUCCESS);
    unsetenv("ENCORE_SIM_GPU_AGENTS");
}

TEST_CASE("system info and timestamps") {
    Rt rt;
    uint64_t freq = 0, t0 = 0, t1 = 0;
    CHECK(hsa_system_get_info(HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY, &freq) == HSA_STATUS_SUCCESS);
    CHECK(freq == 1000000000ull);
    hsa_system_get_info(HSA_SYSTEM_INFO_TIMESTAMP, &t0);
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    hsa_system_get_info(HSA_SYSTEM_INFO_TIMESTAMP, &t1);
    CHECK(t1 - t0 >= 2'000'000);
    uint16_t major = 0;
    CHECK(hsa_system_get_info(HSA_SYSTEM_INFO_VERSION_MAJOR, &major) == HSA_STATUS_SUCCESS);
    CHECK(major == 1);
    CHECK(hsa_system_get_info(HSA_SYSTEM_INFO_TIMESTAMP, nullptr) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
    bool supported = false;
    CHECK(hsa_system_extension_supported(HSA_EXTENSION_AMD_LOADER, 1, 1, &supported) == HSA_STATUS_SUCCESS);
    CHECK(supported);
    CHECK(hsa_system_extension_supported(HSA_EXTENSION_IMAGES, 1, 0, &supported) == HSA_STATUS_SUCCESS);
    CHECK_FALSE(supported);
}

TEST_CASE("memory pools, allocation and pointer info on interior pointers") {
    Rt rt;
    hsa_agent_t g = gpu();
    auto pools = pools_of(g);
    REQUIRE(pools.size() == 3);
    auto coarse = pool_with(g, HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED);
    auto kernarg = pool_with(g, HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT);
    CHECK((pool_flags(kernarg) & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED) != 0);
    hsa_amd_segment_t seg{};
    CHECK(hsa_amd_memory_pool_get_info(coarse, HSA_AMD_MEMORY_POOL_INFO_SEGMENT, &seg) == HSA_STATUS_SUCCESS);
    CHECK(seg == HSA_AMD_SEGMENT_GLOBAL);
    bool alloc_ok = false;
    CHECK(hsa_amd_memory_pool_get_info(coarse, HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALLOWED, &alloc_ok) ==
          HSA_STATUS_SUCCESS);
    CHECK(alloc_ok);
    hsa_amd_memory_pool_access_t access{};
    CHECK(hsa_amd_agent_memory_pool_get_info(cpu(), coarse, HSA_AMD_AGENT_MEMORY_POOL_INFO_ACCESS, &access) ==
          HSA_STATUS_SUCCESS);
    CHECK(access == HSA_AMD_MEMORY_POOL_ACCESS_DISALLOWED_BY_DEFAULT);

    void* p = nullptr;
    REQUIRE(hsa_amd_memory_pool_allocate(coarse, 10000, 0, &p) == HSA_STATUS_SUCCESS);
    REQUIRE(p != nullptr);
    memset(p, 0xab, 10000);

    hsa_amd_pointer_info_t info{};
    info.size = sizeof info;
    uint32_t n = 0;
    hsa_agent_t* acc = nullptr;
    char* inner = static_cast<char*>(p) + 1234;
    REQUIRE(hsa_amd_pointer_info(inner, &info, malloc, &n, &acc) == HSA_STATUS_SUCCESS);
    CHECK(info.type == HSA_EXT_POINTER_TYPE_HSA);
    CHECK(info.agentBaseAddress == p);
    CHECK(info.hostBaseAddress == p);
    CHECK(info.sizeInBytes == 10000);
    CHECK(info.agentOwner.handle == g.handle);
    CHECK(info.global_flags == HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED);
    CHECK(n == 1);
    free(acc);

    hsa_amd_memory_pool_t found{};
    void* base = nullptr;
    size_t size = 0;
    CHECK(encore_sim_pointer_pool(inner, &found, &base, &size) == HSA_STATUS_SUCCESS);
    CHECK(found.handle == coarse.handle);
    CHECK(base == p);
    CHECK(size == 10000);

    hsa_agent_t c = cpu();
    CHECK(hsa_amd_agents_allow_access(1, &c, nullptr, p) == HSA_STATUS_SUCCESS);
    REQUIRE(hsa_amd_pointer_info(p, &info, malloc, &n, &acc) == HSA_STATUS_SUCCESS);
    CHECK(n == 2);
    free(acc);

    // One past the end is not inside the allocation.
    int local = 0;
    REQUIRE(hsa_amd_pointer_info(&local, &info, nullptr, nullptr, nullptr) == HSA_STATUS_SUCCESS);
    CHECK(info.type == HSA_EXT_POINTER_TYPE_UNKNOWN);
    REQUIRE(hsa_amd_pointer_info(static_cast<char*>(p) + 10000, &info, nullptr, nullptr, nullptr) == HSA_STATUS_SUCCESS);
    CHECK(info.type == HSA_EXT_POINTER_TYPE_UNKNOWN);
    CHECK(hsa_amd_pointer_info(p, nullptr, nullptr, nullptr, nullptr) == HSA_STATUS_ERROR_INVALID_ARGUMENT);

    CHECK(hsa_amd_memory_fill(p, 0x01020304u, 4) == HSA_STATUS_SUCCESS);
    CHECK(static_cast<uint32_t*>(p)[3] == 0x01020304u);
    CHECK(static_cast<uint32_t*>(p)[4] == 0xabababab);

    static void* freed_ptr = nullptr;
    static int freed_calls = 0;
    auto on_free = [](void* ptr, void* data) {
        freed_ptr = ptr;
        freed_calls += *static_cast<int*>(data);
    };
    int one = 1;
    CHECK(hsa_amd_register_deallocation_callback(p, on_free, &one) == HSA_STATUS_SUCCESS);
    CHECK(hsa_amd_register_deallocation_callback(inner, on_free, &one) == HSA_STATUS_ERROR_INVALID_ALLOCATION);
    CHECK(hsa_amd_memory_pool_free(p) == HSA_STATUS_SUCCESS);
    CHECK(freed_ptr == p);
    CHECK(freed_calls == 1);
    CHECK(hsa_amd_memory_pool_free(inner) != HSA_STATUS_SUCCESS);
    CHECK(hsa_amd_memory_pool_allocate(hsa_amd_memory_pool_t{42}, 16, 0, &p) ==
          static_cast<hsa_status_t>(HSA_STATUS_ERROR_INVALID_MEMORY_POOL));
    CHECK(hsa_amd_memory_pool_allocate(coarse, 0, 0, &p) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK(hsa_amd_memory_pool_allocate(coarse, 16, 0, nullptr) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
}

TEST_CASE("regions, register and locked memory") {
    Rt rt;
    std::vector<hsa_region_t> regions;
    CHECK(hsa_agent_iterate_regions(
              gpu(),
              [](hsa_region_t r, void* d) {
                  static_cast<std::vector<hsa_region_t>*>(d)->push_back(r);
                  return HSA_STATUS_SUCCESS;
              },
              &regions) == HSA_STATUS_SUCCESS);
    REQUIRE(regions.size() == 3);
    hsa_region_t kernarg{};
    for (auto r : regions) {
        uint32_t f = 0;
        hsa_region_get_info(r, HSA_REGION_INFO_GLOBAL_FLAGS, &f);
        if (f & HSA_REGION_GLOBAL_FLAG_KERNARG) kernarg = r;
    }
    REQUIRE(kernarg.handle != 0);
    void* p = nullptr;
    CHECK(hsa_memory_allocate(kernarg, 256, &p) == HSA_STATUS_SUCCESS);
    CHECK(hsa_memory_copy(p, "hello", 6) == HSA_STATUS_SUCCESS);
    CHECK(std::string(static_cast<char*>(p)) == "hello");
    CHECK(hsa_memory_free(p) == HSA_STATUS_SUCCESS);
    CHECK(hsa_memory_allocate(hsa_region_t{7}, 256, &p) == HSA_STATUS_ERROR_INVALID_REGION);

    std::vector<char> host(4096);
    CHECK(hsa_memory_register(host.data(), host.size()) == HSA_STATUS_SUCCESS);
    hsa_amd_pointer_info_t info{};
    info.size = sizeof info;
    CHECK(hsa_amd_pointer_info(host.data() + 100, &info, nullptr, nullptr, nullptr) == HSA_STATUS_SUCCESS);
    CHECK(info.type == HSA_EXT_POINTER_TYPE_LOCKED);
    CHECK(hsa_memory_deregister(host.data(), host.size()) == HSA_STATUS_SUCCESS);
    void* agent_ptr = nullptr;
    hsa_agent_t g = gpu();
    CHECK(hsa_amd_memory_lock(host.data(), host.size(), &g, 1, &agent_ptr) == HSA_STATUS_SUCCESS);
    CHECK(agent_ptr == host.data());
    CHECK(hsa_amd_memory_unlock(host.data()) == HSA_STATUS_SUCCESS);
    CHECK(hsa_amd_pointer_info(host.data(), &info, nullptr, nullptr, nullptr) == HSA_STATUS_SUCCESS);
    CHECK(info.type == HSA_EXT_POINTER_TYPE_UNKNOWN);
}

TEST_CASE("signal operations") {
    Rt rt;
    hsa_signal_t s{};
    REQUIRE(hsa_signal_create(10, 0, nullptr, &s) == HSA_STATUS_SUCCESS);
    CHECK(hsa_signal_load_relaxed(s) == 10);
    hsa_signal_add_relaxed(s, 5);
    CHECK(hsa_signal_load_scacquire(s) == 15);
    hsa_signal_subtract_screlease(s, 3);
    CHECK(hsa_signal_load_relaxed(s) == 12);
    hsa_signal_and_scacq_screl(s, 0x4);
    CHECK(hsa_signal_load_relaxed(s) == 4);
    hsa_signal_or_relaxed(s, 0x3);
    CHECK(hsa_signal_load_relaxed(s) == 7);
    hsa_signal_xor_scacquire(s, 0x1);
    CHECK(hsa_signal_load_relaxed(s) == 6);
    CHECK(hsa_signal_exchange_relaxed(s, 100) == 6);
    CHECK(hsa_signal_cas_scacq_screl(s, 1, 5) == 100);  // fails
    CHECK(hsa_signal_load_relaxed(s) == 100);
    CHECK(hsa_signal_cas_screlease(s, 100, 5) == 100);  // succeeds
    CHECK(hsa_signal_load_relaxed(s) == 5);
    // Deprecated aliases forward to the same table slots.
    hsa_signal_store_release(s, 9);
    CHECK(hsa_signal_load_acquire(s) == 9);
    hsa_signal_silent_store_relaxed(s, 11);
    CHECK(hsa_signal_load_relaxed(s) == 11);
    volatile hsa_signal_value_t* vp = nullptr;
    CHECK(hsa_amd_signal_value_pointer(s, &vp) == HSA_STATUS_SUCCESS);
    CHECK(*vp == 11);
    CHECK(hsa_signal_destroy(s) == HSA_STATUS_SUCCESS);
    // Stale and bogus handles.
    CHECK(hsa_signal_destroy(s) == HSA_STATUS_ERROR_INVALID_SIGNAL);
    CHECK(hsa_signal_load_relaxed(s) == 0);  // no crash
    hsa_signal_store_relaxed(hsa_signal_t{0x1234}, 5);
    CHECK(hsa_signal_destroy(hsa_signal_t{0}) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK(hsa_signal_create(1, 0, nullptr, nullptr) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
    hsa_signal_t t{};
    CHECK(hsa_amd_signal_create(1, 0, nullptr, 0, &t) == HSA_STATUS_SUCCESS);
    CHECK(hsa_signal_destroy(t) == HSA_STATUS_SUCCESS);
}

TEST_CASE("signal waits: conditions, timeouts, blocking wake-up") {
    Rt rt;
    hsa_signal_t s{};
    REQUIRE(hsa_signal_create(1, 0, nullptr, &s) == HSA_STATUS_SUCCESS);
    CHECK(hsa_signal_wait_relaxed(s, HSA_SIGNAL_CONDITION_NE, 0, 0, HSA_WAIT_STATE_ACTIVE) == 1);
    CHECK(hsa_signal_wait_relaxed(s, HSA_SIGNAL_CONDITION_GTE, 1, 0, HSA_WAIT_STATE_ACTIVE) == 1);
    CHECK(hsa_signal_wait_relaxed(s, HSA_SIGNAL_CONDITION_LT, 2, 0, HSA_WAIT_STATE_ACTIVE) == 1);

    for (auto hint : {HSA_WAIT_STATE_BLOCKED, HSA_WAIT_STATE_ACTIVE}) {
        auto t0 = std::chrono::steady_clock::now();
        hsa_signal_value_t v = hsa_signal_wait_scacquire(s, HSA_SIGNAL_CONDITION_EQ, 0, 50'000'000, hint);
        auto dt = std::chrono::steady_clock::now() - t0;
        CHECK(v == 1);
        CHECK(dt >= std::chrono::milliseconds(45));
        CHECK(dt < std::chrono::seconds(2));
    }

    std::thread setter([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(30));
        hsa_signal_store_screlease(s, 0);
    });
    auto t0 = std::chrono::steady_clock::now();
    CHECK(hsa_signal_wait_scacquire(s, HSA_SIGNAL_CONDITION_EQ, 0, UINT64_MAX, HSA_WAIT_STATE_BLOCKED) == 0);
    CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(5));
    setter.join();

    // wait_any
    hsa_signal_t a{}, b{};
    hsa_signal_create(1, 0, nullptr, &a);
    hsa_signal_create(1, 0, nullptr, &b);
    std::thread t([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        hsa_signal_subtract_screlease(b, 1);
    });
    hsa_signal_t sigs[2] = {a, b};
    hsa_signal_condition_t conds[2] = {HSA_SIGNAL_CONDITION_EQ, HSA_SIGNAL_CONDITION_EQ};
    hsa_signal_value_t vals[2] = {0, 0};
    hsa_signal_value_t got = -1;
    CHECK(hsa_amd_signal_wait_any(2, sigs, conds, vals, UINT64_MAX, HSA_WAIT_STATE_BLOCKED, &got) == 1);
    CHECK(got == 0);
    t.join();
    CHECK(hsa_amd_signal_wait_any(1, sigs, conds, vals, 10'000'000, HSA_WAIT_STATE_BLOCKED, &got) == UINT32_MAX);

    // signal groups
    hsa_signal_group_t group{};
    CHECK(hsa_signal_group_create(2, sigs, 0, nullptr, &group) == HSA_STATUS_SUCCESS);
    hsa_signal_t which{};
    CHECK(hsa_signal_group_wait_any_scacquire(group, conds, vals, HSA_WAIT_STATE_BLOCKED, &which, &got) ==
          HSA_STATUS_SUCCESS);
    CHECK(which.handle == b.handle);
    CHECK(hsa_signal_group_destroy(group) == HSA_STATUS_SUCCESS);
    CHECK(hsa_signal_group_destroy(group) == HSA_STATUS_ERROR_INVALID_SIGNAL_GROUP);
    hsa_signal_destroy(a);
    hsa_signal_destroy(b);
    hsa_signal_destroy(s);
}

namespace {
struct HandlerState {
    std::atomic<int> calls{0};
    std::atomic<hsa_signal_value_t> last{-1};
    std::atomic<std::thread::id> thread{};
    int keep_for = 0;
};
bool on_signal(hsa_signal_value_t v, void* arg) {
    auto* st = static_cast<HandlerState*>(arg);
    st->last = v;
    st->thread = std::this_thread::get_id();
    return ++st->calls < st->keep_for;
}
}  // namespace

TEST_CASE("async signal handlers run on a runtime thread and are removed when they return false") {
    Rt rt;
    hsa_signal_t s{};
    hsa_signal_create(1, 0, nullptr, &s);
    HandlerState st;
    st.keep_for = 1;
    CHECK(hsa_amd_signal_async_handler(s, HSA_SIGNAL_CONDITION_LT, 1, on_signal, &st) == HSA_STATUS_SUCCESS);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    CHECK(st.calls == 0);
    hsa_signal_store_screlease(s, 0);
    for (int i = 0; i < 500 && st.calls == 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(2));
    CHECK(st.calls == 1);
    CHECK(st.last == 0);
    CHECK(st.thread.load() != std::this_thread::get_id());
    hsa_signal_store_screlease(s, -5);
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    CHECK(st.calls == 1);  // removed after returning false

    HandlerState st2;
    st2.keep_for = 3;  // returns true twice: stays registered
    hsa_signal_store_screlease(s, 5);
    CHECK(hsa_amd_signal_async_handler(s, HSA_SIGNAL_CONDITION_EQ, 7, on_signal, &st2) == HSA_STATUS_SUCCESS);
    hsa_signal_store_screlease(s, 7);
    for (int i = 0; i < 500 && st2.calls < 3; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(2));
    CHECK(st2.calls == 3);

    CHECK(hsa_amd_signal_async_handler(hsa_signal_t{99}, HSA_SIGNAL_CONDITION_EQ, 0, on_signal, &st) ==
          HSA_STATUS_ERROR_INVALID_SIGNAL);
    CHECK(hsa_amd_signal_async_handler(s, HSA_SIGNAL_CONDITION_EQ, 0, nullptr, nullptr) ==
          HSA_STATUS_ERROR_INVALID_ARGUMENT);
    std::atomic<int> fn_calls{0};
    CHECK(hsa_amd_async_function([](void* a) { ++*static_cast<std::atomic<int>*>(a); }, &fn_calls) == HSA_STATUS_SUCCESS);
    for (int i = 0; i < 500 && fn_calls == 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(2));
    CHECK(fn_calls == 1);
    hsa_signal_destroy(s);
}

TEST_CASE("shut_down with live objects does not hang or crash") {
    REQUIRE(hsa_init() == HSA_STATUS_SUCCESS);
    hsa_signal_t s{};
    hsa_signal_create(1, 0, nullptr, &s);
    HandlerState st;
    st.keep_for = 100;
    hsa_amd_signal_async_handler(s, HSA_SIGNAL_CONDITION_EQ, 0, on_signal, &st);
    hsa_queue_t* q = nullptr;
    REQUIRE(hsa_queue_create(gpu(), 64, HSA_QUEUE_TYPE_MULTI, nullptr, nullptr, 0, 0, &q) == HSA_STATUS_SUCCESS);
    void* p = nullptr;
    hsa_amd_memory_pool_allocate(pool_with(gpu(), HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED), 64, 0, &p);
    // A barrier packet that will never be satisfied keeps the packet processor busy.
    submit_barrier(q, true, {s}, hsa_signal_t{0});
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    CHECK(hsa_shut_down() == HSA_STATUS_SUCCESS);
    CHECK(hsa_signal_load_relaxed(s) == 0);  // runtime gone: no crash
}

TEST_CASE("null out-pointers and bogus handles return errors") {
    Rt rt;
    hsa_agent_t g = gpu();
    const hsa_agent_t bad_agent{0x1234};
    const hsa_signal_t bad_signal{0x999};
    CHECK(hsa_agent_get_info(bad_agent, HSA_AGENT_INFO_NAME, nullptr) == HSA_STATUS_ERROR_INVALID_AGENT);
    CHECK(hsa_agent_iterate_regions(g, nullptr, nullptr) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK(hsa_agent_iterate_regions(
              bad_agent, [](hsa_region_t, void*) { return HSA_STATUS_SUCCESS; }, nullptr) ==
          HSA_STATUS_ERROR_INVALID_AGENT);
    CHECK(hsa_amd_agent_iterate_memory_pools(g, nullptr, nullptr) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK(hsa_amd_agent_iterate_memory_pools(
              bad_agent, [](hsa_amd_memory_pool_t, void*) { return HSA_STATUS_SUCCESS; }, nullptr) ==
          HSA_STATUS_ERROR_INVALID_AGENT);
    auto pool = pools_of(g).at(0);
    CHECK(hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_SIZE, nullptr) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
    size_t sz = 0;
    CHECK(hsa_amd_memory_pool_get_info(hsa_amd_memory_pool_t{3}, HSA_AMD_MEMORY_POOL_INFO_SIZE, &sz) ==
          static_cast<hsa_status_t>(HSA_STATUS_ERROR_INVALID_MEMORY_POOL));
    CHECK(hsa_amd_agent_memory_pool_get_info(bad_agent, pool, HSA_AMD_AGENT_MEMORY_POOL_INFO_ACCESS, &sz) ==
          HSA_STATUS_ERROR_INVALID_AGENT);
    CHECK(hsa_region_get_info(hsa_region_t{5}, HSA_REGION_INFO_SIZE, &sz) == HSA_STATUS_ERROR_INVALID_REGION);
    CHECK(hsa_system_get_info(static_cast<hsa_system_info_t>(0x7777), &sz) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK(hsa_agent_get_info(g, static_cast<hsa_agent_info_t>(0x7777), &sz) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK(hsa_memory_copy(nullptr, &sz, 1) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK(hsa_amd_agents_allow_access(0, &g, nullptr, &sz) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK(hsa_amd_agents_allow_access(1, &bad_agent, nullptr, &sz) == HSA_STATUS_ERROR_INVALID_AGENT);
    CHECK(hsa_amd_signal_async_handler(
              bad_signal, HSA_SIGNAL_CONDITION_EQ, 0, [](hsa_signal_value_t, void*) { return false; }, nullptr) ==
          HSA_STATUS_ERROR_INVALID_SIGNAL);
    CHECK(hsa_amd_signal_value_pointer(bad_signal, nullptr) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
    volatile hsa_signal_value_t* vp = nullptr;
    CHECK(hsa_amd_signal_value_pointer(bad_signal, &vp) == HSA_STATUS_ERROR_INVALID_SIGNAL);
    CHECK(hsa_signal_wait_scacquire(bad_signal, HSA_SIGNAL_CONDITION_EQ, 0, UINT64_MAX, HSA_WAIT_STATE_BLOCKED) == 0);
    hsa_signal_group_t grp{};
    CHECK(hsa_signal_group_create(1, &bad_signal, 0, nullptr, &grp) == HSA_STATUS_ERROR_INVALID_SIGNAL);
    CHECK(hsa_signal_group_create(0, nullptr, 0, nullptr, &grp) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
    hsa_signal_t sig{};
    CHECK(hsa_signal_create(0, 1, &bad_agent, &sig) == HSA_STATUS_ERROR_INVALID_AGENT);
    hsa_amd_profiling_dispatch_time_t t{};
    CHECK(hsa_amd_profiling_get_dispatch_time(bad_agent, bad_signal, &t) == HSA_STATUS_ERROR_INVALID_AGENT);
    CHECK(hsa_amd_profiling_get_dispatch_time(g, bad_signal, nullptr) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK(hsa_queue_inactivate(reinterpret_cast<hsa_queue_t*>(&sz)) == HSA_STATUS_ERROR_INVALID_QUEUE);
    CHECK(hsa_amd_queue_set_priority(reinterpret_cast<hsa_queue_t*>(&sz), HSA_AMD_QUEUE_PRIORITY_HIGH) ==
          HSA_STATUS_ERROR_INVALID_QUEUE);
    CHECK(hsa_code_object_reader_destroy(hsa_code_object_reader_t{77}) == HSA_STATUS_ERROR_INVALID_CODE_OBJECT_READER);
    CHECK(hsa_executable_freeze(hsa_executable_t{77}, nullptr) == HSA_STATUS_ERROR_INVALID_EXECUTABLE);
    hsa_executable_state_t st{};
    CHECK(hsa_executable_get_info(hsa_executable_t{77}, HSA_EXECUTABLE_INFO_STATE, &st) ==
          HSA_STATUS_ERROR_INVALID_EXECUTABLE);
    CHECK(hsa_isa_get_info_alt(hsa_isa_t{1}, HSA_ISA_INFO_NAME_LENGTH, &sz) == HSA_STATUS_ERROR_INVALID_ISA);
    CHECK(hsa_isa_from_name("gfx1234", nullptr) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
    hsa_isa_t isa{};
    CHECK(hsa_isa_from_name("gfx1234", &isa) == HSA_STATUS_ERROR_INVALID_ISA_NAME);
    CHECK(hsa_system_get_major_extension_table(HSA_EXTENSION_AMD_LOADER, 1, 8, nullptr) ==
          HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK(hsa_system_get_major_extension_table(HSA_EXTENSION_IMAGES, 1, 8, &sz) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
}
