// test/tracing/test_wrapper.cpp — installed wrappers over a table of real HSA signatures:
// ENTER/EXIT pairing, user_data, correlation ids, filters, contexts, threads.
#include "../support/fake_hsa.hpp"
#include "../support/tool_fixture.hpp"

#include <encore/tracing/hsa.hpp>

#include <doctest/doctest.h>

#include <cstring>
#include <map>
#include <mutex>
#include <pthread.h>
#include <thread>
#include <vector>

using namespace encore;
using encore::domains::hsa_amd_ext;
using encore::domains::hsa_core;
using test_support::run_tool;

namespace {

struct event {
    std::uint64_t ctx;
    rocprofiler_callback_tracing_kind_t kind;
    op_id op;
    rocprofiler_callback_phase_t phase;
    rocprofiler_correlation_id_t corr;
    std::uint64_t user_data_seen;  // user_data value when the callback ran
    std::uint64_t thread;
    int retval;  // hsa_status_t at EXIT, -1 otherwise
};

struct recorder {
    std::mutex m;
    std::vector<event> events;
    std::uint64_t mark = 0;  // value written into user_data at ENTER
};

void record_cb(rocprofiler_callback_tracing_record_t r, rocprofiler_user_data_t* ud, void* data) {
    auto* rec = static_cast<recorder*>(data);
    std::lock_guard lk(rec->m);
    int ret = -1;
    if (r.phase == ROCPROFILER_CALLBACK_PHASE_EXIT && r.kind == ROCPROFILER_CALLBACK_TRACING_HSA_CORE_API &&
        r.operation != hsa_core::id_of<"hsa_signal_load_relaxed">())
        ret = static_cast<const rocprofiler_callback_tracing_hsa_api_data_t*>(r.payload)->retval.hsa_status_t_retval;
    rec->events.push_back({r.context_id.handle, r.kind, r.operation, r.phase, r.correlation_id, ud->value, r.thread_id,
                           ret});
    if (r.phase == ROCPROFILER_CALLBACK_PHASE_ENTER) ud->value = ++rec->mark;
}

// The usual tool of these tests: one started context tracing HSA_CORE_API into `rec`.
void trace_core_into(recorder& rec) {
    run_tool([&rec] {
        context c;
        CHECK(context::create(c) == ROCPROFILER_STATUS_SUCCESS);
        CHECK(c.trace<hsa_core>(&record_cb, &rec) == ROCPROFILER_STATUS_SUCCESS);
        return c.start() == ROCPROFILER_STATUS_SUCCESS ? 0 : 1;
    });
}

std::size_t count(const recorder& r, op_id op, rocprofiler_callback_phase_t ph) {
    std::size_t n = 0;
    for (const auto& e : r.events) n += (e.op == op && e.phase == ph);
    return n;
}

}  // namespace

TEST_CASE("no context configured: install touches nothing") {
    fake_hsa::tables t;
    const auto before = t.core;
    run_tool([] { return 0; });
    CHECK(tracing::hsa_all::install(t.root) == 0);
    CHECK(std::memcmp(&before, &t.core, sizeof(before)) == 0);
}

TEST_CASE("ENTER/EXIT pairs, user_data retained, return values at EXIT") {
    static recorder rec;
    rec.events.clear();
    fake_hsa::tables t;
    trace_core_into(rec);
    const auto original_create = t.core.hsa_queue_create_fn;
    // Only non-null slots get wrappers: the fake table fills 7 core slots.
    CHECK(tracing::hsa_all::install(t.root) == 7);
    CHECK((t.core.hsa_queue_create_fn != original_create));
    CHECK((t.amd.hsa_amd_memory_pool_allocate_fn != nullptr));  // AMD ext not configured: untouched below
    CHECK((tracing::wrapper<hsa_core, hsa_core::id_of<"hsa_queue_create">()>::next.load() == original_create));

    hsa_queue_t* q = nullptr;
    CHECK(t.core.hsa_queue_create_fn(hsa_agent_t{7}, 64, HSA_QUEUE_TYPE_SINGLE, nullptr, nullptr, 0, 0, &q) ==
          HSA_STATUS_SUCCESS);
    REQUIRE(q != nullptr);
    CHECK(q->id == fake_hsa::queue_handle_base + 7);
    CHECK(t.core.hsa_queue_create_fn(hsa_agent_t{0}, 64, HSA_QUEUE_TYPE_SINGLE, nullptr, nullptr, 0, 0, &q) ==
          HSA_STATUS_ERROR_INVALID_AGENT);

    constexpr op_id create = hsa_core::id_of<"hsa_queue_create">();
    REQUIRE(rec.events.size() == 4);
    CHECK(count(rec, create, ROCPROFILER_CALLBACK_PHASE_ENTER) == 2);
    CHECK(count(rec, create, ROCPROFILER_CALLBACK_PHASE_EXIT) == 2);
    // ENTER then EXIT, same correlation id, user_data written at ENTER seen at EXIT.
    CHECK(rec.events[0].phase == ROCPROFILER_CALLBACK_PHASE_ENTER);
    CHECK(rec.events[1].phase == ROCPROFILER_CALLBACK_PHASE_EXIT);
    CHECK(rec.events[0].corr.internal == rec.events[1].corr.internal);
    CHECK(rec.events[0].user_data_seen == 0);
    CHECK(rec.events[1].user_data_seen == 1);
    CHECK(rec.events[3].user_data_seen == 2);
    CHECK(rec.events[1].retval == HSA_STATUS_SUCCESS);
    CHECK(rec.events[3].retval == HSA_STATUS_ERROR_INVALID_AGENT);
    CHECK(rec.events[0].corr.internal != rec.events[2].corr.internal);
    CHECK(rec.events[0].corr.ancestor == 0);

    // uninstall restores the originals exactly.
    CHECK(tracing::hsa_all::uninstall(t.root) == 7);
    CHECK((t.core.hsa_queue_create_fn == original_create));
}

TEST_CASE("operation filters, two contexts, start/stop mid-run") {
    static recorder a, b;
    a.events.clear();
    b.events.clear();
    static context ca, cb;
    fake_hsa::tables t;
    run_tool([] {
        CHECK(context::create(ca) == ROCPROFILER_STATUS_SUCCESS);
        CHECK(context::create(cb) == ROCPROFILER_STATUS_SUCCESS);
        constexpr auto only_load = ops<hsa_core, "hsa_signal_load_relaxed">();
        CHECK(ca.trace<hsa_core>(&record_cb, &a, only_load) == ROCPROFILER_STATUS_SUCCESS);
        CHECK(cb.trace<hsa_core>(&record_cb, &b) == ROCPROFILER_STATUS_SUCCESS);
        return ca.start() == ROCPROFILER_STATUS_SUCCESS && cb.start() == ROCPROFILER_STATUS_SUCCESS ? 0 : 1;
    });
    tracing::hsa_all::install(t.root);
    CHECK(t.core.hsa_signal_load_relaxed_fn(hsa_signal_t{1}) == fake_hsa::signal_value);
    hsa_signal_t s{};
    CHECK(t.core.hsa_signal_create_fn(1, 0, nullptr, &s) == HSA_STATUS_SUCCESS);
    CHECK(a.events.size() == 2);  // the load only
    CHECK(b.events.size() == 4);  // both calls

    REQUIRE(cb.stop() == ROCPROFILER_STATUS_SUCCESS);
    CHECK_FALSE(cb.active());
    (void)t.core.hsa_signal_load_relaxed_fn(hsa_signal_t{1});
    CHECK(a.events.size() == 4);
    CHECK(b.events.size() == 4);  // stopped: nothing new
    REQUIRE(ca.stop() == ROCPROFILER_STATUS_SUCCESS);
    const int loads = fake_hsa::calls().signal_load.load();
    (void)t.core.hsa_signal_load_relaxed_fn(hsa_signal_t{1});
    CHECK(fake_hsa::calls().signal_load.load() == loads + 1);  // the original still runs
    CHECK(a.events.size() == 4);
    REQUIRE(cb.start() == ROCPROFILER_STATUS_SUCCESS);  // restart after initialization is allowed
    (void)t.core.hsa_signal_load_relaxed_fn(hsa_signal_t{1});
    CHECK(b.events.size() == 6);
    tracing::hsa_all::uninstall(t.root);
}

namespace {
recorder g_nested;
fake_hsa::tables* g_nested_tables = nullptr;
void nesting_cb(rocprofiler_callback_tracing_record_t r, rocprofiler_user_data_t* ud, void* data) {
    record_cb(r, ud, data);
    // A traced call made from inside a callback (as a tool would) nests: its ancestor is the
    // enclosing call.
    if (r.phase == ROCPROFILER_CALLBACK_PHASE_ENTER && r.operation == hsa_core::id_of<"hsa_signal_create">())
        (void)g_nested_tables->core.hsa_signal_load_relaxed_fn(hsa_signal_t{5});
}
}  // namespace

TEST_CASE("ancestor correlation id names the enclosing traced call") {
    g_nested.events.clear();
    fake_hsa::tables t;
    g_nested_tables = &t;
    run_tool([] {
        context c;
        CHECK(context::create(c) == ROCPROFILER_STATUS_SUCCESS);
        CHECK(c.trace<hsa_core>(&nesting_cb, &g_nested) == ROCPROFILER_STATUS_SUCCESS);
        return static_cast<int>(c.start());
    });
    tracing::hsa_all::install(t.root);
    hsa_signal_t s{};
    (void)t.core.hsa_signal_create_fn(1, 0, nullptr, &s);
    REQUIRE(g_nested.events.size() == 4);
    const auto outer = g_nested.events[0].corr.internal;
    CHECK(g_nested.events[1].op == hsa_core::id_of<"hsa_signal_load_relaxed">());
    CHECK(g_nested.events[1].corr.ancestor == outer);
    CHECK(g_nested.events[3].corr.ancestor == 0);
    tracing::hsa_all::uninstall(t.root);
}

namespace {
recorder g_ext;
context g_ext_ctx;
void pushing_cb(rocprofiler_callback_tracing_record_t r, rocprofiler_user_data_t* ud, void* data) {
    record_cb(r, ud, data);
    // The seed: a push during ENTER is what EXIT sees.
    if (r.phase == ROCPROFILER_CALLBACK_PHASE_ENTER)
        (void)g_ext_ctx.push_external_correlation_id(r.thread_id, rocprofiler_user_data_t{.value = 777});
    else
        (void)g_ext_ctx.pop_external_correlation_id(r.thread_id);
}
}  // namespace

TEST_CASE("external correlation ids: pushed by the tool, per thread, visible at EXIT after an ENTER push") {
    g_ext.events.clear();
    fake_hsa::tables t;
    run_tool([] {
        CHECK(context::create(g_ext_ctx) == ROCPROFILER_STATUS_SUCCESS);
        CHECK(g_ext_ctx.trace<hsa_core>(&pushing_cb, &g_ext) == ROCPROFILER_STATUS_SUCCESS);
        return static_cast<int>(g_ext_ctx.start());
    });
    tracing::hsa_all::install(t.root);
    rocprofiler_thread_id_t tid = 0;
    REQUIRE(rocprofiler_get_thread_id(&tid) == ROCPROFILER_STATUS_SUCCESS);
    REQUIRE(g_ext_ctx.push_external_correlation_id(tid, rocprofiler_user_data_t{.value = 5}) ==
            ROCPROFILER_STATUS_SUCCESS);
    (void)t.core.hsa_signal_load_relaxed_fn(hsa_signal_t{1});
    REQUIRE(g_ext.events.size() == 2);
    CHECK(g_ext.events[0].corr.external.value == 5);
    CHECK(g_ext.events[1].corr.external.value == 777);
    rocprofiler_user_data_t popped{};
    REQUIRE(g_ext_ctx.pop_external_correlation_id(tid, &popped) == ROCPROFILER_STATUS_SUCCESS);
    CHECK(popped.value == 5);
    // Another thread has its own (empty) stack.
    std::thread([&] { (void)t.core.hsa_signal_load_relaxed_fn(hsa_signal_t{1}); }).join();
    REQUIRE(g_ext.events.size() == 4);
    CHECK(g_ext.events[2].corr.external.value == 0);
    CHECK(g_ext.events[2].thread != tid);
    tracing::hsa_all::uninstall(t.root);
}

namespace {
recorder g_stop_a, g_stop_b;
context g_stop_ca, g_stop_cb;
context* g_stop_at_enter = nullptr;  // the context a callback stops at its first ENTER
void stopping_cb(rocprofiler_callback_tracing_record_t r, rocprofiler_user_data_t* ud, void* data) {
    record_cb(r, ud, data);
    if (r.phase == ROCPROFILER_CALLBACK_PHASE_ENTER && g_stop_at_enter != nullptr) {
        (void)g_stop_at_enter->stop();
        g_stop_at_enter = nullptr;
    }
}
}  // namespace

// One context takes the wrapper's inline path, two the core's (detail::enter_many): both keep
// each context's user_data and deliver EXIT to every context that got ENTER.
TEST_CASE("a context stopped between ENTER and EXIT still gets EXIT; user_data per context") {
    g_stop_a.events.clear();
    g_stop_b.events.clear();
    g_stop_a.mark = 0;
    g_stop_b.mark = 100;
    fake_hsa::tables t;
    run_tool([] {
        CHECK(context::create(g_stop_ca) == ROCPROFILER_STATUS_SUCCESS);
        CHECK(context::create(g_stop_cb) == ROCPROFILER_STATUS_SUCCESS);
        constexpr auto only_load = ops<hsa_core, "hsa_signal_load_relaxed">();
        CHECK(g_stop_ca.trace<hsa_core>(&stopping_cb, &g_stop_a, only_load) == ROCPROFILER_STATUS_SUCCESS);
        CHECK(g_stop_cb.trace<hsa_core>(&stopping_cb, &g_stop_b, only_load) == ROCPROFILER_STATUS_SUCCESS);
        return static_cast<int>(g_stop_ca.start());
    });
    tracing::hsa_all::install(t.root);

    SUBCASE("one context stops itself at ENTER") {
        g_stop_at_enter = &g_stop_ca;
        (void)t.core.hsa_signal_load_relaxed_fn(hsa_signal_t{1});
        CHECK_FALSE(g_stop_ca.active());
        REQUIRE(g_stop_a.events.size() == 2);
        CHECK(g_stop_a.events[1].phase == ROCPROFILER_CALLBACK_PHASE_EXIT);
        CHECK(g_stop_a.events[1].user_data_seen == 1);
        CHECK(g_stop_a.events[0].corr.internal == g_stop_a.events[1].corr.internal);
        (void)t.core.hsa_signal_load_relaxed_fn(hsa_signal_t{1});
        CHECK(g_stop_a.events.size() == 2);  // stopped: the next call is not traced
    }
    SUBCASE("two contexts, the first stops the second at ENTER") {
        REQUIRE(g_stop_cb.start() == ROCPROFILER_STATUS_SUCCESS);
        g_stop_at_enter = &g_stop_cb;  // context a's ENTER runs first (lower id)
        (void)t.core.hsa_signal_load_relaxed_fn(hsa_signal_t{1});
        CHECK_FALSE(g_stop_cb.active());
        REQUIRE(g_stop_a.events.size() == 2);
        REQUIRE(g_stop_b.events.size() == 2);
        CHECK(g_stop_a.events[1].user_data_seen == 1);
        CHECK(g_stop_b.events[1].user_data_seen == 101);
        CHECK(g_stop_b.events[1].phase == ROCPROFILER_CALLBACK_PHASE_EXIT);
        CHECK(g_stop_a.events[0].corr.internal == g_stop_b.events[1].corr.internal);
        CHECK(g_stop_a.events[0].ctx != g_stop_b.events[0].ctx);
        (void)t.core.hsa_signal_load_relaxed_fn(hsa_signal_t{1});
        CHECK(g_stop_a.events.size() == 4);
        CHECK(g_stop_b.events.size() == 2);
        REQUIRE(g_stop_ca.stop() == ROCPROFILER_STATUS_SUCCESS);
    }
    tracing::hsa_all::uninstall(t.root);
}

namespace {
// The same recorder through encore's by-address callback form.
void record_ptr_cb(const rocprofiler_callback_tracing_record_t* r, rocprofiler_user_data_t* ud, void* data) {
    record_cb(*r, ud, data);
}
recorder g_by_value, g_by_address;
context g_bv, g_ba;
}  // namespace

TEST_CASE("a by-address callback gets the same records as a by-value one, alone and with another context") {
    g_by_value.events.clear();
    g_by_address.events.clear();
    g_by_value.mark = 0;
    g_by_address.mark = 0;
    fake_hsa::tables t;
    run_tool([] {
        CHECK(context::create(g_bv) == ROCPROFILER_STATUS_SUCCESS);
        CHECK(context::create(g_ba) == ROCPROFILER_STATUS_SUCCESS);
        CHECK(g_bv.trace<hsa_core>(&record_cb, &g_by_value) == ROCPROFILER_STATUS_SUCCESS);
        CHECK(g_ba.trace<hsa_core>(&record_ptr_cb, &g_by_address) == ROCPROFILER_STATUS_SUCCESS);
        return 0;
    });
    tracing::hsa_all::install(t.root);
    hsa_queue_t* q = nullptr;
    const auto create = [&](std::uint64_t agent) {
        return t.core.hsa_queue_create_fn(hsa_agent_t{agent}, 64, HSA_QUEUE_TYPE_SINGLE, nullptr, nullptr, 0, 0, &q);
    };
    // Each alone (the wrapper's one-context path), then both (the core's several-context path).
    REQUIRE(g_ba.start() == ROCPROFILER_STATUS_SUCCESS);
    CHECK(create(7) == HSA_STATUS_SUCCESS);
    REQUIRE(g_ba.stop() == ROCPROFILER_STATUS_SUCCESS);
    REQUIRE(g_bv.start() == ROCPROFILER_STATUS_SUCCESS);
    CHECK(create(7) == HSA_STATUS_SUCCESS);
    REQUIRE(g_ba.start() == ROCPROFILER_STATUS_SUCCESS);
    CHECK(create(0) == HSA_STATUS_ERROR_INVALID_AGENT);
    REQUIRE(g_ba.stop() == ROCPROFILER_STATUS_SUCCESS);
    REQUIRE(g_bv.stop() == ROCPROFILER_STATUS_SUCCESS);

    REQUIRE(g_by_address.events.size() == 4);
    REQUIRE(g_by_value.events.size() == 4);
    const auto& a = g_by_address.events;
    const auto& v = g_by_value.events;
    for (std::size_t i = 0; i < 4; ++i) {
        CHECK(a[i].ctx == g_ba.id().handle);
        CHECK(v[i].ctx == g_bv.id().handle);
        CHECK(a[i].op == hsa_core::id_of<"hsa_queue_create">());
        CHECK(a[i].phase == (i % 2 == 0 ? ROCPROFILER_CALLBACK_PHASE_ENTER : ROCPROFILER_CALLBACK_PHASE_EXIT));
        CHECK(a[i].phase == v[i].phase);
        CHECK(a[i].thread == v[i].thread);
    }
    // user_data retained per context on both paths; return values at EXIT.
    CHECK(a[1].user_data_seen == 1);
    CHECK(a[3].user_data_seen == 2);
    CHECK(v[3].user_data_seen == 2);
    CHECK(a[1].retval == HSA_STATUS_SUCCESS);
    CHECK(a[3].retval == HSA_STATUS_ERROR_INVALID_AGENT);
    CHECK(v[3].retval == HSA_STATUS_ERROR_INVALID_AGENT);
    // The call both contexts saw: one correlation id, both phases.
    CHECK(a[2].corr.internal == v[2].corr.internal);
    CHECK(a[3].corr.internal == v[3].corr.internal);
    CHECK(a[0].corr.internal != v[0].corr.internal);
    tracing::hsa_all::uninstall(t.root);
}

TEST_CASE("concurrent traced calls from many threads") {
    static recorder rec;
    rec.events.clear();
    fake_hsa::tables t;
    trace_core_into(rec);
    tracing::hsa_all::install(t.root);
    constexpr int threads = 8, per_thread = 500;
    std::vector<std::thread> pool;
    for (int i = 0; i < threads; ++i)
        pool.emplace_back([&] {
            for (int j = 0; j < per_thread; ++j) (void)t.core.hsa_signal_load_relaxed_fn(hsa_signal_t{1});
        });
    for (auto& th : pool) th.join();
    REQUIRE(rec.events.size() == 2u * threads * per_thread);
    // Every internal id appears exactly twice (ENTER + EXIT) and ids are unique across threads.
    std::map<std::uint64_t, int> ids;
    for (const auto& e : rec.events) ++ids[e.corr.internal];
    CHECK(ids.size() == static_cast<std::size_t>(threads * per_thread));
    bool all_pairs = true;
    for (const auto& [id, n] : ids) all_pairs = all_pairs && n == 2 && id != 0;
    CHECK(all_pairs);
    tracing::hsa_all::uninstall(t.root);
}

TEST_CASE("traced calls from a thread's exit (thread_local destructors) are traced and never touch freed state") {
    // A thread_local built before the thread's first traced call is destroyed after encore's own
    // per-thread state; its destructor's calls must still be traced (ASan catches a freed read).
    static recorder rec;
    rec.events.clear();
    static fake_hsa::tables* tables = nullptr;
    fake_hsa::tables t;
    tables = &t;
    trace_core_into(rec);
    tracing::hsa_all::install(t.root);
    struct at_exit {
        ~at_exit() {
            for (int i = 0; i < 3; ++i) (void)tables->core.hsa_signal_load_relaxed_fn(hsa_signal_t{1});
        }
    };
    // And a pthread key destructor's calls, which glibc runs after all of those. The key is
    // made after encore's own (created at a process's first traced call), so it runs after
    // encore has dropped the thread's state: those calls attach the thread again.
    static pthread_key_t key{};
    static bool key_made = false;
    std::thread th([] {
        static thread_local at_exit guard;  // constructed here, before the first traced call
        (void)guard;
        (void)tables->core.hsa_signal_load_relaxed_fn(hsa_signal_t{1});
        key_made = pthread_key_create(&key, [](void*) {
                       for (int i = 0; i < 2; ++i) (void)tables->core.hsa_signal_load_relaxed_fn(hsa_signal_t{1});
                   }) == 0;
        if (key_made) pthread_setspecific(key, &key);
    });
    th.join();
    REQUIRE(key_made);
    pthread_key_delete(key);
    // One call while running, three from the destructor, two from the key's: all paired, ids unique.
    REQUIRE(rec.events.size() == 12u);
    std::map<std::uint64_t, int> ids;
    for (const auto& e : rec.events) ++ids[e.corr.internal];
    CHECK(ids.size() == 6u);
    bool same_thread = true;
    for (const auto& e : rec.events) same_thread = same_thread && e.thread == rec.events.front().thread;
    CHECK(same_thread);
    tracing::hsa_all::uninstall(t.root);
    tables = nullptr;
}

TEST_CASE("a shorter runtime table: slots past version.minor_id are never written") {
    static recorder rec;
    // Claim the table ends after hsa_system_get_info (slot 2): later slots must stay as they are.
    fake_hsa::tables t(static_cast<std::uint32_t>(sizeof(ApiTableVersion) + 3 * sizeof(void*)));
    const auto before = t.core;
    trace_core_into(rec);
    CHECK(tracing::hsa_all::install(t.root) == 2);  // hsa_init, hsa_shut_down
    CHECK((t.core.hsa_queue_create_fn == before.hsa_queue_create_fn));
    CHECK((t.core.hsa_init_fn != before.hsa_init_fn));
    tracing::hsa_all::uninstall(t.root);
    CHECK(std::memcmp(&before, &t.core, sizeof(before)) == 0);
}

TEST_CASE("compile-time selection: an unselected domain keeps its slots") {
    static recorder rec;
    fake_hsa::tables t;
    const auto pool_alloc = t.amd.hsa_amd_memory_pool_allocate_fn;
    run_tool([] {
        context c;
        CHECK(context::create(c) == ROCPROFILER_STATUS_SUCCESS);
        CHECK(c.trace<hsa_amd_ext>(&record_cb, &rec) == ROCPROFILER_STATUS_SUCCESS);
        CHECK(c.trace<hsa_core>(&record_cb, &rec) == ROCPROFILER_STATUS_SUCCESS);
        return static_cast<int>(c.start());
    });
    // Only the core domain is selected at compile time: the AMD table is not touched even though
    // a context asked for it.
    CHECK(tracing::hsa_tracer<hsa_core>::install(t.root) == 7);
    CHECK((t.amd.hsa_amd_memory_pool_allocate_fn == pool_alloc));
    CHECK(tracing::hsa_tracer<hsa_amd_ext>::install(t.root) == 1);
    CHECK((t.amd.hsa_amd_memory_pool_allocate_fn != pool_alloc));
    tracing::hsa_all::uninstall(t.root);
    CHECK((t.amd.hsa_amd_memory_pool_allocate_fn == pool_alloc));
}
