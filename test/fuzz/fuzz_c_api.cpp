// test/fuzz/fuzz_c_api.cpp — libFuzzer target over the seed's C API (test/fuzz/README.md).
//
// Each input is a small program of C API calls. It runs as a real tool would: the input's first
// part is the tool's initialize (configuration open), the rest runs after initialization
// (configuration locked), optionally ending with finalization. Every call's status is checked
// against a model of what the headers document: the conditions that apply to the call are
// computed from the model, and the status must be SUCCESS when none applies and one of them
// otherwise. Traced calls go through encore's HSA wrappers installed over a table of small fake
// functions (test/support/fake_hsa.cpp), so ENTER/EXIT callbacks fire with real records, whose
// arguments are iterated too; forged records (any bytes, any size field, payloads and pointees
// in a buffer that ends at a PROT_NONE page) go through argument iteration directly.
//
// A violated invariant aborts, which libFuzzer reports as a crash with the input that did it.
// The driver plays a C caller: any integer is a valid value of a C enum, so its own enum loads
// are not checked (meson.build: -fno-sanitize=enum for this file); libencore's are.
#include "../../src/core/registration.hpp"
#include "../support/fake_hsa.hpp"

#include <encore/encore.hpp>
#include <encore/tracing/hsa.hpp>
#include <encore/tracing/kinds.hpp>
#include <rocprofiler-sdk/experimental/kernel_replay.h>
#include <rocprofiler-sdk/rocprofiler.h>

#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <array>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

namespace encore::core {
// Declared by src/core/agents.hpp and registry.hpp, which need the core's private include root;
// both are exported from libencore.
using agent_provider = std::size_t (*)(rocprofiler_agent_v0_t* out, std::size_t capacity);
ENCORE_API void register_agent_provider(agent_provider provider) noexcept;
ENCORE_API void add_producer(std::uint32_t produced_by) noexcept;
}  // namespace encore::core

namespace {

// ---- invariants -----------------------------------------------------------------------------

[[noreturn]] void fail(const char* what, int line, long got) {
    std::fprintf(stderr, "fuzz_c_api: invariant failed at line %d: %s (got %ld)\n", line, what, got);
    std::abort();
}
#define EXPECT(cond) ((cond) ? (void)0 : fail(#cond, __LINE__, 0))
#define EXPECT_V(cond, v) ((cond) ? (void)0 : fail(#cond, __LINE__, static_cast<long>(v)))

using st = rocprofiler_status_t;

// The conditions that apply to one call: the status must be one of them, or SUCCESS when none
// does. `maybe` holds statuses the model cannot decide (a forged payload's readability).
struct expect_status {
    std::uint64_t must = 0, maybe = 0;
    void apply(st s, bool cond = true) {
        if (cond) must |= std::uint64_t{1} << s;
    }
    void allow(st s) { maybe |= std::uint64_t{1} << s; }
    void check(st got, int line) const {
        if (got < 0 || got >= ROCPROFILER_STATUS_LAST) fail("status outside rocprofiler_status_t", line, got);
        const std::uint64_t bit = std::uint64_t{1} << got;
        if (must != 0 ? ((must | maybe) & bit) == 0 : (got != ROCPROFILER_STATUS_SUCCESS && (maybe & bit) == 0))
            fail(must != 0 ? "status is none of the conditions that apply" : "a call no error applies to failed", line,
                 got);
    }
};
#define CHECK_STATUS(e, got) (e).check((got), __LINE__)

// A returned name: non-null and NUL-terminated within a sane length (ASan catches a read past
// the object; this catches a missing terminator inside a larger one).
void expect_name(const char* s, std::size_t max = 4096) {
    EXPECT(s != nullptr);
    EXPECT(::strnlen(s, max) < max);
}

// ---- the input --------------------------------------------------------------------------------

// Reads the input front to back (hand-written seeds stay readable); past its end every read is 0.
struct reader {
    const std::uint8_t* p = nullptr;
    std::size_t n = 0;
    bool empty() const { return n == 0; }
    std::uint8_t u8() {
        if (n == 0) return 0;
        --n;
        return *p++;
    }
    template <class T>
    T take() {
        T v{};
        const std::size_t k = n < sizeof(T) ? n : sizeof(T);
        std::memcpy(&v, p, k);
        p += k;
        n -= k;
        return v;
    }
    std::uint16_t u16() { return take<std::uint16_t>(); }
    std::uint32_t u32() { return take<std::uint32_t>(); }
    std::uint64_t u64() { return take<std::uint64_t>(); }
    std::size_t bytes(void* dst, std::size_t want) {
        const std::size_t k = n < want ? n : want;
        std::memcpy(dst, p, k);
        p += k;
        n -= k;
        return k;
    }
};
reader g_in;

// A C enum parameter from a plain integer, as a C caller passes it.
template <class E>
E as_enum(std::int32_t v) {
    E e;
    static_assert(sizeof(E) == sizeof(v));
    std::memcpy(&e, &v, sizeof(e));
    return e;
}

// ---- memory the forged records live in ----------------------------------------------------------

// `arena_pages` readable pages followed by one PROT_NONE page: a forged payload, string or
// pointee can end exactly where reading faults.
constexpr std::size_t arena_pages = 2;
std::size_t g_page = 4096;
std::uint8_t* g_arena = nullptr;  // readable part
std::uint8_t* g_guard = nullptr;  // the PROT_NONE page right after it
std::size_t arena_size() { return arena_pages * g_page; }

const char* const g_static_strings[] = {"hello", "", "quote\"back\\slash\nnew\ttab\x01 end", "\xc3\xa9t\xc3\xa9 \xff"};

// A pointer as a C caller might pass one: into the arena, into the guard page, near its end,
// null, small, non-canonical, or any 64 bits.
std::uint64_t pointer_value() {
    switch (g_in.u8() % 9) {
        case 0: return g_in.u64();
        case 1: return 0;
        case 2: return reinterpret_cast<std::uintptr_t>(g_arena + g_in.u16() % arena_size());
        case 3: return reinterpret_cast<std::uintptr_t>(g_guard + g_in.u16() % g_page);
        case 4: return g_in.u8();
        case 5: return reinterpret_cast<std::uintptr_t>(g_guard - 1 - g_in.u8() % 64);
        case 6: return 0x8000000000000000ull | g_in.u32();
        case 7: return reinterpret_cast<std::uintptr_t>(g_static_strings[g_in.u8() % 4]);
        default: return reinterpret_cast<std::uintptr_t>(g_arena + 8 * (g_in.u8() % 64));  // aligned, near the start
    }
}

// Fills the arena's first bytes from the input (what pointers into it see), the rest stays.
void fill_arena() {
    const std::size_t n = g_in.u8() % 4 == 0 ? 0 : g_in.u16() % 512;
    const std::size_t at = g_in.u16() % (arena_size() - n);
    g_in.bytes(g_arena + at, n);
    // Pointer-sized words into the arena itself, so that a followed pointer finds another one.
    for (int i = g_in.u8() % 4; i > 0; --i) {
        const std::uint64_t v = pointer_value();
        std::memcpy(g_arena + 8 * (g_in.u8() % (arena_size() / 8)), &v, sizeof(v));
    }
}

// ---- the model ----------------------------------------------------------------------------

constexpr int max_contexts = 64;
constexpr int kind_last = ROCPROFILER_CALLBACK_TRACING_LAST;

struct op_range {
    bool named = false;  // iterate_callback_tracing_kind_operations succeeded
    std::int32_t first = 0, count = 0;
    bool has(std::int32_t o) const { return named && o >= first && o < first + count; }
};
op_range g_ops[kind_last];
// Configuring accepts an operation id of a kind whose operations are unknown here (no names)
// when it is below encore's table bound (max_ops_per_kind), as the reference accepts ids below
// its bound.
bool configurable_op(std::int32_t kind, std::int32_t op) {
    if (g_ops[kind].named) return g_ops[kind].has(op);
    return op >= 0 && op < static_cast<std::int32_t>(encore::max_ops_per_kind);
}

struct service_model {
    bool configured = false;
    bool ptr_form = false;
    std::vector<bool> ops;  // selected operations, indexed from the kind's first op
};
struct context_model {
    bool valid = true, active = false;
    service_model services[kind_last];
    bool request = false;
    std::uint32_t request_kinds = 0;  // bit per request kind
    bool replay_options_ok = false;
};

enum class phase { setup, run, finalized };

struct model {
    phase ph = phase::setup;
    int contexts = 0;
    context_model ctx[max_contexts];
    bool tool_failed = false;
    int tool_finalized = 0;  // times the tool's finalize ran
    bool tool_finalize_due = true;
    bool tool_finalized_early = false;
    bool replay_configured = false;
    bool range_replay_configured = false;  // RANGE_REPLAY: one context per process too
    // External correlation stacks of (context, thread) for this thread and the helper thread.
    std::vector<std::uint64_t> stacks[max_contexts][2];
    std::uint64_t last_ts = 0;
};
model g_m;

std::uint64_t g_tid_self = 0, g_tid_helper = 0, g_tid_dead = 0;
rocprofiler_client_finalize_t g_client_finalize = nullptr;
rocprofiler_client_id_t g_client_id{};

std::uint64_t gettid_now() { return static_cast<std::uint64_t>(::syscall(SYS_gettid)); }

bool kind_in_range(std::int32_t k) { return k > ROCPROFILER_CALLBACK_TRACING_NONE && k < kind_last; }

std::int32_t pick_kind() {
    switch (g_in.u8() % 4) {
        case 0: return static_cast<std::int32_t>(g_in.u32());
        case 1: return 1 + g_in.u8() % 4;  // the HSA API kinds: configurable, traced here
        default: return g_in.u8() % (kind_last + 2);
    }
}

std::int32_t pick_op(std::int32_t kind) {
    if (kind_in_range(kind) && g_ops[kind].count > 0 && g_in.u8() % 4 != 0)
        return g_ops[kind].first + static_cast<std::int32_t>(g_in.u16() % g_ops[kind].count);
    return g_in.u8() % 2 ? static_cast<std::int32_t>(g_in.u32()) : static_cast<std::int32_t>(g_in.u8()) - 2;
}

// A context id: one created, one past them, NONE, or any.
rocprofiler_context_id_t pick_context() {
    switch (g_in.u8() % 4) {
        case 0: return {g_in.u64()};
        case 1: return {static_cast<std::uint64_t>(g_m.contexts)};
        case 2: return {UINT64_MAX};
        default: return {g_m.contexts == 0 ? 0u : static_cast<std::uint64_t>(g_in.u8() % g_m.contexts)};
    }
}
bool ctx_exists(rocprofiler_context_id_t c) { return c.handle < static_cast<std::uint64_t>(g_m.contexts); }

// 0 self, 1 helper, 2 no thread of ours (0, a dead thread, a big number), 3 unknown (any).
struct tid_choice {
    std::uint64_t tid;
    int who;
};
tid_choice pick_tid() {
    switch (g_in.u8() % 6) {
        case 0:
        case 1: return {g_tid_self, 0};
        case 2: return {g_tid_helper, 1};
        case 3: return {0, 2};
        case 4: return {g_tid_dead, 2};
        default: {
            const std::uint64_t t = g_in.u64();
            if (t == g_tid_self) return {t, 0};
            if (t == g_tid_helper) return {t, 1};
            return {t, 3};
        }
    }
}

// ---- callbacks ----------------------------------------------------------------------------

struct service_tag {
    std::uint64_t ctx;
    std::int32_t kind;
};
service_tag g_tags[max_contexts][kind_last];

int g_depth = 0;                        // traced calls in flight (nesting from callbacks)
std::uint64_t g_expected_ancestor = 0;  // the internal id of the enclosing traced call
constexpr std::uint64_t user_magic = 0x5eed5eed00000000ull;

void traced_call();  // below

// Argument iteration's callback: what the C API promises of each argument.
struct arg_walk {
    std::int32_t kind, op;
    std::uint32_t next = 0;
    int max_deref = 0;
    const std::uint8_t* payload_lo = nullptr;  // the argument addresses lie in the payload
    const std::uint8_t* payload_hi = nullptr;
    int stop_after = -1;
};
int on_arg(rocprofiler_callback_tracing_kind_t kind, rocprofiler_tracing_operation_t op, uint32_t number,
           const void* const addr, int32_t indirection, const char* type, const char* name, const char* value,
           int32_t deref, void* data) {
    auto* w = static_cast<arg_walk*>(data);
    std::int32_t k = 0;
    std::memcpy(&k, &kind, sizeof(k));
    EXPECT_V(k == w->kind, k);
    EXPECT_V(op == w->op, op);
    EXPECT_V(number == w->next, number);
    ++w->next;
    EXPECT(addr != nullptr);
    if (w->payload_lo != nullptr) {
        const auto* a = static_cast<const std::uint8_t*>(addr);
        EXPECT(a >= w->payload_lo && a < w->payload_hi);
    }
    EXPECT_V(indirection >= 0 && indirection < 8, indirection);
    expect_name(type);
    expect_name(name);
    expect_name(value, 1u << 20);
    // A value string is one line of printable text: strings are escaped as C literals, bytes of
    // well-formed UTF-8 aside (format.hpp).
    for (const char* c = value; *c != '\0'; ++c) EXPECT_V(static_cast<unsigned char>(*c) >= 0x20 && *c != 0x7f, *c);
    EXPECT_V(deref >= 0 && deref <= w->max_deref, deref);
    return w->stop_after >= 0 && static_cast<int>(number) >= w->stop_after ? 1 : 0;
}

int pick_deref() {
    switch (g_in.u8() % 5) {
        case 0: return static_cast<std::int32_t>(g_in.u32());
        case 1: return 0;
        case 2: return 1;
        case 3: return 2;
        default: return 3;
    }
}

// The record's kind checks of a traced callback, then its arguments.
void on_record(const rocprofiler_callback_tracing_record_t& r, rocprofiler_user_data_t* ud, void* data, bool ptr_form) {
    const auto* tag = static_cast<const service_tag*>(data);
    EXPECT(tag != nullptr);
    EXPECT_V(r.context_id.handle == tag->ctx, r.context_id.handle);
    std::int32_t k = 0;
    std::memcpy(&k, &r.kind, sizeof(k));
    EXPECT_V(k == tag->kind, k);
    EXPECT(ctx_exists(r.context_id));
    const context_model& c = g_m.ctx[r.context_id.handle];
    const service_model& s = c.services[k];
    EXPECT(s.configured);
    EXPECT(s.ptr_form == ptr_form);
    EXPECT(g_ops[k].has(r.operation));
    EXPECT(s.ops[static_cast<std::size_t>(r.operation - g_ops[k].first)]);
    EXPECT_V(r.thread_id == g_tid_self, r.thread_id);
    EXPECT(r.payload != nullptr);
    EXPECT(r.correlation_id.internal != 0);
    EXPECT_V(r.correlation_id.ancestor == g_expected_ancestor, r.correlation_id.ancestor);
    // The external id is the top of this context's stack for this thread (a request callback
    // may supply its own: not modelled).
    if (!c.request) {
        const auto& stack = g_m.stacks[r.context_id.handle][0];
        EXPECT_V(r.correlation_id.external.value == (stack.empty() ? 0 : stack.back()), r.correlation_id.external.value);
    }
    std::uint32_t ph = 0;
    std::memcpy(&ph, &r.phase, sizeof(ph));
    if (ph == ROCPROFILER_CALLBACK_PHASE_ENTER) {
        EXPECT(c.active);
        ud->value = user_magic ^ r.correlation_id.internal;
    } else {
        EXPECT_V(ph == ROCPROFILER_CALLBACK_PHASE_EXIT, ph);
        EXPECT_V(ud->value == (user_magic ^ r.correlation_id.internal), ud->value);  // retained from ENTER
    }

    // A real record's arguments always iterate.
    if (g_in.u8() % 4 != 0) {
        arg_walk w{k, r.operation};
        const int deref = pick_deref();
        w.max_deref = deref < 0 ? 0 : deref;
        w.stop_after = g_in.u8() % 8 == 0 ? g_in.u8() % 4 : -1;
        w.payload_lo = static_cast<const std::uint8_t*>(r.payload);
        w.payload_hi = w.payload_lo + sizeof(rocprofiler_callback_tracing_hsa_api_data_t);
        const st got = rocprofiler_iterate_callback_tracing_kind_operation_args(r, &on_arg, deref, &w);
        expect_status e;
        CHECK_STATUS(e, got);
    }
    // Push or pop this context's external id from inside the callback, or nest a traced call.
    switch (g_in.u8() % 8) {
        case 0: {
            const std::uint64_t v = g_in.u64();
            const st got = rocprofiler_push_external_correlation_id(r.context_id, g_tid_self, {.value = v});
            EXPECT_V(got == ROCPROFILER_STATUS_SUCCESS, got);
            g_m.stacks[r.context_id.handle][0].push_back(v);
            break;
        }
        case 1: {
            auto& stack = g_m.stacks[r.context_id.handle][0];
            rocprofiler_user_data_t out{};
            const st got = rocprofiler_pop_external_correlation_id(r.context_id, g_tid_self, &out);
            if (stack.empty()) {
                EXPECT_V(got == ROCPROFILER_STATUS_ERROR, got);
            } else {
                EXPECT_V(got == ROCPROFILER_STATUS_SUCCESS, got);
                EXPECT(out.value == stack.back());
                stack.pop_back();
            }
            break;
        }
        case 2:
            if (ph == ROCPROFILER_CALLBACK_PHASE_ENTER && g_depth < 3) {
                const std::uint64_t saved = g_expected_ancestor;
                g_expected_ancestor = r.correlation_id.internal;
                traced_call();
                g_expected_ancestor = saved;
            }
            break;
        default: break;
    }
}

void on_callback(rocprofiler_callback_tracing_record_t r, rocprofiler_user_data_t* ud, void* data) {
    on_record(r, ud, data, false);
}
void on_ptr_callback(const rocprofiler_callback_tracing_record_t* r, rocprofiler_user_data_t* ud, void* data) {
    EXPECT(r != nullptr);
    on_record(*r, ud, data, true);
}

int on_request(rocprofiler_thread_id_t tid, rocprofiler_context_id_t ctx,
               rocprofiler_external_correlation_id_request_kind_t kind, rocprofiler_tracing_operation_t,
               uint64_t internal, rocprofiler_user_data_t* value, void* data) {
    EXPECT_V(tid == g_tid_self, tid);
    EXPECT(data == &g_m.ctx[ctx.handle]);
    EXPECT(ctx_exists(ctx));
    std::int32_t k = 0;
    std::memcpy(&k, &kind, sizeof(k));
    EXPECT_V(k > 0 && k < ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_LAST, k);
    EXPECT((g_m.ctx[ctx.handle].request_kinds >> k) & 1u);
    EXPECT(internal != 0);
    EXPECT(value != nullptr);
    if (g_in.u8() % 2) return 1;
    value->value = g_in.u64();
    return 0;
}

// ---- traced calls over the fake HSA table ---------------------------------------------------------

fake_hsa::tables* g_tables = nullptr;
std::uint8_t g_out_buffer[256];

// A C string the input controls: its bytes (quotes, control bytes, UTF-8, anything) in the
// arena, NUL-terminated or running into the guard page.
const char* input_string() {
    const std::size_t n = g_in.u8() % 80;
    const bool terminated = g_in.u8() % 4 != 0;
    char* s = reinterpret_cast<char*>(g_guard) - n - (terminated ? 1 : 0);
    g_in.bytes(s, n);
    if (terminated) s[n] = '\0';
    return s;
}

void traced_call() {
    ++g_depth;
    auto& core = g_tables->core;
    void* out = g_in.u8() % 4 == 0 ? nullptr : g_out_buffer;
    std::memset(g_out_buffer, 0, sizeof(g_out_buffer));
    switch (g_in.u8() % 8) {
        case 0: (void)core.hsa_signal_load_relaxed_fn(hsa_signal_t{g_in.u64()}); break;
        case 1: {
            hsa_queue_t* q = nullptr;
            (void)core.hsa_queue_create_fn(hsa_agent_t{g_in.u64()}, g_in.u32(), g_in.u32(), nullptr, nullptr,
                                           g_in.u32(), g_in.u32(), g_in.u8() % 4 == 0 ? nullptr : &q);
            break;
        }
        case 2:
            (void)core.hsa_agent_get_info_fn(hsa_agent_t{g_in.u64()},
                                             as_enum<hsa_agent_info_t>(static_cast<std::int32_t>(g_in.u32())), out);
            break;
        case 3: {
            hsa_agent_t consumers[2] = {{g_in.u64()}, {g_in.u64()}};
            (void)core.hsa_signal_create_fn(static_cast<hsa_signal_value_t>(g_in.u64()), g_in.u32() % 3,
                                            g_in.u8() % 2 ? consumers : nullptr, static_cast<hsa_signal_t*>(out));
            break;
        }
        case 4: {
            // Any pointer: the fake function below does not read it; encore's formatting must not fault.
            const char* name = g_in.u8() % 4 == 0 ? reinterpret_cast<const char*>(pointer_value()) : input_string();
            hsa_agent_t agent{g_in.u64()};
            (void)core.hsa_executable_get_symbol_by_name_fn(hsa_executable_t{g_in.u64()}, name,
                                                            g_in.u8() % 2 ? &agent : nullptr,
                                                            static_cast<hsa_executable_symbol_t*>(out));
            break;
        }
        case 5:
            (void)g_tables->amd.hsa_amd_memory_pool_allocate_fn(hsa_amd_memory_pool_t{g_in.u64()}, g_in.u32(),
                                                                g_in.u32(), static_cast<void**>(out));
            break;
        case 6: {
            // An out-parameter that points at a string at EXIT (followed with max_dereference_count 2).
            const char* s = nullptr;
            (void)core.hsa_status_string_fn(as_enum<hsa_status_t>(static_cast<std::int32_t>(g_in.u32())),
                                            g_in.u8() % 4 == 0 ? nullptr : &s);
            break;
        }
        default: (void)(g_in.u8() % 2 ? core.hsa_init_fn() : core.hsa_shut_down_fn()); break;
    }
    --g_depth;
}

// ---- the C API calls --------------------------------------------------------------------------

void do_create() {
    const bool null_out = g_in.u8() % 8 == 0;
    rocprofiler_context_id_t id{0xdead};
    const st got = rocprofiler_create_context(null_out ? nullptr : &id);
    expect_status e;
    e.apply(ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT, null_out);
    e.apply(ROCPROFILER_STATUS_ERROR_CONFIGURATION_LOCKED, g_m.ph != phase::setup);
    e.apply(ROCPROFILER_STATUS_ERROR_OUT_OF_RESOURCES, g_m.contexts >= max_contexts);
    CHECK_STATUS(e, got);
    if (got == ROCPROFILER_STATUS_SUCCESS) {
        EXPECT_V(id.handle == static_cast<std::uint64_t>(g_m.contexts), id.handle);
        g_m.ctx[g_m.contexts] = context_model{};
        for (auto& s : g_m.stacks[g_m.contexts]) s.clear();
        ++g_m.contexts;
    }
}

void do_configure(bool ptr_form) {
    const rocprofiler_context_id_t c = pick_context();
    const std::int32_t kind = pick_kind();
    std::int32_t ops[16];
    const int n = g_in.u8() % 17;
    for (int i = 0; i < n; ++i) ops[i] = pick_op(kind);
    const bool null_ops = g_in.u8() % 3 == 0;
    const bool null_cb = g_in.u8() % 16 == 0;
    const st got = ptr_form ? encore_configure_callback_tracing_service_ptr(
                                  c, as_enum<rocprofiler_callback_tracing_kind_t>(kind), null_ops ? nullptr : ops,
                                  static_cast<unsigned long>(n), null_cb ? nullptr : &on_ptr_callback,
                                  kind_in_range(kind) && ctx_exists(c) ? &g_tags[c.handle][kind] : nullptr)
                            : rocprofiler_configure_callback_tracing_service(
                                  c, as_enum<rocprofiler_callback_tracing_kind_t>(kind), null_ops ? nullptr : ops,
                                  static_cast<unsigned long>(n), null_cb ? nullptr : &on_callback,
                                  kind_in_range(kind) && ctx_exists(c) ? &g_tags[c.handle][kind] : nullptr);
    expect_status e;
    e.apply(ROCPROFILER_STATUS_ERROR_CONFIGURATION_LOCKED, g_m.ph != phase::setup);
    e.apply(ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_FOUND, !ctx_exists(c));
    e.apply(ROCPROFILER_STATUS_ERROR_KIND_NOT_FOUND, !kind_in_range(kind));
    e.apply(ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT, null_cb || (!null_ops && n == 0));
    bool bad_op = false;
    if (kind_in_range(kind) && !null_ops)
        for (int i = 0; i < n; ++i) bad_op |= !configurable_op(kind, ops[i]);
    e.apply(ROCPROFILER_STATUS_ERROR_OPERATION_NOT_FOUND, bad_op);
    if (kind_in_range(kind)) {
        if (ctx_exists(c))
            e.apply(ROCPROFILER_STATUS_ERROR_SERVICE_ALREADY_CONFIGURED, g_m.ctx[c.handle].services[kind].configured);
        e.apply(ROCPROFILER_STATUS_ERROR_SERVICE_ALREADY_CONFIGURED,
                kind == ROCPROFILER_CALLBACK_TRACING_KERNEL_REPLAY && g_m.replay_configured);
        e.apply(ROCPROFILER_STATUS_ERROR_SERVICE_ALREADY_CONFIGURED,
                kind == ROCPROFILER_CALLBACK_TRACING_RANGE_REPLAY && g_m.range_replay_configured);
        // Every valid kind configures, produced here or not: never NOT_IMPLEMENTED.
    }
    CHECK_STATUS(e, got);
    if (got != ROCPROFILER_STATUS_SUCCESS) return;
    service_model& s = g_m.ctx[c.handle].services[kind];
    s.configured = true;
    s.ptr_form = ptr_form;
    s.ops.assign(static_cast<std::size_t>(g_ops[kind].count), null_ops);
    // A kind without names has no model of its operations: nothing here produces its records.
    if (!null_ops && g_ops[kind].named)
        for (int i = 0; i < n; ++i) s.ops[static_cast<std::size_t>(ops[i] - g_ops[kind].first)] = true;
    g_tags[c.handle][kind] = {c.handle, kind};
    if (kind == ROCPROFILER_CALLBACK_TRACING_KERNEL_REPLAY) g_m.replay_configured = true;
    if (kind == ROCPROFILER_CALLBACK_TRACING_RANGE_REPLAY) g_m.range_replay_configured = true;
}

void do_configure_request() {
    const rocprofiler_context_id_t c = pick_context();
    std::int32_t kinds[8];
    const int n = g_in.u8() % 9;
    for (int i = 0; i < n; ++i)
        kinds[i] = g_in.u8() % 4 == 0 ? static_cast<std::int32_t>(g_in.u32())
                                      : g_in.u8() % (ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_LAST + 1);
    const bool null_kinds = g_in.u8() % 3 == 0;
    const bool null_cb = g_in.u8() % 16 == 0;
    const st got = rocprofiler_configure_external_correlation_id_request_service(
        c, null_kinds ? nullptr : reinterpret_cast<const rocprofiler_external_correlation_id_request_kind_t*>(kinds),
        static_cast<unsigned long>(n), null_cb ? nullptr : &on_request, ctx_exists(c) ? &g_m.ctx[c.handle] : nullptr);
    expect_status e;
    e.apply(ROCPROFILER_STATUS_ERROR_CONFIGURATION_LOCKED, g_m.ph != phase::setup);
    e.apply(ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_FOUND, !ctx_exists(c));
    e.apply(ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT, null_cb || (!null_kinds && n == 0));
    bool bad = false;
    std::uint32_t bits = 0;
    for (int i = 0; i < n && !null_kinds; ++i) {
        bad |= kinds[i] <= 0 || kinds[i] >= ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_LAST;
        if (!bad) bits |= 1u << kinds[i];
    }
    if (null_kinds) bits = ((1u << ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_LAST) - 1) & ~1u;
    e.apply(ROCPROFILER_STATUS_ERROR_KIND_NOT_FOUND, bad);
    if (ctx_exists(c)) e.apply(ROCPROFILER_STATUS_ERROR_SERVICE_ALREADY_CONFIGURED, g_m.ctx[c.handle].request);
    CHECK_STATUS(e, got);
    if (got == ROCPROFILER_STATUS_SUCCESS) {
        g_m.ctx[c.handle].request = true;
        g_m.ctx[c.handle].request_kinds = bits;
    }
}

void do_start_stop(bool start) {
    const rocprofiler_context_id_t c = pick_context();
    const st got = start ? rocprofiler_start_context(c) : rocprofiler_stop_context(c);
    expect_status e;
    e.apply(ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_FOUND, !ctx_exists(c));
    if (start && ctx_exists(c)) e.apply(ROCPROFILER_STATUS_ERROR_CONTEXT_INVALID, !g_m.ctx[c.handle].valid);
    CHECK_STATUS(e, got);
    if (got == ROCPROFILER_STATUS_SUCCESS) g_m.ctx[c.handle].active = start;
}

void do_is_active_valid(bool active) {
    const rocprofiler_context_id_t c = pick_context();
    const bool null_out = g_in.u8() % 8 == 0;
    int v = 7;
    const st got = active ? rocprofiler_context_is_active(c, null_out ? nullptr : &v)
                          : rocprofiler_context_is_valid(c, null_out ? nullptr : &v);
    expect_status e;
    e.apply(ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT, null_out);
    if (active) e.apply(ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_FOUND, !ctx_exists(c));
    CHECK_STATUS(e, got);
    if (got != ROCPROFILER_STATUS_SUCCESS) return;
    const bool want = ctx_exists(c) && (active ? g_m.ctx[c.handle].active : g_m.ctx[c.handle].valid);
    EXPECT_V(v == (want ? 1 : 0), v);
}

void do_names() {
    const std::int32_t kind = pick_kind();
    const bool null_name = g_in.u8() % 4 == 0, null_len = g_in.u8() % 4 == 0;
    const char* name = nullptr;
    std::uint64_t len = 12345;
    if (g_in.u8() % 2) {
        const st got = rocprofiler_query_callback_tracing_kind_name(as_enum<rocprofiler_callback_tracing_kind_t>(kind),
                                                                    null_name ? nullptr : &name,
                                                                    null_len ? nullptr : &len);
        expect_status e;
        e.apply(ROCPROFILER_STATUS_ERROR_KIND_NOT_FOUND, !kind_in_range(kind));
        CHECK_STATUS(e, got);
        if (got != ROCPROFILER_STATUS_SUCCESS) return;
        if (!null_name) {
            expect_name(name, 64);
            if (!null_len) EXPECT(len == std::strlen(name));
        }
        return;
    }
    const std::int32_t op = pick_op(kind);
    const st got = rocprofiler_query_callback_tracing_kind_operation_name(
        as_enum<rocprofiler_callback_tracing_kind_t>(kind), op, null_name ? nullptr : &name, null_len ? nullptr : &len);
    expect_status e;
    e.apply(ROCPROFILER_STATUS_ERROR_KIND_NOT_FOUND, !kind_in_range(kind));
    if (kind_in_range(kind)) {
        e.apply(ROCPROFILER_STATUS_ERROR_NOT_IMPLEMENTED, !g_ops[kind].named);
        e.apply(ROCPROFILER_STATUS_ERROR_OPERATION_NOT_FOUND, g_ops[kind].named && !g_ops[kind].has(op));
    }
    CHECK_STATUS(e, got);
    if (got == ROCPROFILER_STATUS_SUCCESS && !null_name) {
        expect_name(name, 256);
        if (!null_len) EXPECT(len == std::strlen(name));
    }
}

struct kind_walk {
    int seen = 0, stop_at = 0;
    std::int32_t last = 0;
};
void do_iterate_kinds() {
    kind_walk w;
    w.stop_at = g_in.u8() % 40;
    const bool null_cb = g_in.u8() % 8 == 0;
    const st got = rocprofiler_iterate_callback_tracing_kinds(
        null_cb ? nullptr
                : +[](rocprofiler_callback_tracing_kind_t k, void* d) {
                      auto* w = static_cast<kind_walk*>(d);
                      std::int32_t v = 0;
                      std::memcpy(&v, &k, sizeof(v));
                      EXPECT_V(v == w->last + 1, v);  // every kind, in order, NONE and LAST left out
                      EXPECT(kind_in_range(v));
                      w->last = v;
                      return ++w->seen == w->stop_at ? 1 : 0;
                  },
        &w);
    expect_status e;
    e.apply(ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT, null_cb);
    CHECK_STATUS(e, got);
    if (got == ROCPROFILER_STATUS_SUCCESS)
        EXPECT_V(w.seen == (w.stop_at > 0 && w.stop_at < kind_last ? w.stop_at : kind_last - 1), w.seen);
}

struct op_walk {
    std::int32_t kind;
    int seen = 0, stop_at = 0;
};
void do_iterate_ops() {
    op_walk w{pick_kind()};
    w.stop_at = g_in.u8() % 8 == 0 ? 1 + g_in.u8() : 0;
    const bool null_cb = g_in.u8() % 8 == 0;
    const st got = rocprofiler_iterate_callback_tracing_kind_operations(
        as_enum<rocprofiler_callback_tracing_kind_t>(w.kind),
        null_cb ? nullptr
                : +[](rocprofiler_callback_tracing_kind_t k, rocprofiler_tracing_operation_t op, void* d) {
                      auto* w = static_cast<op_walk*>(d);
                      std::int32_t v = 0;
                      std::memcpy(&v, &k, sizeof(v));
                      EXPECT(v == w->kind);
                      EXPECT_V(op == g_ops[v].first + w->seen, op);  // consecutive ids
                      return ++w->seen == w->stop_at ? 1 : 0;
                  },
        &w);
    expect_status e;
    e.apply(ROCPROFILER_STATUS_ERROR_KIND_NOT_FOUND, !kind_in_range(w.kind));
    e.apply(ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT, null_cb);
    if (kind_in_range(w.kind)) e.apply(ROCPROFILER_STATUS_ERROR_NOT_IMPLEMENTED, !g_ops[w.kind].named);
    CHECK_STATUS(e, got);
    if (got == ROCPROFILER_STATUS_SUCCESS) {
        const int n = g_ops[w.kind].count;
        EXPECT_V(w.seen == (w.stop_at > 0 && w.stop_at < n ? w.stop_at : n), w.seen);
    }
}

// A forged record: kind, operation and phase any integers, the payload anywhere, its bytes and
// size field the input's, its pointer-sized words often pointers into the arena.
void do_forged_args() {
    fill_arena();
    rocprofiler_callback_tracing_record_t r{};
    const std::int32_t kind = pick_kind();
    std::memcpy(&r.kind, &kind, sizeof(kind));
    r.operation = pick_op(kind);
    const std::uint32_t ph = g_in.u8() % 4 == 0 ? g_in.u32() : 1 + g_in.u8() % 2;
    std::memcpy(&r.phase, &ph, sizeof(ph));
    r.context_id.handle = g_in.u64();
    r.thread_id = g_in.u64();
    r.correlation_id.internal = g_in.u64();

    const std::uint8_t* lo = nullptr;
    const std::uint8_t* hi = nullptr;
    if (g_in.u8() % 4 == 0) {
        r.payload = reinterpret_cast<void*>(pointer_value());
    } else {
        // The payload in the arena: laid out word by word, ending `slack` bytes before the
        // guard page (0: the last word is the arena's last).
        constexpr std::size_t sizes[] = {
            sizeof(rocprofiler_callback_tracing_hsa_api_data_t),
#if ENCORE_HIP_HEADERS
            sizeof(rocprofiler_callback_tracing_hip_api_data_t),
#else
            // this build (-Dhip=disabled) declares HIP's payload without members
            sizeof(rocprofiler_callback_tracing_hsa_api_data_t),
#endif
            sizeof(rocprofiler_callback_tracing_marker_api_data_t)
        };
        std::uint64_t size_field = g_in.u8() % 8 == 0 ? g_in.u64() : sizes[g_in.u8() % 3];
        std::size_t len = g_in.u8() % 8 == 0 ? 8 + g_in.u16() % 512 : sizes[g_in.u8() % 3];
        len &= ~std::size_t{7};
        if (len < 8) len = 8;
        const std::size_t slack = g_in.u8() % 3 == 0 ? 0 : 8 * (g_in.u8() % 32);
        auto* p = g_guard - len - slack;
        std::memcpy(p, &size_field, sizeof(size_field));
        for (std::size_t at = 8; at < len; at += 8) {
            const std::uint64_t w = g_in.u8() % 2 ? pointer_value() : g_in.u64();
            std::memcpy(p + at, &w, sizeof(w));
        }
        r.payload = p;
        lo = p;
        // Arguments lie in the kind's payload struct, which may reach past the bytes written
        // here (into whatever the arena holds after them: readable, so iteration goes on).
        hi = p + (len > sizes[1] ? len : sizes[1]);
    }
    arg_walk w{kind, r.operation};
    const std::int32_t deref = pick_deref();
    w.max_deref = deref < 0 ? 0 : deref;
    w.stop_after = g_in.u8() % 8 == 0 ? g_in.u8() % 4 : -1;
    w.payload_lo = lo;
    w.payload_hi = hi;
    const bool null_cb = g_in.u8() % 16 == 0;
    const st got = rocprofiler_iterate_callback_tracing_kind_operation_args(r, null_cb ? nullptr : &on_arg, deref, &w);
    expect_status e;
    e.apply(ROCPROFILER_STATUS_ERROR_KIND_NOT_FOUND, !kind_in_range(kind));
    e.apply(ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT, null_cb || r.payload == nullptr);
    // Whether the payload is readable and sized right, whether the kind's arguments iterate and
    // whether it knows the operation: all documented outcomes the model leaves to encore.
    e.allow(ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT);
    e.allow(ROCPROFILER_STATUS_ERROR_NOT_IMPLEMENTED);
    if (kind_in_range(kind)) e.apply(ROCPROFILER_STATUS_ERROR_OPERATION_NOT_FOUND, !g_ops[kind].has(r.operation));
    CHECK_STATUS(e, got);
    if (got != ROCPROFILER_STATUS_SUCCESS) EXPECT_V(w.next == 0, w.next);  // no callback on failure
}

void do_push_pop(bool push) {
    const rocprofiler_context_id_t c = pick_context();
    const tid_choice t = pick_tid();
    const std::uint64_t v = g_in.u64();
    const bool null_out = g_in.u8() % 4 == 0;
    rocprofiler_user_data_t out{.value = 0xbad};
    const st got = push ? rocprofiler_push_external_correlation_id(c, t.tid, {.value = v})
                        : rocprofiler_pop_external_correlation_id(c, t.tid, null_out ? nullptr : &out);
    expect_status e;
    e.apply(ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_FOUND, !ctx_exists(c));
    e.apply(ROCPROFILER_STATUS_ERROR_THREAD_NOT_FOUND, t.who == 2);
    if (t.who == 3) {
        // Any 64 bits: a thread of this process only by chance (libFuzzer's and ASan's own).
        e.allow(ROCPROFILER_STATUS_ERROR_THREAD_NOT_FOUND);
        e.allow(ROCPROFILER_STATUS_ERROR);
    }
    if (push) e.allow(ROCPROFILER_STATUS_ERROR_OUT_OF_RESOURCES);
    if (!push && ctx_exists(c) && t.who < 2) e.apply(ROCPROFILER_STATUS_ERROR, g_m.stacks[c.handle][t.who].empty());
    CHECK_STATUS(e, got);
    if (got != ROCPROFILER_STATUS_SUCCESS || t.who >= 2) return;
    auto& stack = g_m.stacks[c.handle][t.who];
    if (push) {
        stack.push_back(v);
    } else {
        if (!null_out) EXPECT(out.value == stack.back());
        stack.pop_back();
    }
}

void do_misc() {
    switch (g_in.u8() % 8) {
        case 0: {
            rocprofiler_thread_id_t tid = 0;
            const bool null_out = g_in.u8() % 4 == 0;
            const st got = rocprofiler_get_thread_id(null_out ? nullptr : &tid);
            expect_status e;
            e.apply(ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT, null_out);
            CHECK_STATUS(e, got);
            if (!null_out) EXPECT_V(tid == g_tid_self, tid);
            break;
        }
        case 1: {
            const bool null_out = g_in.u8() % 4 == 0;
            timespec before{};
            ::clock_gettime(CLOCK_BOOTTIME, &before);
            rocprofiler_timestamp_t ts = 0;
            const st got = rocprofiler_get_timestamp(null_out ? nullptr : &ts);
            expect_status e;
            e.apply(ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT, null_out);
            CHECK_STATUS(e, got);
            if (null_out) break;
            const auto b = static_cast<std::uint64_t>(before.tv_sec) * 1000000000ull +
                           static_cast<std::uint64_t>(before.tv_nsec);
            EXPECT(ts >= b);  // CLOCK_BOOTTIME, as the header says
            EXPECT(ts >= g_m.last_ts);
            g_m.last_ts = ts;
            break;
        }
        case 2: {
            std::uint32_t v[3] = {9, 9, 9};
            const int mask = g_in.u8();
            const st got = rocprofiler_get_version(mask & 1 ? nullptr : &v[0], mask & 2 ? nullptr : &v[1],
                                                   mask & 4 ? nullptr : &v[2]);
            EXPECT_V(got == ROCPROFILER_STATUS_SUCCESS, got);
            // The rocprofiler-sdk API level; encore's own version is encore_get_version's.
            if (!(mask & 1)) EXPECT(v[0] == ROCPROFILER_VERSION_MAJOR);
            if (!(mask & 2)) EXPECT(v[1] == ROCPROFILER_VERSION_MINOR);
            if (!(mask & 4)) EXPECT(v[2] == ROCPROFILER_VERSION_PATCH);
            rocprofiler_version_triplet_t t{9, 9, 9};
            const st got_t = rocprofiler_get_version_triplet(mask & 8 ? nullptr : &t);
            EXPECT_V(got_t == (mask & 8 ? ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT : ROCPROFILER_STATUS_SUCCESS), got_t);
            if (!(mask & 8))
                EXPECT(t.major == ROCPROFILER_VERSION_MAJOR && t.minor == ROCPROFILER_VERSION_MINOR &&
                       t.patch == ROCPROFILER_VERSION_PATCH);
            const st got_e = encore_get_version(mask & 16 ? nullptr : &v[0], nullptr, nullptr);
            EXPECT_V(got_e == ROCPROFILER_STATUS_SUCCESS, got_e);
            if (!(mask & 16)) EXPECT(v[0] == ENCORE_VERSION_MAJOR);
            break;
        }
        case 3: {
            const auto s = static_cast<std::int32_t>(g_in.u8() % 2 ? g_in.u32()
                                                                   : g_in.u8() % (ROCPROFILER_STATUS_LAST + 2));
            const char* name = rocprofiler_get_status_name(as_enum<rocprofiler_status_t>(s));
            const char* text = rocprofiler_get_status_string(as_enum<rocprofiler_status_t>(s));
            if (s >= 0 && s < ROCPROFILER_STATUS_LAST) {
                expect_name(name, 128);
                EXPECT(std::strncmp(name, "ROCPROFILER_STATUS_", 19) == 0);
                expect_name(text, 256);
            } else {
                EXPECT(name == nullptr);
                EXPECT(text == nullptr);
            }
            break;
        }
        case 4: {
            int v = 9;
            const bool null_out = g_in.u8() % 4 == 0;
            const bool init = g_in.u8() % 2;
            const st got = init ? rocprofiler_is_initialized(null_out ? nullptr : &v)
                                : rocprofiler_is_finalized(null_out ? nullptr : &v);
            expect_status e;
            e.apply(ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT, null_out);
            CHECK_STATUS(e, got);
            if (null_out) break;
            if (init)
                EXPECT_V(v == (g_m.ph == phase::setup ? -1 : 1), v);
            else
                EXPECT_V(v == (g_m.ph == phase::finalized ? 1 : 0), v);
            break;
        }
        case 5: {
            const bool null_fn = g_in.u8() % 2;
            const st got = rocprofiler_force_configure(
                null_fn ? nullptr : +[](uint32_t, const char*, uint32_t, rocprofiler_client_id_t*)
                    -> rocprofiler_tool_configure_result_t* { fail("a late tool was configured", __LINE__, 0); });
            expect_status e;
            e.apply(ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT, null_fn);
            e.apply(ROCPROFILER_STATUS_ERROR_CONFIGURATION_LOCKED);  // initialization has begun
            CHECK_STATUS(e, got);
            break;
        }
        case 6: {
            const std::int32_t version = g_in.u8() % 4 == 0 ? static_cast<std::int32_t>(g_in.u32())
                                                            : ROCPROFILER_AGENT_INFO_VERSION_0;
            const std::size_t size = g_in.u8() % 4 == 0 ? g_in.u64()
                                                        : sizeof(rocprofiler_agent_v0_t) - 8 * (g_in.u8() % 3);
            const bool null_cb = g_in.u8() % 8 == 0;
            st want = static_cast<st>(g_in.u8() % ROCPROFILER_STATUS_LAST);
            const st got = rocprofiler_query_available_agents(
                as_enum<rocprofiler_agent_version_t>(version),
                null_cb ? nullptr
                        : +[](rocprofiler_agent_version_t v, const void** agents, size_t n, void* d) {
                              EXPECT(v == ROCPROFILER_AGENT_INFO_VERSION_0);
                              EXPECT(n == 0 || agents != nullptr);
                              for (size_t i = 0; i < n; ++i) {
                                  const auto* a = static_cast<const rocprofiler_agent_v0_t*>(agents[i]);
                                  EXPECT(a->size == sizeof(rocprofiler_agent_v0_t));
                                  for (const char* s : {a->name, a->vendor_name, a->product_name, a->model_name,
                                                        a->uuid_string})
                                      expect_name(s);
                              }
                              return *static_cast<st*>(d);
                          },
                size, &want);
            expect_status e;
            e.apply(ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT, version != ROCPROFILER_AGENT_INFO_VERSION_0 || null_cb);
            e.apply(ROCPROFILER_STATUS_ERROR_INCOMPATIBLE_ABI, size > sizeof(rocprofiler_agent_v0_t));
            if (e.must == 0) {
                EXPECT_V(got == want, got);  // what the callback returned
            } else {
                CHECK_STATUS(e, got);
            }
            break;
        }
        default: {
            // The replay service's options (KERNEL_REPLAY is configurable here: add_producer).
            const rocprofiler_context_id_t c = pick_context();
            const bool null_opt = g_in.u8() % 8 == 0;
            encore_kernel_replay_options_t o{};
            o.size = g_in.u8() % 4 == 0 ? g_in.u64() : sizeof(o);
            const std::int32_t policy = g_in.u8() % 4 == 0 ? static_cast<std::int32_t>(g_in.u32()) : g_in.u8() % 3;
            std::memcpy(&o.policy, &policy, sizeof(policy));
            o.chunk_size = g_in.u8() % 2 ? g_in.u64() : g_in.u32();
            o.memory_budget = g_in.u64();
            o.wait_timeout_ns = g_in.u8() % 2 ? g_in.u64() : g_in.u32();
            const st got = encore_configure_kernel_replay_options(c, null_opt ? nullptr : &o);
            expect_status e;
            e.apply(ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT, null_opt);
            e.apply(ROCPROFILER_STATUS_ERROR_CONFIGURATION_LOCKED, g_m.ph != phase::setup);
            e.apply(ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_FOUND, !ctx_exists(c));
            if (ctx_exists(c))
                e.apply(ROCPROFILER_STATUS_ERROR_CONTEXT_ERROR,
                        !g_m.ctx[c.handle].services[ROCPROFILER_CALLBACK_TRACING_KERNEL_REPLAY].configured);
            e.apply(ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT,
                    o.size < sizeof(o) || policy < 0 || policy >= ENCORE_REPLAY_SNAPSHOT_LAST ||
                        o.chunk_size > (1ull << 30) || o.wait_timeout_ns > 86400ull * 1000000000ull);
            CHECK_STATUS(e, got);
            std::uint64_t sum = 0;
            const st cs = encore_kernel_replay_checksum(g_in.u8() % 4 == 0 ? nullptr : &sum);
            EXPECT_V(cs == ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT || cs == ROCPROFILER_STATUS_ERROR_CONTEXT_ERROR,
                     cs);  // no replay in flight
            break;
        }
    }
}

// A tool's contexts are disabled when it fails and at every finalization of it (its own early
// finalize, each time; the end of its initialize if it finalized itself in it; encore's
// finalization): a context it creates after finalizing itself does not outlive it.
void mark_tool_contexts_invalid() {
    for (int i = 0; i < g_m.contexts; ++i) {
        g_m.ctx[i].valid = false;
        g_m.ctx[i].active = false;
    }
}

// The tool finalizes itself early (the finalize function its initialize was handed).
void do_client_finalize() {
    if (g_client_finalize == nullptr) return;
    g_client_finalize(g_client_id);
    mark_tool_contexts_invalid();          // every time: contexts made since the first go too
    if (g_m.tool_finalized_early) return;  // the finalize callback runs once
    g_m.tool_finalized_early = true;
    if (g_m.tool_finalize_due) {
        g_m.tool_finalize_due = false;
        ++g_m.tool_finalized;  // the finalize callback must have run (checked at the end)
    }
}

// One call of the program; returns false at the end of a phase.
bool step() {
    if (g_in.empty()) return false;
    const std::uint8_t op = g_in.u8();
    switch (op % 20) {
        case 0: do_create(); break;
        case 1: do_configure(false); break;
        case 2: do_configure(true); break;
        case 3: do_configure_request(); break;
        case 4: do_start_stop(true); break;
        case 5: do_start_stop(false); break;
        case 6: do_is_active_valid(g_in.u8() % 2); break;
        case 7: do_names(); break;
        case 8: do_iterate_kinds(); break;
        case 9: do_iterate_ops(); break;
        case 10:
        case 11: do_forged_args(); break;
        case 12: do_push_pop(true); break;
        case 13: do_push_pop(false); break;
        case 14: do_misc(); break;
        case 15:
        case 16: traced_call(); break;
        case 17:
            if (op >= 200) do_client_finalize();
            break;
        case 18: return false;  // the end of this phase
        default: break;         // 19: nothing
    }
    return true;
}

int g_tool_finalize_calls = 0;
rocprofiler_tool_configure_result_t g_result{};

int tool_initialize(rocprofiler_client_finalize_t fini, void*) {
    g_client_finalize = fini;
    EXPECT(fini != nullptr);
    for (int i = 0; i < 200 && step(); ++i) {
    }
    // The initialize's return: 0 mostly, non-zero fails the tool (its contexts are disabled).
    const int rc = g_in.u8() % 16 == 0 ? -1 : 0;
    if (rc != 0) {
        g_m.tool_failed = true;
        g_m.tool_finalize_due = false;
        mark_tool_contexts_invalid();
    }
    return rc;
}

rocprofiler_tool_configure_result_t* tool_configure(uint32_t version, const char* runtime, uint32_t priority,
                                                    rocprofiler_client_id_t* id) {
    EXPECT(version == ROCPROFILER_SDK_VERSION);
    expect_name(runtime, 64);
    EXPECT_V(priority == 0, priority);
    EXPECT(id != nullptr);
    id->name = "fuzz";
    g_client_id = *id;
    g_result = {sizeof(g_result), &tool_initialize, [](void*) { ++g_tool_finalize_calls; }, nullptr};
    return &g_result;
}

// Two agents with odd strings, as if an HSA runtime had loaded libencore-hsa.
std::size_t fake_agents(rocprofiler_agent_v0_t* out, std::size_t capacity) {
    if (capacity >= 2) {
        out[0].type = ROCPROFILER_AGENT_TYPE_CPU;
        out[0].name = "cpu \"0\"\n";
        out[1].type = ROCPROFILER_AGENT_TYPE_GPU;
        out[1].name = "gfx90a";
        out[1].product_name = nullptr;
    }
    return 2;
}

// A thread that stays parked: pushes and pops aimed at another live thread of the process.
std::uint64_t start_helper_thread() {
    // Never destroyed: glibc's condition variable destructor would wait for the parked thread at exit.
    static auto* m = new std::mutex;
    static auto* cv = new std::condition_variable;
    static std::uint64_t tid = 0;
    std::thread([] {
        {
            std::lock_guard lk(*m);
            tid = gettid_now();
        }
        cv->notify_all();
        std::unique_lock lk(*m);
        cv->wait(lk, [] { return false; });
    }).detach();
    std::unique_lock lk(*m);
    cv->wait(lk, [] { return tid != 0; });
    return tid;
}

void setup_once() {
    g_page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    void* m = ::mmap(nullptr, (arena_pages + 1) * g_page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) std::abort();
    g_arena = static_cast<std::uint8_t*>(m);
    g_guard = g_arena + arena_size();
    if (::mprotect(g_guard, g_page, PROT_NONE) != 0) std::abort();

    g_tid_self = gettid_now();
    g_tid_helper = start_helper_thread();
    std::thread([] { g_tid_dead = gettid_now(); }).join();

    // The kinds of libencore-hsa, -hip and -roctx become configurable, as in a process that
    // loaded them (nothing produces their records here but the fake table's API calls).
    encore::core::add_producer(encore::tracing::produced_by::hsa | encore::tracing::produced_by::hip |
                               encore::tracing::produced_by::marker);
    encore::core::register_agent_provider(&fake_agents);

    for (std::int32_t k = 1; k < kind_last; ++k) {
        op_walk w{k};
        op_range& r = g_ops[k];
        r.named = rocprofiler_iterate_callback_tracing_kind_operations(
                      as_enum<rocprofiler_callback_tracing_kind_t>(k),
                      +[](rocprofiler_callback_tracing_kind_t, rocprofiler_tracing_operation_t op, void* d) {
                          auto* w = static_cast<op_walk*>(d);
                          if (w->seen++ == 0) w->stop_at = op;  // the first id
                          return 0;
                      },
                      &w) == ROCPROFILER_STATUS_SUCCESS;
        r.first = w.stop_at;
        r.count = w.seen;
    }

    // Wrappers over every slot of the fake table: installed once, while a throwaway tool
    // configures every HSA operation (install wraps what some context configured). Afterwards
    // the subscriber masks alone decide whether a call is traced.
    static fake_hsa::tables tables;
    g_tables = &tables;
    // Two slots of our own: a symbol lookup that never reads its name (the name may be any
    // pointer: only encore's guarded formatting reads it), and a status string whose text the
    // input picks (quotes, control bytes, UTF-8).
    tables.core.hsa_executable_get_symbol_by_name_fn = [](hsa_executable_t, const char*, const hsa_agent_t*,
                                                          hsa_executable_symbol_t* sym) {
        if (sym == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
        sym->handle = 1;
        return HSA_STATUS_SUCCESS;
    };
    tables.core.hsa_status_string_fn = [](hsa_status_t status, const char** out) {
        if (out == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
        std::uint32_t v = 0;
        std::memcpy(&v, &status, sizeof(v));
        *out = g_static_strings[v % 4];
        return HSA_STATUS_SUCCESS;
    };
    encore::core::reset_registration_for_testing();
    (void)rocprofiler_force_configure(+[](uint32_t, const char*, uint32_t, rocprofiler_client_id_t*) {
        static rocprofiler_tool_configure_result_t r{sizeof(r),
                                                     [](rocprofiler_client_finalize_t, void*) {
                                                         rocprofiler_context_id_t c{};
                                                         (void)rocprofiler_create_context(&c);
                                                         for (int k = 1; k <= 4; ++k)
                                                             (void)rocprofiler_configure_callback_tracing_service(
                                                                 c, as_enum<rocprofiler_callback_tracing_kind_t>(k),
                                                                 nullptr, 0, &on_callback, nullptr);
                                                         return 0;
                                                     },
                                                     nullptr, nullptr};
        return &r;
    });
    encore::core::initialize();
    if (encore::tracing::hsa_all::install(tables.root) == 0) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const bool once = (setup_once(), true);
    (void)once;
    g_in = {data, size};
    g_m = model{};
    g_depth = 0;
    g_expected_ancestor = 0;
    g_tool_finalize_calls = 0;
    g_client_finalize = nullptr;

    encore::core::reset_registration_for_testing();
    EXPECT(rocprofiler_force_configure(&tool_configure) == ROCPROFILER_STATUS_SUCCESS);
    encore::core::initialize();
    if (g_m.tool_finalized_early) mark_tool_contexts_invalid();  // what it made after finalizing itself
    if (g_m.ph == phase::setup) g_m.ph = phase::run;
    EXPECT_V(g_tool_finalize_calls == g_m.tool_finalized, g_tool_finalize_calls);

    for (int i = 0; i < 400 && step(); ++i) {
    }
    if (g_in.u8() % 2) {
        encore::core::finalize();
        g_m.ph = phase::finalized;
        mark_tool_contexts_invalid();
        for (int i = 0; i < g_m.contexts; ++i) g_m.ctx[i].active = false;  // every context stops
        if (g_m.tool_finalize_due) ++g_m.tool_finalized;
        g_m.tool_finalize_due = false;
        EXPECT_V(g_tool_finalize_calls == g_m.tool_finalized, g_tool_finalize_calls);
        for (int i = 0; i < 50 && step(); ++i) {
        }
    }
    EXPECT_V(g_tool_finalize_calls == g_m.tool_finalized, g_tool_finalize_calls);
    return 0;
}
