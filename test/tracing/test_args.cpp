// test/tracing/test_args.cpp — argument iteration over real HSA signatures: handles, enums,
// structs, strings and pointers at dereference depths 0-3, with null and dangling pointers; the
// type of each argument spelt as the reference spells it (typeid(T).name()).
#include "../support/fake_hsa.hpp"
#include "../support/tool_fixture.hpp"

#include <encore/tracing/hsa.hpp>

#include <doctest/doctest.h>

#include <cxxabi.h>
#include <sys/mman.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <typeinfo>
#include <vector>

using namespace encore;
using encore::domains::hsa_core;

namespace {

struct arg {
    std::uint32_t number;
    int indirection;
    std::string type, name, value;
    int derefs;
};

// Builds a payload for op I exactly as the wrapper does, and iterates it.
template <std::size_t I, class... A>
std::vector<arg> iterate(int max_deref, A... a) {
    tracing::payload_t<hsa_core> payload{};
    payload.size = sizeof(payload);
    ::new (static_cast<void*>(&payload.args)) api::captured_args<hsa_core::op_at<I>>(std::in_place, a...);
    std::vector<arg> out;
    tracing::for_each_arg<hsa_core, I>(&payload, max_deref, [&](const tracing::arg_info& x) {
        out.push_back({x.number, x.indirection_count, x.type, x.name, x.value, x.dereference_count});
    });
    return out;
}

constexpr auto queue_create = hsa_core::id_of<"hsa_queue_create">();
constexpr auto agent_get_info = hsa_core::id_of<"hsa_agent_get_info">();
constexpr auto get_symbol = hsa_core::id_of<"hsa_executable_get_symbol_by_name">();

// A page that is mapped then unmapped: a pointer into it dangles for sure.
void* dangling_pointer() {
    void* p = ::mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ::munmap(p, 4096);
    return p;
}

}  // namespace

TEST_CASE("names, types, indirection counts and handle/enum/number values") {
    hsa_queue_t* q = nullptr;
    const auto args = iterate<queue_create>(1, hsa_agent_t{0x2a}, 64u, HSA_QUEUE_TYPE_MULTI,
                                            static_cast<void (*)(hsa_status_t, hsa_queue_t*, void*)>(nullptr),
                                            static_cast<void*>(nullptr), 0u, 16u, &q);
    REQUIRE(args.size() == 8);
    CHECK(args[0].name == "agent");
    CHECK(args[0].type == typeid(hsa_agent_t).name());
    CHECK(args[0].value == "handle=0x2a");
    CHECK(args[0].indirection == 0);
    CHECK(args[1].value == "64");
    CHECK(args[1].type == typeid(unsigned int).name());
    CHECK(args[3].value == "(null)");
    CHECK(args[4].value == "(null)");
    CHECK(args[6].value == "16");
    CHECK(args[7].name == "queue");
    CHECK(args[7].type == typeid(hsa_queue_t**).name());
    CHECK(args[7].indirection == 2);
    // depth 1: *queue is a null hsa_queue_t*.
    CHECK(args[7].value == "(null)");
    CHECK(args[7].derefs == 1);
    for (std::uint32_t i = 0; i < 8; ++i) CHECK(args[i].number == i);
}

namespace {
// What AccelProf does with arg_type: abi::__cxa_demangle, and it stops logging on a null result.
std::string demangle(const std::string& mangled) {
    int status = -1;
    char* out = abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status);
    std::string s = status == 0 && out != nullptr ? out : "";
    std::free(out);
    return s;
}
}  // namespace

// The reference sets arg_type to typeid(T).name() of the argument's type (lib/common/stringize_arg.hpp:
// stringize_arg), T being the decayed member type of its api_args struct: the mangled spelling.
TEST_CASE("argument types are typeid(T).name(), as the reference passes them, and demangle") {
    hsa_queue_t* q = nullptr;
    const auto create = iterate<queue_create>(0, hsa_agent_t{1}, 64u, HSA_QUEUE_TYPE_MULTI,
                                              static_cast<void (*)(hsa_status_t, hsa_queue_t*, void*)>(nullptr),
                                              static_cast<void*>(nullptr), 0u, 16u, &q);
    REQUIRE(create.size() == 8);
    CHECK(create[0].type == typeid(hsa_agent_t).name());
    CHECK(create[1].type == typeid(std::uint32_t).name());
    CHECK(create[2].type == typeid(hsa_queue_type32_t).name());
    CHECK(create[3].type == typeid(void (*)(hsa_status_t, hsa_queue_t*, void*)).name());
    CHECK(create[4].type == typeid(void*).name());
    CHECK(create[7].type == typeid(hsa_queue_t**).name());
    // The Itanium C++ ABI's spellings (GCC and clang on Linux): HSA's typedef'd structs by their tags.
    CHECK(create[0].type == "11hsa_agent_s");
    CHECK(create[1].type == "j");
    CHECK(create[7].type == "PP11hsa_queue_s");
    CHECK(demangle(create[0].type) == "hsa_agent_s");
    CHECK(demangle(create[1].type) == "unsigned int");
    CHECK(demangle(create[3].type) == "void (*)(hsa_status_t, hsa_queue_s*, void*)");
    CHECK(demangle(create[7].type) == "hsa_queue_s**");

    char name[64] = {};
    const auto info = iterate<agent_get_info>(0, hsa_agent_t{1}, HSA_AGENT_INFO_NAME, static_cast<void*>(name));
    REQUIRE(info.size() == 3);
    CHECK(info[1].type == typeid(hsa_agent_info_t).name());
    CHECK(demangle(info[1].type) == "hsa_agent_info_t");
    CHECK(demangle(info[2].type) == "void*");

    hsa_executable_symbol_t sym{};
    const auto symbol = iterate<get_symbol>(0, hsa_executable_t{1}, "k", static_cast<const hsa_agent_t*>(nullptr), &sym);
    REQUIRE(symbol.size() == 4);
    CHECK(symbol[1].type == typeid(const char*).name());
    CHECK(symbol[1].type == "PKc");
    CHECK(demangle(symbol[1].type) == "char const*");
    CHECK(symbol[2].type == typeid(const hsa_agent_t*).name());
    CHECK(demangle(symbol[2].type) == "hsa_agent_s const*");
    CHECK(symbol[3].type == typeid(hsa_executable_symbol_t*).name());
    // Every argument of these calls demangles (a null demangling stops AccelProf's logging).
    for (const auto* list : {&create, &info, &symbol})
        for (const auto& a : *list) CHECK_MESSAGE(!demangle(a.type).empty(), a.type);
}

TEST_CASE("dereference depth 0..3 over hsa_queue_t**") {
    hsa_queue_t queue{};
    queue.size = 128;
    queue.id = 9;
    queue.type = HSA_QUEUE_TYPE_SINGLE;
    hsa_queue_t* qp = &queue;
    auto at = [&](int depth) {
        return iterate<queue_create>(depth, hsa_agent_t{1}, 1u, HSA_QUEUE_TYPE_SINGLE,
                                     static_cast<void (*)(hsa_status_t, hsa_queue_t*, void*)>(nullptr),
                                     static_cast<void*>(nullptr), 0u, 0u, &qp)[7];
    };
    const auto d0 = at(0);
    CHECK(d0.derefs == 0);
    CHECK(d0.value.rfind("0x", 0) == 0);  // the pointer value
    const auto d1 = at(1);
    CHECK(d1.derefs == 1);
    CHECK(d1.value.rfind("0x", 0) == 0);  // *queue: still a pointer
    const auto d2 = at(2);
    CHECK(d2.derefs == 2);
    CHECK(d2.value.find("size=128") != std::string::npos);  // **queue: the struct, field by field
    CHECK(d2.value.find("id=9") != std::string::npos);
    const auto d3 = at(3);
    CHECK(d3.derefs == 2);  // nothing deeper to follow
    CHECK(d3.value == d2.value);
}

TEST_CASE("enums print by name, out-of-range enums as numbers") {
    char name[64] = "x";
    auto args = iterate<agent_get_info>(0, hsa_agent_t{1}, HSA_AGENT_INFO_NAME, static_cast<void*>(name));
    CHECK(args[1].value == "HSA_AGENT_INFO_NAME");
    CHECK(args[1].type == typeid(hsa_agent_info_t).name());
    CHECK(args[2].type == typeid(void*).name());
    CHECK(args[2].derefs == 0);  // void* is never followed
    // An application may pass any bits as an enum: write them into the captured copy as raw
    // bytes (creating such an enum value in C++ would itself be undefined behaviour).
    tracing::payload_t<hsa_core> payload{};
    payload.size = sizeof(payload);
    ::new (static_cast<void*>(&payload.args))
        api::captured_args<hsa_core::op_at<agent_get_info>>(std::in_place, hsa_agent_t{1}, HSA_AGENT_INFO_NAME,
                                                            static_cast<void*>(name));
    const std::int32_t raw = 0x7fff0001;
    std::memcpy(reinterpret_cast<std::byte*>(&payload.args) + hsa_core::op_at<agent_get_info>::layout::offsets[1], &raw,
                sizeof(raw));
    std::string value;
    tracing::for_each_arg<hsa_core, agent_get_info>(&payload, 0, [&](const tracing::arg_info& a) {
        if (a.number == 1) value = a.value;
    });
    CHECK(value == std::to_string(raw));
}

TEST_CASE("strings: quoted at depth >= 1, pointer at depth 0, null and dangling are safe") {
    hsa_executable_symbol_t sym{};
    const hsa_agent_t agent{3};
    auto args = iterate<get_symbol>(1, hsa_executable_t{1}, "vector_add.kd", &agent, &sym);
    CHECK(args[1].name == "symbol_name");
    CHECK(args[1].value == "\"vector_add.kd\"");
    CHECK(args[1].derefs == 1);
    CHECK(args[2].value == "handle=0x3");  // const hsa_agent_t* followed once
    args = iterate<get_symbol>(0, hsa_executable_t{1}, "vector_add.kd", &agent, &sym);
    CHECK(args[1].value.rfind("0x", 0) == 0);
    CHECK(args[1].derefs == 0);
    args = iterate<get_symbol>(2, hsa_executable_t{1}, static_cast<const char*>(nullptr),
                               static_cast<const hsa_agent_t*>(nullptr), &sym);
    CHECK(args[1].value == "(null)");
    CHECK(args[2].value == "(null)");

    // Dangling pointers print as such; nothing faults.
    const auto* bad = static_cast<const char*>(dangling_pointer());
    args = iterate<get_symbol>(3, hsa_executable_t{1}, bad, reinterpret_cast<const hsa_agent_t*>(bad),
                               reinterpret_cast<hsa_executable_symbol_t*>(const_cast<char*>(bad)));
    CHECK(args[1].value.find("<invalid pointer") == 0);
    CHECK(args[2].value.find("<invalid pointer") == 0);
    CHECK(args[3].value.find("<invalid pointer") == 0);
    CHECK(args[1].derefs == 0);
}

TEST_CASE("a string that runs into an unmapped page is cut there, not overrun") {
    auto* page = static_cast<char*>(::mmap(nullptr, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    REQUIRE(page != MAP_FAILED);
    ::munmap(page + 4096, 4096);
    std::memset(page, 'a', 4096);  // no NUL before the hole
    const char* s = page + 4096 - 10;
    hsa_executable_symbol_t sym{};
    const auto args = iterate<get_symbol>(1, hsa_executable_t{1}, s, static_cast<const hsa_agent_t*>(nullptr), &sym);
    CHECK(args[1].value == "\"aaaaaaaaaa\"...");
    ::munmap(page, 4096);
}

namespace {
std::vector<std::string> g_c_args;
int c_arg_cb(rocprofiler_callback_tracing_kind_t, rocprofiler_tracing_operation_t, uint32_t n, const void* const addr,
             int32_t indirection, const char* type, const char* name, const char* value, int32_t derefs, void* data) {
    auto* stop_after = static_cast<int*>(data);
    g_c_args.push_back(std::to_string(n) + ":" + type + ":" + name + "=" + value + ":" + std::to_string(indirection) +
                       ":" + std::to_string(derefs) + (addr != nullptr ? "" : ":noaddr"));
    return static_cast<int>(g_c_args.size()) >= *stop_after ? 1 : 0;
}
void record_args_cb(rocprofiler_callback_tracing_record_t r, rocprofiler_user_data_t*, void* data) {
    if (r.phase != ROCPROFILER_CALLBACK_PHASE_EXIT) return;
    CHECK(rocprofiler_iterate_callback_tracing_kind_operation_args(r, &c_arg_cb, 2, data) == ROCPROFILER_STATUS_SUCCESS);
}

// A started context whose HSA_CORE_API EXIT records' arguments go into g_c_args, through the C
// API's iteration (stopping after *stop_after of them).
void trace_args_of_core_calls(int* stop_after) {
    test_support::run_tool([stop_after] {
        context c;
        CHECK(context::create(c) == ROCPROFILER_STATUS_SUCCESS);
        CHECK(c.trace<hsa_core>(&record_args_cb, stop_after) == ROCPROFILER_STATUS_SUCCESS);
        return static_cast<int>(c.start());
    });
}
}  // namespace

TEST_CASE("C argument iteration from a live callback, with early stop") {
    static int stop_after = 100;
    fake_hsa::tables t;
    trace_args_of_core_calls(&stop_after);
    tracing::hsa_all::install(t.root);
    g_c_args.clear();
    hsa_queue_t* q = nullptr;
    (void)t.core.hsa_queue_create_fn(hsa_agent_t{2}, 32, HSA_QUEUE_TYPE_SINGLE, nullptr, nullptr, 0, 0, &q);
    REQUIRE(g_c_args.size() == 8);
    CHECK(g_c_args[0] == std::string("0:") + typeid(hsa_agent_t).name() + ":agent=handle=0x2:0:0");
    // At EXIT with depth 2 the out-parameter is followed to the queue the call created.
    INFO(g_c_args[7]);
    CHECK(g_c_args[7].find(std::string("7:") + typeid(hsa_queue_t**).name() + ":queue={type=1") == 0);
    CHECK(g_c_args[7].find("size=32") != std::string::npos);

    g_c_args.clear();
    stop_after = 3;  // a non-zero return stops the iteration
    (void)t.core.hsa_queue_create_fn(hsa_agent_t{2}, 32, HSA_QUEUE_TYPE_SINGLE, nullptr, nullptr, 0, 0, &q);
    CHECK(g_c_args.size() == 3);
    tracing::hsa_all::uninstall(t.root);
}

TEST_CASE("string arguments print as C string literals: quotes, backslashes and control bytes escaped") {
    static int stop_after = 100;
    fake_hsa::tables t;
    trace_args_of_core_calls(&stop_after);
    tracing::hsa_all::install(t.root);
    g_c_args.clear();
    hsa_executable_symbol_t sym{};
    // \x01 then the digit 7: a greedy \x escape would swallow it; the octal \001 cannot.
    (void)t.core.hsa_executable_get_symbol_by_name_fn(hsa_executable_t{1},
                                                      "say \"hi\"\n\tx\x01"
                                                      "7\\end\r\x7f",
                                                      nullptr, &sym);
    tracing::hsa_all::uninstall(t.root);
    REQUIRE(g_c_args.size() == 4);
    INFO(g_c_args[1]);
    CHECK(g_c_args[1].find(R"(symbol_name="say \"hi\"\n\tx\0017\\end\r\177":)") != std::string::npos);
}

TEST_CASE("string escapes: UTF-8 kept, other high bytes octal, truncation never splits an escape") {
    hsa_executable_symbol_t sym{};
    const auto* none = static_cast<const hsa_agent_t*>(nullptr);
    auto value = [&](const char* s) { return iterate<get_symbol>(1, hsa_executable_t{1}, s, none, &sym)[1].value; };
    CHECK(value("caf\xc3\xa9 \xe2\x82\xac") == "\"caf\xc3\xa9 \xe2\x82\xac\"");
    // A lone continuation byte, a cut sequence, an overlong form, a surrogate: octal.
    CHECK(value("\x80|\xc3|\xc0\xaf|\xed\xa0\x80|\xff") == R"("\200|\303|\300\257|\355\240\200|\377")");
    // 300 quotes: 256 read, each escaped whole, then the truncation mark.
    const std::string quotes(300, '"');
    std::string want = "\"";
    for (int i = 0; i < 256; ++i) want += "\\\"";
    CHECK(value(quotes.c_str()) == want + "\"...");
    // A two-byte character cut by the 256-byte limit: its first byte alone is not UTF-8.
    const std::string cut = std::string(255, 'a') + "\xc3\xa9";
    CHECK(value(cut.c_str()) == "\"" + std::string(255, 'a') + "\\303\"...");
}
