// test/c_api/test_c_api.cpp — every function of the seed's C API: success paths, each documented
// error, null pointers, invalid ids, calls outside initialization, repeated calls, threads.
#include "../support/stderr_capture.hpp"
#include "../support/tool_fixture.hpp"

#include <encore/domains/hsa.hpp>
#include <rocprofiler-sdk/hsa/api_id.h>
#include <rocprofiler-sdk/rocprofiler.h>

#include <doctest/doctest.h>

#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

using test_support::run_tool;

namespace {
void noop_cb(rocprofiler_callback_tracing_record_t, rocprofiler_user_data_t*, void*) {}
constexpr rocprofiler_context_id_t bogus{12345};
constexpr rocprofiler_context_id_t none{UINT64_MAX};
}  // namespace

TEST_CASE("contexts: create/start/stop/is_active/is_valid") {
    static rocprofiler_context_id_t ctx{};
    static rocprofiler_status_t in_init_create_null{};
    run_tool([] {
        in_init_create_null = rocprofiler_create_context(nullptr);
        return static_cast<int>(rocprofiler_create_context(&ctx));
    });
    CHECK(in_init_create_null == ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT);
    // After initialization, configuration is locked.
    rocprofiler_context_id_t late{};
    CHECK(rocprofiler_create_context(&late) == ROCPROFILER_STATUS_ERROR_CONFIGURATION_LOCKED);

    int s = -1;
    CHECK(rocprofiler_context_is_valid(ctx, &s) == ROCPROFILER_STATUS_SUCCESS);
    CHECK(s == 1);
    CHECK(rocprofiler_context_is_valid(bogus, &s) == ROCPROFILER_STATUS_SUCCESS);
    CHECK(s == 0);
    CHECK(rocprofiler_context_is_valid(none, &s) == ROCPROFILER_STATUS_SUCCESS);
    CHECK(s == 0);
    CHECK(rocprofiler_context_is_valid(ctx, nullptr) == ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT);

    CHECK(rocprofiler_context_is_active(ctx, &s) == ROCPROFILER_STATUS_SUCCESS);
    CHECK(s == 0);
    CHECK(rocprofiler_start_context(ctx) == ROCPROFILER_STATUS_SUCCESS);
    CHECK(rocprofiler_start_context(ctx) == ROCPROFILER_STATUS_SUCCESS);  // repeated: still fine
    CHECK(rocprofiler_context_is_active(ctx, &s) == ROCPROFILER_STATUS_SUCCESS);
    CHECK(s == 1);
    CHECK(rocprofiler_stop_context(ctx) == ROCPROFILER_STATUS_SUCCESS);
    CHECK(rocprofiler_stop_context(ctx) == ROCPROFILER_STATUS_SUCCESS);
    CHECK(rocprofiler_context_is_active(ctx, &s) == ROCPROFILER_STATUS_SUCCESS);
    CHECK(s == 0);
    CHECK(rocprofiler_context_is_active(ctx, nullptr) == ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK(rocprofiler_context_is_active(bogus, &s) == ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_FOUND);
    CHECK(rocprofiler_start_context(bogus) == ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_FOUND);
    CHECK(rocprofiler_stop_context(none) == ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_FOUND);
}

TEST_CASE("at most 64 contexts") {
    static int created = 0;
    static rocprofiler_status_t last{};
    run_tool([] {
        rocprofiler_context_id_t c{};
        for (int i = 0; i < 70; ++i) {
            last = rocprofiler_create_context(&c);
            if (last != ROCPROFILER_STATUS_SUCCESS) break;
            ++created;
        }
        return 0;
    });
    CHECK(created == 64);
    CHECK(last == ROCPROFILER_STATUS_ERROR_OUT_OF_RESOURCES);
}

TEST_CASE("configure_callback_tracing_service: every documented status") {
    static std::vector<rocprofiler_status_t> st;
    static rocprofiler_context_id_t ctx{};
    st.clear();
    run_tool([] {
        CHECK(rocprofiler_create_context(&ctx) == ROCPROFILER_STATUS_SUCCESS);
        const rocprofiler_tracing_operation_t good[] = {ROCPROFILER_HSA_CORE_API_ID_hsa_init,
                                                        ROCPROFILER_HSA_CORE_API_ID_hsa_queue_create};
        const rocprofiler_tracing_operation_t too_big[] = {ROCPROFILER_HSA_CORE_API_ID_LAST};
        const rocprofiler_tracing_operation_t negative[] = {-1};
        const rocprofiler_tracing_operation_t huge[] = {512};
        auto cfg = [](rocprofiler_context_id_t c, int kind, const rocprofiler_tracing_operation_t* ops, unsigned long n,
                      rocprofiler_callback_tracing_cb_t cb) {
            st.push_back(rocprofiler_configure_callback_tracing_service(
                c, static_cast<rocprofiler_callback_tracing_kind_t>(kind), ops, n, cb, nullptr));
        };
        cfg(bogus, ROCPROFILER_CALLBACK_TRACING_HSA_CORE_API, nullptr, 0, noop_cb);   // 0
        cfg(ctx, ROCPROFILER_CALLBACK_TRACING_NONE, nullptr, 0, noop_cb);             // 1
        cfg(ctx, ROCPROFILER_CALLBACK_TRACING_LAST, nullptr, 0, noop_cb);             // 2
        cfg(ctx, 9999, nullptr, 0, noop_cb);                                          // 3
        cfg(ctx, ROCPROFILER_CALLBACK_TRACING_HSA_CORE_API, nullptr, 0, nullptr);     // 4
        cfg(ctx, ROCPROFILER_CALLBACK_TRACING_HSA_CORE_API, good, 0, noop_cb);        // 5
        cfg(ctx, ROCPROFILER_CALLBACK_TRACING_HSA_CORE_API, too_big, 1, noop_cb);     // 6
        cfg(ctx, ROCPROFILER_CALLBACK_TRACING_HSA_CORE_API, negative, 1, noop_cb);    // 7
        cfg(ctx, ROCPROFILER_CALLBACK_TRACING_HSA_CORE_API, huge, 1, noop_cb);        // 8
        cfg(ctx, ROCPROFILER_CALLBACK_TRACING_HSA_CORE_API, good, 2, noop_cb);        // 9
        cfg(ctx, ROCPROFILER_CALLBACK_TRACING_HSA_CORE_API, nullptr, 0, noop_cb);     // 10 repeat
        cfg(ctx, ROCPROFILER_CALLBACK_TRACING_HSA_AMD_EXT_API, nullptr, 0, noop_cb);  // 11 other kind
        cfg(ctx, ROCPROFILER_CALLBACK_TRACING_RCCL_API, nullptr, 0, noop_cb);         // 12 its library is not loaded
        // A kind without operations here takes any id below encore's table bound.
        const rocprofiler_tracing_operation_t past_bound[] = {
            static_cast<rocprofiler_tracing_operation_t>(encore::max_ops_per_kind)};
        const rocprofiler_tracing_operation_t some[] = {7, 0};
        cfg(ctx, ROCPROFILER_CALLBACK_TRACING_CUDA_DRIVER_API, past_bound, 1, noop_cb);  // 13
        cfg(ctx, ROCPROFILER_CALLBACK_TRACING_CUDA_DRIVER_API, negative, 1, noop_cb);    // 14
        cfg(ctx, ROCPROFILER_CALLBACK_TRACING_CUDA_DRIVER_API, some, 2, noop_cb);        // 15
        cfg(ctx, ROCPROFILER_CALLBACK_TRACING_CUDA_DRIVER_API, some, 2, noop_cb);        // 16 repeat
        return 0;
    });
    REQUIRE(st.size() == 17);
    CHECK(st[0] == ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_FOUND);
    CHECK(st[1] == ROCPROFILER_STATUS_ERROR_KIND_NOT_FOUND);
    CHECK(st[2] == ROCPROFILER_STATUS_ERROR_KIND_NOT_FOUND);
    CHECK(st[3] == ROCPROFILER_STATUS_ERROR_KIND_NOT_FOUND);
    CHECK(st[4] == ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK(st[5] == ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK(st[6] == ROCPROFILER_STATUS_ERROR_OPERATION_NOT_FOUND);
    CHECK(st[7] == ROCPROFILER_STATUS_ERROR_OPERATION_NOT_FOUND);
    CHECK(st[8] == ROCPROFILER_STATUS_ERROR_OPERATION_NOT_FOUND);
    CHECK(st[9] == ROCPROFILER_STATUS_SUCCESS);
    CHECK(st[10] == ROCPROFILER_STATUS_ERROR_SERVICE_ALREADY_CONFIGURED);
    CHECK(st[11] == ROCPROFILER_STATUS_SUCCESS);
    CHECK(st[12] == ROCPROFILER_STATUS_SUCCESS);
    CHECK(st[13] == ROCPROFILER_STATUS_ERROR_OPERATION_NOT_FOUND);
    CHECK(st[14] == ROCPROFILER_STATUS_ERROR_OPERATION_NOT_FOUND);
    CHECK(st[15] == ROCPROFILER_STATUS_SUCCESS);
    CHECK(st[16] == ROCPROFILER_STATUS_ERROR_SERVICE_ALREADY_CONFIGURED);
    // Outside initialization: locked, even for a new kind.
    CHECK(rocprofiler_configure_callback_tracing_service(ctx, ROCPROFILER_CALLBACK_TRACING_HSA_IMAGE_EXT_API, nullptr,
                                                         0, noop_cb,
                                                         nullptr) == ROCPROFILER_STATUS_ERROR_CONFIGURATION_LOCKED);
    // The filter took effect: only the two selected ops are configured.
    const auto ops = encore::configured_operations(encore::kind::hsa_core_api);
    CHECK(ops.count() == 2);
    CHECK(ops.test(ROCPROFILER_HSA_CORE_API_ID_hsa_queue_create));
}

namespace {
void noop_ptr_cb(const rocprofiler_callback_tracing_record_t*, rocprofiler_user_data_t*, void*) {}
}  // namespace

TEST_CASE("encore_configure_callback_tracing_service_ptr: the same statuses; one service per kind in either form") {
    static std::vector<rocprofiler_status_t> st;
    static rocprofiler_context_id_t ctx{};
    st.clear();
    run_tool([] {
        CHECK(rocprofiler_create_context(&ctx) == ROCPROFILER_STATUS_SUCCESS);
        const rocprofiler_tracing_operation_t good[] = {ROCPROFILER_HSA_CORE_API_ID_hsa_init};
        const rocprofiler_tracing_operation_t bad[] = {ROCPROFILER_HSA_CORE_API_ID_LAST};
        auto cfg = [](rocprofiler_context_id_t c, int kind, const rocprofiler_tracing_operation_t* ops, unsigned long n,
                      encore_callback_tracing_ptr_cb_t cb) {
            st.push_back(encore_configure_callback_tracing_service_ptr(
                c, static_cast<rocprofiler_callback_tracing_kind_t>(kind), ops, n, cb, nullptr));
        };
        cfg(bogus, ROCPROFILER_CALLBACK_TRACING_HSA_CORE_API, nullptr, 0, noop_ptr_cb);  // 0
        cfg(ctx, ROCPROFILER_CALLBACK_TRACING_NONE, nullptr, 0, noop_ptr_cb);            // 1
        cfg(ctx, 9999, nullptr, 0, noop_ptr_cb);                                         // 2
        cfg(ctx, ROCPROFILER_CALLBACK_TRACING_HSA_CORE_API, nullptr, 0, nullptr);        // 3
        cfg(ctx, ROCPROFILER_CALLBACK_TRACING_HSA_CORE_API, good, 0, noop_ptr_cb);       // 4
        cfg(ctx, ROCPROFILER_CALLBACK_TRACING_HSA_CORE_API, bad, 1, noop_ptr_cb);        // 5
        cfg(ctx, ROCPROFILER_CALLBACK_TRACING_HSA_CORE_API, good, 1, noop_ptr_cb);       // 6
        cfg(ctx, ROCPROFILER_CALLBACK_TRACING_HSA_CORE_API, nullptr, 0, noop_ptr_cb);    // 7 repeat
        cfg(ctx, ROCPROFILER_CALLBACK_TRACING_RCCL_API, nullptr, 0, noop_ptr_cb);        // 8
        // The other form on a kind this form configured, and the reverse.
        st.push_back(rocprofiler_configure_callback_tracing_service(ctx, ROCPROFILER_CALLBACK_TRACING_HSA_CORE_API,
                                                                    nullptr, 0, noop_cb, nullptr));  // 9
        st.push_back(rocprofiler_configure_callback_tracing_service(ctx, ROCPROFILER_CALLBACK_TRACING_HSA_AMD_EXT_API,
                                                                    nullptr, 0, noop_cb, nullptr));  // 10
        cfg(ctx, ROCPROFILER_CALLBACK_TRACING_HSA_AMD_EXT_API, nullptr, 0, noop_ptr_cb);             // 11
        return 0;
    });
    REQUIRE(st.size() == 12);
    CHECK(st[0] == ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_FOUND);
    CHECK(st[1] == ROCPROFILER_STATUS_ERROR_KIND_NOT_FOUND);
    CHECK(st[2] == ROCPROFILER_STATUS_ERROR_KIND_NOT_FOUND);
    CHECK(st[3] == ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK(st[4] == ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK(st[5] == ROCPROFILER_STATUS_ERROR_OPERATION_NOT_FOUND);
    CHECK(st[6] == ROCPROFILER_STATUS_SUCCESS);
    CHECK(st[7] == ROCPROFILER_STATUS_ERROR_SERVICE_ALREADY_CONFIGURED);
    CHECK(st[8] == ROCPROFILER_STATUS_SUCCESS);
    CHECK(st[9] == ROCPROFILER_STATUS_ERROR_SERVICE_ALREADY_CONFIGURED);
    CHECK(st[10] == ROCPROFILER_STATUS_SUCCESS);
    CHECK(st[11] == ROCPROFILER_STATUS_ERROR_SERVICE_ALREADY_CONFIGURED);
    CHECK(encore_configure_callback_tracing_service_ptr(ctx, ROCPROFILER_CALLBACK_TRACING_HSA_IMAGE_EXT_API, nullptr, 0,
                                                        noop_ptr_cb,
                                                        nullptr) == ROCPROFILER_STATUS_ERROR_CONFIGURATION_LOCKED);
    const auto ops = encore::configured_operations(encore::kind::hsa_core_api);
    CHECK(ops.count() == 1);
    CHECK(ops.test(ROCPROFILER_HSA_CORE_API_ID_hsa_init));
}

TEST_CASE("kind and operation names") {
    const char* name = nullptr;
    uint64_t len = 0;
    CHECK(rocprofiler_query_callback_tracing_kind_name(ROCPROFILER_CALLBACK_TRACING_HSA_CORE_API, &name, &len) ==
          ROCPROFILER_STATUS_SUCCESS);
    CHECK(std::string(name) == "HSA_CORE_API");
    CHECK(len == 12);
    len = 0;
    CHECK(rocprofiler_query_callback_tracing_kind_name(ROCPROFILER_CALLBACK_TRACING_KERNEL_DISPATCH, nullptr, &len) ==
          ROCPROFILER_STATUS_SUCCESS);
    CHECK(len == std::strlen("KERNEL_DISPATCH"));  // name_len set even without name
    CHECK(rocprofiler_query_callback_tracing_kind_name(ROCPROFILER_CALLBACK_TRACING_NONE, &name, &len) ==
          ROCPROFILER_STATUS_ERROR_KIND_NOT_FOUND);
    CHECK(rocprofiler_query_callback_tracing_kind_name(ROCPROFILER_CALLBACK_TRACING_LAST, &name, &len) ==
          ROCPROFILER_STATUS_ERROR_KIND_NOT_FOUND);

    CHECK(rocprofiler_query_callback_tracing_kind_operation_name(ROCPROFILER_CALLBACK_TRACING_HSA_CORE_API,
                                                                 ROCPROFILER_HSA_CORE_API_ID_hsa_queue_create, &name,
                                                                 &len) == ROCPROFILER_STATUS_SUCCESS);
    CHECK(std::string(name) == "hsa_queue_create");
    CHECK(len == std::strlen("hsa_queue_create"));
    CHECK(rocprofiler_query_callback_tracing_kind_operation_name(ROCPROFILER_CALLBACK_TRACING_HSA_CORE_API,
                                                                 ROCPROFILER_HSA_CORE_API_ID_LAST, &name,
                                                                 &len) == ROCPROFILER_STATUS_ERROR_OPERATION_NOT_FOUND);
    CHECK(rocprofiler_query_callback_tracing_kind_operation_name(ROCPROFILER_CALLBACK_TRACING_HSA_CORE_API, -1, &name,
                                                                 &len) == ROCPROFILER_STATUS_ERROR_OPERATION_NOT_FOUND);
    // Non-API kinds are 1-based.
    CHECK(rocprofiler_query_callback_tracing_kind_operation_name(ROCPROFILER_CALLBACK_TRACING_KERNEL_DISPATCH, 0, &name,
                                                                 &len) == ROCPROFILER_STATUS_ERROR_OPERATION_NOT_FOUND);
    CHECK(rocprofiler_query_callback_tracing_kind_operation_name(ROCPROFILER_CALLBACK_TRACING_KERNEL_DISPATCH,
                                                                 ROCPROFILER_KERNEL_DISPATCH_COMPLETE, &name,
                                                                 nullptr) == ROCPROFILER_STATUS_SUCCESS);
    CHECK(std::string(name) == "KERNEL_DISPATCH_COMPLETE");
    CHECK(rocprofiler_query_callback_tracing_kind_operation_name(ROCPROFILER_CALLBACK_TRACING_NONE, 0, &name, &len) ==
          ROCPROFILER_STATUS_ERROR_KIND_NOT_FOUND);
    // A kind whose operations come with its library (libencore-cuda, not loaded here).
    CHECK(rocprofiler_query_callback_tracing_kind_operation_name(ROCPROFILER_CALLBACK_TRACING_CUDA_DRIVER_API, 0, &name,
                                                                 &len) == ROCPROFILER_STATUS_ERROR_NOT_IMPLEMENTED);
    // RCCL_API's names are libencore's, also without libencore-rccl (where HIP's headers are: its
    // types are HIP's).
#if ENCORE_HIP_HEADERS
    CHECK(rocprofiler_query_callback_tracing_kind_operation_name(ROCPROFILER_CALLBACK_TRACING_RCCL_API, 0, &name,
                                                                 &len) == ROCPROFILER_STATUS_SUCCESS);
    CHECK(std::string(name) == "ncclAllGather");
#else
    CHECK(rocprofiler_query_callback_tracing_kind_operation_name(ROCPROFILER_CALLBACK_TRACING_RCCL_API, 0, &name,
                                                                 &len) == ROCPROFILER_STATUS_ERROR_NOT_IMPLEMENTED);
#endif
}

TEST_CASE("iterating kinds and operations cross-checks names against ids") {
    std::vector<int> kinds;
    CHECK(rocprofiler_iterate_callback_tracing_kinds(
              [](rocprofiler_callback_tracing_kind_t k, void* d) {
                  static_cast<std::vector<int>*>(d)->push_back(k);
                  return 0;
              },
              &kinds) == ROCPROFILER_STATUS_SUCCESS);
    CHECK(kinds.size() == ROCPROFILER_CALLBACK_TRACING_LAST - 1);
    CHECK(kinds.front() == 1);
    CHECK(rocprofiler_iterate_callback_tracing_kinds(nullptr, nullptr) == ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT);
    int seen = 0;
    CHECK(rocprofiler_iterate_callback_tracing_kinds([](rocprofiler_callback_tracing_kind_t,
                                                        void* d) { return ++*static_cast<int*>(d) == 3 ? 1 : 0; },
                                                     &seen) == ROCPROFILER_STATUS_SUCCESS);
    CHECK(seen == 3);  // stopped by the callback

    std::vector<rocprofiler_callback_tracing_kind_t> listed = {ROCPROFILER_CALLBACK_TRACING_HSA_CORE_API,
                                                               ROCPROFILER_CALLBACK_TRACING_HSA_AMD_EXT_API,
                                                               ROCPROFILER_CALLBACK_TRACING_MEMORY_COPY};
    if (ENCORE_HIP_HEADERS) listed.push_back(ROCPROFILER_CALLBACK_TRACING_HIP_RUNTIME_API);  // HIP's types
    for (auto k : listed) {
        struct state {
            rocprofiler_callback_tracing_kind_t kind;
            int n = 0, bad = 0;
        } s{k};
        CHECK(rocprofiler_iterate_callback_tracing_kind_operations(
                  k,
                  [](rocprofiler_callback_tracing_kind_t kind, rocprofiler_tracing_operation_t op, void* d) {
                      auto* st = static_cast<state*>(d);
                      const char* name = nullptr;
                      uint64_t len = 0;
                      // Name lookup by id agrees with iteration.
                      if (rocprofiler_query_callback_tracing_kind_operation_name(kind, op, &name, &len) !=
                              ROCPROFILER_STATUS_SUCCESS ||
                          name == nullptr || len != std::strlen(name))
                          ++st->bad;
                      ++st->n;
                      return 0;
                  },
                  &s) == ROCPROFILER_STATUS_SUCCESS);
        CHECK(s.bad == 0);
        CHECK(s.n > 0);
        if (k == ROCPROFILER_CALLBACK_TRACING_HSA_CORE_API) CHECK(s.n == 125);
        if (k == ROCPROFILER_CALLBACK_TRACING_MEMORY_COPY) CHECK(s.n == 4);
    }
    CHECK(rocprofiler_iterate_callback_tracing_kind_operations(
              ROCPROFILER_CALLBACK_TRACING_NONE, [](auto, auto, void*) { return 0; }, nullptr) ==
          ROCPROFILER_STATUS_ERROR_KIND_NOT_FOUND);
    CHECK(rocprofiler_iterate_callback_tracing_kind_operations(ROCPROFILER_CALLBACK_TRACING_HSA_CORE_API, nullptr,
                                                               nullptr) == ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT);
}

TEST_CASE("argument iteration rejects bad records") {
    auto cb = [](rocprofiler_callback_tracing_kind_t, rocprofiler_tracing_operation_t, uint32_t, const void* const,
                 int32_t, const char*, const char*, const char*, int32_t, void*) { return 0; };
    rocprofiler_callback_tracing_record_t r{};
    r.kind = ROCPROFILER_CALLBACK_TRACING_HSA_CORE_API;
    r.operation = 0;
    CHECK(rocprofiler_iterate_callback_tracing_kind_operation_args(r, cb, 1, nullptr) ==
          ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT);  // null payload
    rocprofiler_callback_tracing_hsa_api_data_t payload{};
    r.payload = &payload;
    CHECK(rocprofiler_iterate_callback_tracing_kind_operation_args(r, cb, 1, nullptr) ==
          ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT);  // size field not set
    payload.size = sizeof(payload);
    CHECK(rocprofiler_iterate_callback_tracing_kind_operation_args(r, nullptr, 1, nullptr) ==
          ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK(rocprofiler_iterate_callback_tracing_kind_operation_args(r, cb, -5, nullptr) == ROCPROFILER_STATUS_SUCCESS);
    r.operation = 999;
    CHECK(rocprofiler_iterate_callback_tracing_kind_operation_args(r, cb, 1, nullptr) ==
          ROCPROFILER_STATUS_ERROR_OPERATION_NOT_FOUND);
    {
        // A forged record: the size field is right, the payload ends at an unmapped page.
        const long page = ::sysconf(_SC_PAGESIZE);
        auto* two = static_cast<std::byte*>(::mmap(nullptr, 2 * page, PROT_READ | PROT_WRITE,
                                                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
        REQUIRE(two != MAP_FAILED);
        REQUIRE(::mprotect(two + page, page, PROT_NONE) == 0);
        auto* forged = two + page - 16;  // the size field and 8 more bytes are readable
        const std::uint64_t size = sizeof(rocprofiler_callback_tracing_hsa_api_data_t);
        std::memcpy(forged, &size, sizeof(size));
        r.payload = forged;
        r.operation = ROCPROFILER_HSA_CORE_API_ID_hsa_queue_create;  // 8 arguments to read
        CHECK(rocprofiler_iterate_callback_tracing_kind_operation_args(r, cb, 1, nullptr) ==
              ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT);
        ::munmap(two, 2 * page);
        r.operation = 999;
    }
    r.payload = reinterpret_cast<void*>(0x10);  // unreadable: reported, not dereferenced
    CHECK(rocprofiler_iterate_callback_tracing_kind_operation_args(r, cb, 1, nullptr) ==
          ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT);
    r.kind = ROCPROFILER_CALLBACK_TRACING_KERNEL_DISPATCH;
    CHECK(rocprofiler_iterate_callback_tracing_kind_operation_args(r, cb, 1, nullptr) ==
          ROCPROFILER_STATUS_ERROR_NOT_IMPLEMENTED);
    r.kind = ROCPROFILER_CALLBACK_TRACING_LAST;
    CHECK(rocprofiler_iterate_callback_tracing_kind_operation_args(r, cb, 1, nullptr) ==
          ROCPROFILER_STATUS_ERROR_KIND_NOT_FOUND);
}

TEST_CASE("encore_format_callback_tracing_retval: a call's return value by name, and every status") {
    using encore::domains::hsa_core;
    constexpr auto create = hsa_core::id_of<"hsa_queue_create">();
    constexpr auto store = hsa_core::id_of<"hsa_signal_store_relaxed">();  // returns nothing
    auto payload = encore::tracing::make_payload<hsa_core, create>(hsa_agent_t{0x1234}, 4096u, HSA_QUEUE_TYPE_MULTI,
                                                                   nullptr, nullptr, 0u, 0u, nullptr);
    const auto set_status = [&](int v) {
        std::memcpy(reinterpret_cast<std::byte*>(&payload) + offsetof(decltype(payload), retval), &v, sizeof(v));
    };
    rocprofiler_callback_tracing_record_t r{};
    r.kind = ROCPROFILER_CALLBACK_TRACING_HSA_CORE_API;
    r.operation = static_cast<rocprofiler_tracing_operation_t>(create);
    r.phase = ROCPROFILER_CALLBACK_PHASE_EXIT;
    r.payload = &payload;
    char buf[64];
    std::size_t length = 0;
    set_status(HSA_STATUS_SUCCESS);
    REQUIRE(encore_format_callback_tracing_retval(r, 0, buf, sizeof buf, &length) == ROCPROFILER_STATUS_SUCCESS);
    CHECK(std::string(buf) == "HSA_STATUS_SUCCESS");
    CHECK(length == std::strlen("HSA_STATUS_SUCCESS"));
    set_status(HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK(encore_format_callback_tracing_retval(r, 0, buf, sizeof buf, nullptr) == ROCPROFILER_STATUS_SUCCESS);
    CHECK(std::string(buf) == "HSA_STATUS_ERROR_INVALID_ARGUMENT");
    set_status(0x7abc);  // no enumerator: the number
    CHECK(encore_format_callback_tracing_retval(r, 0, buf, sizeof buf, nullptr) == ROCPROFILER_STATUS_SUCCESS);
    CHECK(std::string(buf) == std::to_string(0x7abc));
    // Cut to fit, the whole length said; the length alone with no buffer.
    set_status(HSA_STATUS_SUCCESS);
    char small[4] = {'x', 'x', 'x', 'x'};
    CHECK(encore_format_callback_tracing_retval(r, 0, small, sizeof small, &length) == ROCPROFILER_STATUS_SUCCESS);
    CHECK(std::string(small) == "HSA");
    CHECK(length == std::strlen("HSA_STATUS_SUCCESS"));
    length = 0;
    CHECK(encore_format_callback_tracing_retval(r, 0, nullptr, 0, &length) == ROCPROFILER_STATUS_SUCCESS);
    CHECK(length == std::strlen("HSA_STATUS_SUCCESS"));
    // Repeated calls give the same answer.
    CHECK(encore_format_callback_tracing_retval(r, 0, buf, sizeof buf, nullptr) == ROCPROFILER_STATUS_SUCCESS);
    CHECK(std::string(buf) == "HSA_STATUS_SUCCESS");
    // An operation that returns nothing: "".
    auto stored = encore::tracing::make_payload<hsa_core, store>(hsa_signal_t{1}, hsa_signal_value_t{2});
    rocprofiler_callback_tracing_record_t v = r;
    v.operation = static_cast<rocprofiler_tracing_operation_t>(store);
    v.payload = &stored;
    buf[0] = 'x';
    CHECK(encore_format_callback_tracing_retval(v, 0, buf, sizeof buf, &length) == ROCPROFILER_STATUS_SUCCESS);
    CHECK((buf[0] == '\0' && length == 0));
    // Statuses: no payload, a payload of another size, a negative depth, nowhere to write, an
    // operation the kind lacks, a kind without return values, no kind.
    rocprofiler_callback_tracing_record_t bad = r;
    bad.payload = nullptr;
    CHECK(encore_format_callback_tracing_retval(bad, 0, buf, sizeof buf, nullptr) ==
          ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT);
    std::uint64_t wrong_size[64] = {8};
    bad.payload = wrong_size;
    CHECK(encore_format_callback_tracing_retval(bad, 0, buf, sizeof buf, nullptr) ==
          ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK(encore_format_callback_tracing_retval(r, -1, buf, sizeof buf, nullptr) ==
          ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK(encore_format_callback_tracing_retval(r, 0, nullptr, 8, &length) == ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK(encore_format_callback_tracing_retval(r, 0, nullptr, 0, nullptr) == ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT);
    bad = r;
    bad.operation = 100000;
    CHECK(encore_format_callback_tracing_retval(bad, 0, buf, sizeof buf, nullptr) ==
          ROCPROFILER_STATUS_ERROR_OPERATION_NOT_FOUND);
    bad.operation = -1;
    CHECK(encore_format_callback_tracing_retval(bad, 0, buf, sizeof buf, nullptr) ==
          ROCPROFILER_STATUS_ERROR_OPERATION_NOT_FOUND);
    bad = r;
    bad.kind = ROCPROFILER_CALLBACK_TRACING_KERNEL_DISPATCH;
    CHECK(encore_format_callback_tracing_retval(bad, 0, buf, sizeof buf, nullptr) ==
          ROCPROFILER_STATUS_ERROR_NOT_IMPLEMENTED);
    bad.kind = ROCPROFILER_CALLBACK_TRACING_LAST;
    CHECK(encore_format_callback_tracing_retval(bad, 0, buf, sizeof buf, nullptr) ==
          ROCPROFILER_STATUS_ERROR_KIND_NOT_FOUND);
    bad.kind = static_cast<rocprofiler_callback_tracing_kind_t>(-3);
    CHECK(encore_format_callback_tracing_retval(bad, 0, buf, sizeof buf, nullptr) ==
          ROCPROFILER_STATUS_ERROR_KIND_NOT_FOUND);
}

TEST_CASE("encore_query_operation_payload_layout: the bytes that format a call later, and every status") {
    using encore::domains::hsa_core;
    constexpr auto create = hsa_core::id_of<"hsa_queue_create">();
    encore_operation_payload_layout_t l{};
    l.size = sizeof(l);
    REQUIRE(encore_query_operation_payload_layout(ROCPROFILER_CALLBACK_TRACING_HSA_CORE_API,
                                                  static_cast<rocprofiler_tracing_operation_t>(create),
                                                  &l) == ROCPROFILER_STATUS_SUCCESS);
    using P = rocprofiler_callback_tracing_hsa_api_data_t;
    CHECK(l.payload_size == sizeof(P));
    CHECK(l.args_offset == offsetof(P, args));
    CHECK(l.retval_offset == offsetof(P, retval));
    CHECK(l.retval_size == sizeof(P::retval));
    CHECK(l.args_size == sizeof(encore::api::captured_args<hsa_core::op_at<create>>));
    // A call's bytes copied out and formatted in a rebuilt payload print as the original does at
    // depth 0 (the pointer argument as its address, never read).
    const auto original = encore::tracing::make_payload<hsa_core, create>(hsa_agent_t{0x1234}, 4096u,
                                                                          HSA_QUEUE_TYPE_MULTI, nullptr, nullptr, 0u,
                                                                          0u, reinterpret_cast<hsa_queue_t**>(0xdead0));
    std::vector<std::byte> copy(l.payload_size);
    const std::uint64_t size = l.payload_size;
    std::memcpy(copy.data(), &size, sizeof(size));
    std::memcpy(copy.data() + l.args_offset, reinterpret_cast<const std::byte*>(&original) + l.args_offset, l.args_size);
    const auto values = [](const void* payload) {
        rocprofiler_callback_tracing_record_t r{};
        r.kind = ROCPROFILER_CALLBACK_TRACING_HSA_CORE_API;
        r.operation = static_cast<rocprofiler_tracing_operation_t>(create);
        r.payload = const_cast<void*>(payload);
        std::string out;
        CHECK(rocprofiler_iterate_callback_tracing_kind_operation_args(
                  r,
                  [](rocprofiler_callback_tracing_kind_t, rocprofiler_tracing_operation_t, uint32_t, const void* const,
                     int32_t, const char*, const char* name, const char* value, int32_t, void* data) {
                      *static_cast<std::string*>(data) += std::string(name) + "=" + value + ";";
                      return 0;
                  },
                  0, &out) == ROCPROFILER_STATUS_SUCCESS);
        return out;
    };
    CHECK(values(copy.data()) == values(&original));
    CHECK(values(copy.data()).find("queue=0xdead0") != std::string::npos);
    // Repeated calls give the same answer.
    encore_operation_payload_layout_t again{};
    again.size = sizeof(again);
    CHECK(encore_query_operation_payload_layout(ROCPROFILER_CALLBACK_TRACING_HSA_CORE_API,
                                                static_cast<rocprofiler_tracing_operation_t>(create),
                                                &again) == ROCPROFILER_STATUS_SUCCESS);
    CHECK(std::memcmp(&again, &l, sizeof(l)) == 0);
    // Statuses: null, a short struct, an operation the kind lacks, kinds without arguments, no kind.
    CHECK(encore_query_operation_payload_layout(ROCPROFILER_CALLBACK_TRACING_HSA_CORE_API, 0, nullptr) ==
          ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT);
    encore_operation_payload_layout_t small{};
    small.size = 8;
    CHECK(encore_query_operation_payload_layout(ROCPROFILER_CALLBACK_TRACING_HSA_CORE_API, 0, &small) ==
          ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK(encore_query_operation_payload_layout(ROCPROFILER_CALLBACK_TRACING_HSA_CORE_API, 100000, &l) ==
          ROCPROFILER_STATUS_ERROR_OPERATION_NOT_FOUND);
    CHECK(encore_query_operation_payload_layout(ROCPROFILER_CALLBACK_TRACING_HSA_CORE_API, -1, &l) ==
          ROCPROFILER_STATUS_ERROR_OPERATION_NOT_FOUND);
    CHECK(encore_query_operation_payload_layout(ROCPROFILER_CALLBACK_TRACING_KERNEL_DISPATCH, 0, &l) ==
          ROCPROFILER_STATUS_ERROR_NOT_IMPLEMENTED);
    CHECK(encore_query_operation_payload_layout(ROCPROFILER_CALLBACK_TRACING_LAST, 0, &l) ==
          ROCPROFILER_STATUS_ERROR_KIND_NOT_FOUND);
    CHECK(encore_query_operation_payload_layout(static_cast<rocprofiler_callback_tracing_kind_t>(-3), 0, &l) ==
          ROCPROFILER_STATUS_ERROR_KIND_NOT_FOUND);
}

TEST_CASE("external correlation ids: push/pop errors and multithreaded use") {
    static rocprofiler_context_id_t ctx{};
    run_tool([] { return static_cast<int>(rocprofiler_create_context(&ctx)); });
    rocprofiler_thread_id_t tid = 0;
    CHECK(rocprofiler_get_thread_id(nullptr) == ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT);
    REQUIRE(rocprofiler_get_thread_id(&tid) == ROCPROFILER_STATUS_SUCCESS);
    CHECK(tid > 0);
    rocprofiler_user_data_t v{};
    CHECK(rocprofiler_pop_external_correlation_id(ctx, tid, &v) == ROCPROFILER_STATUS_ERROR);  // empty
    CHECK(rocprofiler_push_external_correlation_id(bogus, tid, v) == ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_FOUND);
    CHECK(rocprofiler_pop_external_correlation_id(bogus, tid, &v) == ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_FOUND);
    CHECK(rocprofiler_push_external_correlation_id(ctx, 0, v) == ROCPROFILER_STATUS_ERROR_THREAD_NOT_FOUND);
    CHECK(rocprofiler_push_external_correlation_id(ctx, 0x7ffffff0, v) == ROCPROFILER_STATUS_ERROR_THREAD_NOT_FOUND);
    CHECK(rocprofiler_pop_external_correlation_id(ctx, 0x7ffffff0, &v) == ROCPROFILER_STATUS_ERROR_THREAD_NOT_FOUND);
    for (std::uint64_t i = 1; i <= 3; ++i)
        CHECK(rocprofiler_push_external_correlation_id(ctx, tid, rocprofiler_user_data_t{.value = i}) ==
              ROCPROFILER_STATUS_SUCCESS);
    CHECK(rocprofiler_pop_external_correlation_id(ctx, tid, &v) == ROCPROFILER_STATUS_SUCCESS);
    CHECK(v.value == 3);
    CHECK(rocprofiler_pop_external_correlation_id(ctx, tid, nullptr) == ROCPROFILER_STATUS_SUCCESS);  // NULL out ok
    CHECK(rocprofiler_pop_external_correlation_id(ctx, tid, &v) == ROCPROFILER_STATUS_SUCCESS);
    CHECK(v.value == 1);

    // Many threads push and pop on their own stacks and on one shared thread's stack at once.
    std::atomic<int> errors{0};
    std::vector<std::thread> pool;
    for (int t = 0; t < 8; ++t)
        pool.emplace_back([&, t] {
            rocprofiler_thread_id_t me = 0;
            (void)rocprofiler_get_thread_id(&me);
            for (int i = 0; i < 1000; ++i) {
                const rocprofiler_user_data_t mine{.value = static_cast<std::uint64_t>(t * 10000 + i)};
                if (rocprofiler_push_external_correlation_id(ctx, me, mine) != ROCPROFILER_STATUS_SUCCESS) ++errors;
                if (rocprofiler_push_external_correlation_id(ctx, tid, mine) != ROCPROFILER_STATUS_SUCCESS) ++errors;
                rocprofiler_user_data_t out{};
                if (rocprofiler_pop_external_correlation_id(ctx, me, &out) != ROCPROFILER_STATUS_SUCCESS ||
                    out.value != mine.value)
                    ++errors;  // a thread's own stack is LIFO
                if (rocprofiler_pop_external_correlation_id(ctx, tid, &out) != ROCPROFILER_STATUS_SUCCESS) ++errors;
            }
        });
    for (auto& th : pool) th.join();
    CHECK(errors.load() == 0);
    CHECK(rocprofiler_pop_external_correlation_id(ctx, tid, &v) == ROCPROFILER_STATUS_ERROR);  // balanced
}

TEST_CASE("external correlation id request service") {
    static rocprofiler_context_id_t ctx{};
    static std::vector<rocprofiler_status_t> st;
    st.clear();
    run_tool([] {
        CHECK(rocprofiler_create_context(&ctx) == ROCPROFILER_STATUS_SUCCESS);
        auto cb = [](rocprofiler_thread_id_t, rocprofiler_context_id_t,
                     rocprofiler_external_correlation_id_request_kind_t, rocprofiler_tracing_operation_t, uint64_t,
                     rocprofiler_user_data_t*, void*) { return 1; };
        const rocprofiler_external_correlation_id_request_kind_t bad[] = {ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_LAST};
        st.push_back(rocprofiler_configure_external_correlation_id_request_service(bogus, nullptr, 0, cb, nullptr));
        st.push_back(rocprofiler_configure_external_correlation_id_request_service(ctx, nullptr, 0, nullptr, nullptr));
        st.push_back(rocprofiler_configure_external_correlation_id_request_service(ctx, bad, 1, cb, nullptr));
        st.push_back(rocprofiler_configure_external_correlation_id_request_service(ctx, nullptr, 0, cb, nullptr));
        st.push_back(rocprofiler_configure_external_correlation_id_request_service(ctx, nullptr, 0, cb, nullptr));
        return 0;
    });
    REQUIRE(st.size() == 5);
    CHECK(st[0] == ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_FOUND);
    CHECK(st[1] == ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK(st[2] == ROCPROFILER_STATUS_ERROR_KIND_NOT_FOUND);
    CHECK(st[3] == ROCPROFILER_STATUS_SUCCESS);
    CHECK(st[4] == ROCPROFILER_STATUS_ERROR_SERVICE_ALREADY_CONFIGURED);
    CHECK(rocprofiler_configure_external_correlation_id_request_service(ctx, nullptr, 0, nullptr, nullptr) ==
          ROCPROFILER_STATUS_ERROR_CONFIGURATION_LOCKED);
}

TEST_CASE("registration: force_configure, is_initialized, is_finalized, failing tools") {
    encore::core::reset_registration_for_testing();
    int s = 7;
    CHECK(rocprofiler_is_initialized(nullptr) == ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK(rocprofiler_is_finalized(nullptr) == ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK(rocprofiler_is_initialized(&s) == ROCPROFILER_STATUS_SUCCESS);
    CHECK(s == 0);
    CHECK(rocprofiler_force_configure(nullptr) == ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT);

    static int configured = 0, initialized = 0, finalized = 0, bad_init = 0;
    static rocprofiler_context_id_t bad_ctx{};
    static int in_init_state = 9;
    struct good {
        static rocprofiler_tool_configure_result_t* configure(uint32_t version, const char* rt, uint32_t prio,
                                                              rocprofiler_client_id_t* id) {
            ++configured;
            CHECK(version == ROCPROFILER_SDK_VERSION);
            CHECK(rt != nullptr);
            CHECK(prio == 0);
            id->name = "good";
            static rocprofiler_tool_configure_result_t r{sizeof(r),
                                                         [](rocprofiler_client_finalize_t, void*) {
                                                             ++initialized;
                                                             (void)rocprofiler_is_initialized(&in_init_state);
                                                             return 0;
                                                         },
                                                         [](void*) { ++finalized; }, nullptr};
            return &r;
        }
    };
    struct bad {
        static rocprofiler_tool_configure_result_t* configure(uint32_t, const char*, uint32_t prio,
                                                              rocprofiler_client_id_t* id) {
            CHECK(prio == 0);  // the only tool: forced configures are one per process
            id->name = "bad";
            static rocprofiler_tool_configure_result_t r{sizeof(r),
                                                         [](rocprofiler_client_finalize_t, void*) {
                                                             ++bad_init;
                                                             (void)rocprofiler_create_context(&bad_ctx);
                                                             return -1;  // failed: its context must be disabled
                                                         },
                                                         [](void*) { FAIL("finalize of a failed tool must not run"); },
                                                         nullptr};
            return &r;
        }
    };
    struct declines {
        static rocprofiler_tool_configure_result_t* configure(uint32_t, const char*, uint32_t, rocprofiler_client_id_t*) {
            return nullptr;
        }
    };
    // As rocprofiler-sdk does: the forced configure initializes at once (the tool's initialize has
    // run when it returns), and there is one per process.
    CHECK(rocprofiler_force_configure(&good::configure) == ROCPROFILER_STATUS_SUCCESS);
    CHECK(configured == 1);
    CHECK(initialized == 1);
    CHECK(in_init_state == -1);
    CHECK(rocprofiler_is_initialized(&s) == ROCPROFILER_STATUS_SUCCESS);
    CHECK(s == 1);
    CHECK(rocprofiler_force_configure(&good::configure) == ROCPROFILER_STATUS_ERROR_CONFIGURATION_LOCKED);
    CHECK(rocprofiler_force_configure(&declines::configure) == ROCPROFILER_STATUS_ERROR_CONFIGURATION_LOCKED);
    encore::initialize();  // repeated: no effect
    CHECK(configured == 1);
    CHECK(initialized == 1);
    CHECK(encore::register_tool("late", [](void*) { return 0; }) == ROCPROFILER_STATUS_ERROR_CONFIGURATION_LOCKED);
    CHECK(rocprofiler_is_finalized(&s) == ROCPROFILER_STATUS_SUCCESS);
    CHECK(s == 0);
    encore::core::finalize();
    encore::core::finalize();
    CHECK(finalized == 1);
    CHECK(rocprofiler_is_finalized(&s) == ROCPROFILER_STATUS_SUCCESS);
    CHECK(s == 1);

    // A forced tool whose initialize fails: its context is disabled, the call itself succeeded.
    encore::core::reset_registration_for_testing();
    CHECK(rocprofiler_force_configure(&bad::configure) == ROCPROFILER_STATUS_SUCCESS);
    CHECK(bad_init == 1);
    int valid = 1;
    CHECK(rocprofiler_context_is_valid(bad_ctx, &valid) == ROCPROFILER_STATUS_SUCCESS);
    CHECK(valid == 0);
    CHECK(rocprofiler_start_context(bad_ctx) == ROCPROFILER_STATUS_ERROR_CONTEXT_INVALID);
    encore::core::finalize();

    // A forced tool that declines (configure returns NULL): initialized with no tool.
    encore::core::reset_registration_for_testing();
    CHECK(rocprofiler_force_configure(&declines::configure) == ROCPROFILER_STATUS_SUCCESS);
    CHECK(rocprofiler_is_initialized(&s) == ROCPROFILER_STATUS_SUCCESS);
    CHECK(s == 1);
    encore::core::finalize();
}

TEST_CASE("registration: a configure result of size 0 is read whole, as the reference does; a partial size is refused") {
    encore::core::reset_registration_for_testing();
    static int zero_init = 0, partial_init = 0, zero_fini = 0;
    struct zero {
        static rocprofiler_tool_configure_result_t* configure(uint32_t, const char*, uint32_t,
                                                              rocprofiler_client_id_t* id) {
            id->name = "size-zero";
            // What a tool that never sets `size` returns (Olympus-HPC Mneme's rocr_profile).
            static rocprofiler_tool_configure_result_t r{0,
                                                         [](rocprofiler_client_finalize_t, void*) {
                                                             ++zero_init;
                                                             return 0;
                                                         },
                                                         [](void*) { ++zero_fini; }, nullptr};
            return &r;
        }
    };
    struct partial {
        static rocprofiler_tool_configure_result_t* configure(uint32_t, const char*, uint32_t,
                                                              rocprofiler_client_id_t* id) {
            id->name = "size-eight";
            static rocprofiler_tool_configure_result_t r{8,
                                                         [](rocprofiler_client_finalize_t, void*) {
                                                             ++partial_init;
                                                             return 0;
                                                         },
                                                         nullptr, nullptr};
            return &r;
        }
    };
    // One forced configure per process (it initializes at once): one tool each, reset between.
    const std::string out = test_support::stderr_of([] {
        CHECK(rocprofiler_force_configure(&zero::configure) == ROCPROFILER_STATUS_SUCCESS);
    });
    CAPTURE(out);
    CHECK(zero_init == 1);
    CHECK(out.find("configure result with size 0; read as the whole struct") != std::string::npos);
    encore::core::finalize();
    CHECK(zero_fini == 1);
    encore::core::reset_registration_for_testing();
    const std::string out8 = test_support::stderr_of([] {
        CHECK(rocprofiler_force_configure(&partial::configure) == ROCPROFILER_STATUS_SUCCESS);
    });
    CAPTURE(out8);
    CHECK(partial_init == 0);
    CHECK(out8.find("configure result of unknown size 8; ignored") != std::string::npos);
    encore::core::finalize();
}

TEST_CASE("status names and strings, version, timestamps") {
    for (int i = 0; i < ROCPROFILER_STATUS_LAST; ++i) {
        const char* n = rocprofiler_get_status_name(static_cast<rocprofiler_status_t>(i));
        REQUIRE(n != nullptr);
        CHECK(std::strncmp(n, "ROCPROFILER_STATUS_", 19) == 0);
        CHECK(rocprofiler_get_status_string(static_cast<rocprofiler_status_t>(i)) != nullptr);
    }
    CHECK(std::string(rocprofiler_get_status_name(ROCPROFILER_STATUS_ERROR_CONFIGURATION_LOCKED)) ==
          "ROCPROFILER_STATUS_ERROR_CONFIGURATION_LOCKED");
    CHECK(std::string(rocprofiler_get_status_name(ROCPROFILER_STATUS_ERROR_INCOMPATIBLE_REGISTER_VERSION)) ==
          "ROCPROFILER_STATUS_ERROR_INCOMPATIBLE_REGISTER_VERSION");
    CHECK(rocprofiler_get_status_name(ROCPROFILER_STATUS_LAST) == nullptr);
    CHECK(rocprofiler_get_status_string(static_cast<rocprofiler_status_t>(-1)) == nullptr);
    uint32_t major = 9, minor = 9, patch = 9;
    CHECK(rocprofiler_get_version(&major, &minor, &patch) == ROCPROFILER_STATUS_SUCCESS);
    CHECK(major == ROCPROFILER_VERSION_MAJOR);
    CHECK(rocprofiler_get_version(nullptr, nullptr, nullptr) == ROCPROFILER_STATUS_SUCCESS);
    rocprofiler_timestamp_t a = 0, b = 0;
    CHECK(rocprofiler_get_timestamp(nullptr) == ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK(rocprofiler_get_timestamp(&a) == ROCPROFILER_STATUS_SUCCESS);
    CHECK(rocprofiler_get_timestamp(&b) == ROCPROFILER_STATUS_SUCCESS);
    CHECK(a > 0);
    CHECK(b >= a);
}

extern "C" {
int c_kind_name(int kind);
int c_operation_name(int kind);
int c_iterate_operations(int kind);
int c_iterate_args(int kind, int phase, int max_deref, int* args);
int c_configure(std::uint64_t context, int kind);
int c_configure_request(std::uint64_t context, int kind);
const char* c_status_name(int status);
const char* c_status_string(int status);
int c_query_agents(int version);
}

// A C caller passes any integer as an enum (c_enum_values.c): the C API reads it as one, so a
// value past the enumerators is reported, never loaded as the C++ enum. Under g++ this checks
// the statuses; under clang's -fsanitize=enum (test/fuzz) it also fails on any such load.
TEST_CASE("enum arguments outside their enumerators, as a C caller passes them") {
    static std::vector<int> st;
    static rocprofiler_context_id_t ctx{};
    st.clear();
    run_tool([] {
        CHECK(rocprofiler_create_context(&ctx) == ROCPROFILER_STATUS_SUCCESS);
        for (int k : {-1, 32, 0x10000, INT32_MIN}) {
            st.push_back(c_configure(ctx.handle, k));
            st.push_back(c_configure_request(ctx.handle, k));
        }
        return 0;
    });
    for (int s : st) CHECK(s == ROCPROFILER_STATUS_ERROR_KIND_NOT_FOUND);
    for (int k : {-1, 32, 0x10000, INT32_MIN}) {
        CAPTURE(k);
        CHECK(c_kind_name(k) == ROCPROFILER_STATUS_ERROR_KIND_NOT_FOUND);
        CHECK(c_operation_name(k) == ROCPROFILER_STATUS_ERROR_KIND_NOT_FOUND);
        CHECK(c_iterate_operations(k) == ROCPROFILER_STATUS_ERROR_KIND_NOT_FOUND);
        int args = 0;
        CHECK(c_iterate_args(k, ROCPROFILER_CALLBACK_PHASE_EXIT, 1, &args) == ROCPROFILER_STATUS_ERROR_KIND_NOT_FOUND);
        CHECK(c_query_agents(k) == ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT);
        // A forged record's phase may be anything: its arguments still iterate.
        CHECK(c_iterate_args(ROCPROFILER_CALLBACK_TRACING_HSA_CORE_API, k, 2, &args) == ROCPROFILER_STATUS_SUCCESS);
    }
    for (int s : {-1, static_cast<int>(ROCPROFILER_STATUS_LAST), 0x10000, INT32_MIN}) {
        CAPTURE(s);
        CHECK(c_status_name(s) == nullptr);
        CHECK(c_status_string(s) == nullptr);
    }
}

// Found by test/fuzz: a forged record's bool argument holding 119 was loaded as bool (UB); it
// prints as its value now, 0 and 1 as false and true.
TEST_CASE("a forged record's bool argument that is neither 0 nor 1 prints as its byte") {
    static std::vector<std::string> values;
    values.clear();
    auto cb = [](rocprofiler_callback_tracing_kind_t, rocprofiler_tracing_operation_t, uint32_t, const void* const,
                 int32_t, const char*, const char*, const char* value, int32_t, void*) {
        values.emplace_back(value);
        return 0;
    };
    rocprofiler_callback_tracing_hsa_api_data_t payload{};
    payload.size = sizeof(payload);
    rocprofiler_callback_tracing_record_t r{};
    r.kind = ROCPROFILER_CALLBACK_TRACING_HSA_AMD_EXT_API;
    r.operation = encore::domains::hsa_amd_ext::id_of<"hsa_amd_profiling_async_copy_enable">();
    r.payload = &payload;
    for (unsigned char b : {0, 1, 119}) {
        std::memcpy(&payload.args, &b, 1);  // the call's one argument: bool enable
        CHECK(rocprofiler_iterate_callback_tracing_kind_operation_args(r, cb, 1, nullptr) == ROCPROFILER_STATUS_SUCCESS);
    }
    CHECK(values == std::vector<std::string>{"false", "true", "119"});
}

// Found by test/fuzz: a context its tool creates after finalizing itself (the finalize function
// its initialize was handed; configuration is still open) was never disabled, so after encore's
// finalization it could be started again and deliver callbacks to a finalized tool.
TEST_CASE("a context created after its tool finalized itself is disabled at finalization") {
    encore::core::reset_registration_for_testing();
    static rocprofiler_client_id_t id{};
    static rocprofiler_context_id_t late{};
    struct tool {
        static rocprofiler_tool_configure_result_t* configure(uint32_t, const char*, uint32_t,
                                                              rocprofiler_client_id_t* client) {
            id = *client;
            static rocprofiler_tool_configure_result_t r{sizeof(r),
                                                         [](rocprofiler_client_finalize_t fini, void*) {
                                                             fini(id);  // the tool is finalized now
                                                             return static_cast<int>(rocprofiler_create_context(&late));
                                                         },
                                                         nullptr, nullptr};
            return &r;
        }
    };
    REQUIRE(rocprofiler_force_configure(&tool::configure) == ROCPROFILER_STATUS_SUCCESS);
    encore::initialize();
    encore::core::finalize();
    int valid = -1;
    CHECK(rocprofiler_context_is_valid(late, &valid) == ROCPROFILER_STATUS_SUCCESS);
    CHECK(valid == 0);
    CHECK(rocprofiler_start_context(late) == ROCPROFILER_STATUS_ERROR_CONTEXT_INVALID);
    (void)rocprofiler_stop_context(late);
}

extern "C" {
struct c_agent_summary {
    std::uint8_t uuid[16];
    std::uint32_t visible_hsa, visible_hip, visible_rccl, visible_rocdecode;
    std::uint32_t lds_size_in_kb;
    std::uint64_t local_mem_size;
    std::uint32_t cache_levels;
    std::uint64_t cache_bytes;
    std::uint32_t links_to;
    std::uint32_t link_types;
    std::uint32_t mem_banks;
    std::uint32_t fw, sdma_fw, capability, num_xcc, family_id;
    std::uint64_t gpu_id;
    std::uint32_t array_count, cu_per_engine;
};
int c_graph_launch_step(rocprofiler_callback_tracing_record_t record);
void c_summarize_agent(const rocprofiler_agent_v0_t* a, c_agent_summary* out);
std::size_t c_agent_size();
std::size_t c_reference_agent_size();
}

// Issue 41: C code as real tools write it (c_agent_fields.c, C11) compiles against encore's
// headers: the HIP graph operation's current name, and the agent fields of the reference's struct
// (whose layout that file checks field by field against the reference's list).
TEST_CASE("C code names the HIP graph launch operation and reads the reference's agent fields") {
    rocprofiler_callback_tracing_record_t r{};
    r.kind = ROCPROFILER_CALLBACK_TRACING_HIP_GRAPH;
    r.operation = ROCPROFILER_HIP_GRAPH_OPERATION_EXEC_LAUNCH;
    r.phase = ROCPROFILER_CALLBACK_PHASE_ENTER;
    CHECK(c_graph_launch_step(r) == 1);
    r.phase = ROCPROFILER_CALLBACK_PHASE_EXIT;
    CHECK(c_graph_launch_step(r) == -1);
    r.operation = ROCPROFILER_HIP_GRAPH_OPERATION_EXEC_CREATE;
    CHECK(c_graph_launch_step(r) == 0);
    const char* name = nullptr;
    CHECK(rocprofiler_query_callback_tracing_kind_operation_name(ROCPROFILER_CALLBACK_TRACING_HIP_GRAPH,
                                                                 ROCPROFILER_HIP_GRAPH_OPERATION_EXEC_LAUNCH, &name,
                                                                 nullptr) == ROCPROFILER_STATUS_SUCCESS);
    REQUIRE(name != nullptr);
    CHECK(std::string(name) == "HIP_GRAPH_EXEC_LAUNCH");

    CHECK(c_agent_size() == sizeof(rocprofiler_agent_v0_t));
    CHECK(c_reference_agent_size() < sizeof(rocprofiler_agent_v0_t));  // encore's own fields follow

    rocprofiler_agent_cache_t caches[2] = {};
    caches[0].level = 1;
    caches[0].size = 16384;
    caches[1].level = 2;
    caches[1].size = 4u << 20;
    rocprofiler_agent_io_link_t links[1] = {};
    links[0].type = HSA_IOLINK_TYPE_XGMI;
    links[0].node_to = 7;
    rocprofiler_agent_v0_t a{};
    a.type = ROCPROFILER_AGENT_TYPE_GPU;
    for (int i = 0; i < 16; ++i) a.uuid.bytes[i] = static_cast<std::uint8_t>(0xa0 + i);
    a.runtime_visibility.hsa = 1;
    a.runtime_visibility.hip = 1;
    a.runtime_visibility.rccl = 0;
    a.runtime_visibility.rocdecode = 1;
    a.lds_size_in_kb = 64;
    a.local_mem_size = 1ULL << 34;
    a.caches = caches;
    a.caches_count = 2;
    a.io_links = links;
    a.io_links_count = 1;
    a.fw_version.ui32.uCode = 0x123;
    a.sdma_fw_version.uCodeSDMA = 0x45;
    a.capability.ui32.HotPluggable = 1;
    a.num_xcc = 8;
    a.family_id = 141;
    a.gpu_id = 0xbeef;
    a.array_count = 4;
    a.cu_per_engine = 26;
    c_agent_summary s{};
    c_summarize_agent(&a, &s);
    CHECK(std::memcmp(s.uuid, a.uuid.bytes, 16) == 0);
    CHECK(s.visible_hsa == 1);
    CHECK(s.visible_hip == 1);
    CHECK(s.visible_rccl == 0);
    CHECK(s.visible_rocdecode == 1);
    CHECK(s.lds_size_in_kb == 64);
    CHECK(s.local_mem_size == (1ULL << 34));
    CHECK(s.cache_levels == 3);
    CHECK(s.cache_bytes == 16384 + (4u << 20));
    CHECK(s.links_to == 7);
    CHECK(s.link_types == HSA_IOLINK_TYPE_XGMI);
    CHECK(s.mem_banks == 0);
    CHECK(s.fw == 0x123);
    CHECK(s.sdma_fw == 0x45);
    CHECK(s.capability == 1);
    CHECK(s.num_xcc == 8);
    CHECK(s.family_id == 141);
    CHECK(s.gpu_id == 0xbeef);
    CHECK(s.array_count == 4);
    CHECK(s.cu_per_engine == 26);
}
