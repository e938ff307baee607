// Tests for the C++ helper headers under rocprofiler-sdk/cxx/ (name_info, operators, hash,
// version, utility), built twice: as C++17 (the reference's samples build so) and C++20.
#include <rocprofiler-sdk/rocprofiler.h>
#include <rocprofiler-sdk/cxx/hash.hpp>
#include <rocprofiler-sdk/cxx/name_info.hpp>
#include <rocprofiler-sdk/cxx/operators.hpp>
#include <rocprofiler-sdk/cxx/utility.hpp>
#include <rocprofiler-sdk/cxx/version.hpp>

#include <doctest/doctest.h>

#include <cstring>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace sdk = rocprofiler::sdk;

// The version split is constexpr, as the reference's.
static_assert(sdk::version::compute_version_triplet(10401).major == 1);
static_assert(sdk::version::compute_version_triplet(10401).minor == 4);
static_assert(sdk::version::compute_version_triplet(10401).patch == 1);
static_assert(sdk::version::compute_version_triplet<1000>(1004001).minor == 4);
static_assert(sdk::mpl::is_string_type<const std::string&>::value && !sdk::mpl::is_string_type<int>::value);
static_assert(sdk::mpl::string_support<std::string>::value && !sdk::mpl::string_support<int>::value);
static_assert(std::is_same<sdk::callback_name_info, sdk::callback_name_info_t<std::string_view>>::value);

namespace {

// A stored name as a std::string; a gap of a const char* table is a null pointer.
std::string str(const char* s) { return s != nullptr ? std::string{s} : std::string{}; }
std::string str(std::string_view s) { return std::string{s}; }
std::string str(const std::string& s) { return s; }

// The names the C API answers, kind by kind, to check the table against.
std::vector<std::pair<rocprofiler_tracing_operation_t, std::string>> c_operations(rocprofiler_callback_tracing_kind_t k) {
    std::vector<std::pair<rocprofiler_tracing_operation_t, std::string>> out;
    (void)rocprofiler_iterate_callback_tracing_kind_operations(
        k,
        [](rocprofiler_callback_tracing_kind_t kind, rocprofiler_tracing_operation_t op, void* data) {
            const char* name = nullptr;
            REQUIRE(rocprofiler_query_callback_tracing_kind_operation_name(kind, op, &name, nullptr) ==
                    ROCPROFILER_STATUS_SUCCESS);
            static_cast<std::vector<std::pair<rocprofiler_tracing_operation_t, std::string>>*>(data)->emplace_back(op,
                                                                                                                   name);
            return 0;
        },
        &out);
    return out;
}

template <class Names>
void check_against_c_api(const Names& names) {
    REQUIRE(names.size() == static_cast<size_t>(ROCPROFILER_CALLBACK_TRACING_LAST));
    CHECK(str(names[0].name).empty());  // NONE has no name; its entry is a gap
    for (int k = ROCPROFILER_CALLBACK_TRACING_NONE + 1; k < ROCPROFILER_CALLBACK_TRACING_LAST; ++k) {
        const auto kind = static_cast<rocprofiler_callback_tracing_kind_t>(k);
        const char* name = nullptr;
        REQUIRE(rocprofiler_query_callback_tracing_kind_name(kind, &name, nullptr) == ROCPROFILER_STATUS_SUCCESS);
        CAPTURE(name);
        CHECK(names[static_cast<size_t>(k)].value == kind);
        CHECK(str(names.at(kind)) == name);
        CHECK(str(names[static_cast<size_t>(k)]()) == name);
        const auto ops = c_operations(kind);
        size_t named = 0;
        for (const auto& op : names[static_cast<size_t>(k)].operations) named += str(op).empty() ? 0 : 1;
        CHECK(named == ops.size());
        for (const auto& [id, op_name] : ops) {
            CHECK(str(names.at(kind, id)) == op_name);
            CHECK(str(names[static_cast<size_t>(k)](static_cast<size_t>(id))) == op_name);
        }
        if (!ops.empty())
            CHECK(names[static_cast<size_t>(k)].operations.size() == static_cast<size_t>(ops.back().first) + 1);
    }
}

}  // namespace

TEST_CASE("get_callback_tracing_names: every kind and operation name of the C API, indexed by value") {
    const auto names = sdk::get_callback_tracing_names();
    check_against_c_api(names);
    CHECK(names.at(ROCPROFILER_CALLBACK_TRACING_HSA_CORE_API) == "HSA_CORE_API");
    CHECK(names.at(ROCPROFILER_CALLBACK_TRACING_HSA_CORE_API, ROCPROFILER_HSA_CORE_API_ID_hsa_init) == "hsa_init");
    CHECK(names.at(ROCPROFILER_CALLBACK_TRACING_MARKER_CONTROL_API,
                   ROCPROFILER_MARKER_CONTROL_API_ID_roctxProfilerPause) == "roctxProfilerPause");
    CHECK(names.at(ROCPROFILER_CALLBACK_TRACING_OMPT, ROCPROFILER_OMPT_ID_work) == "omp_work");
    CHECK(names[ROCPROFILER_CALLBACK_TRACING_OMPT].operations.size() == ROCPROFILER_OMPT_ID_LAST);
    // A kind without operations here (CUDA_DRIVER_API: libencore-cuda is not loaded) keeps its
    // name and an empty list.
    CHECK(names.at(ROCPROFILER_CALLBACK_TRACING_CUDA_DRIVER_API) == "CUDA_DRIVER_API");
    CHECK(names[ROCPROFILER_CALLBACK_TRACING_CUDA_DRIVER_API].operations.empty());
    CHECK(names[ROCPROFILER_CALLBACK_TRACING_CUDA_DRIVER_API].items().empty());
    // Past the table: std::out_of_range, as the reference's at().
    CHECK_THROWS_AS((void)names.at(ROCPROFILER_CALLBACK_TRACING_LAST), std::out_of_range);
    CHECK_THROWS_AS((void)names.at(ROCPROFILER_CALLBACK_TRACING_HSA_CORE_API, 100000), std::out_of_range);
    CHECK_THROWS_AS((void)names[ROCPROFILER_CALLBACK_TRACING_LAST], std::out_of_range);
    // Asked twice: the same table.
    const auto again = sdk::get_callback_tracing_names();
    REQUIRE(again.size() == names.size());
    CHECK(again.at(ROCPROFILER_CALLBACK_TRACING_KERNEL_DISPATCH) ==
          names.at(ROCPROFILER_CALLBACK_TRACING_KERNEL_DISPATCH));
}

TEST_CASE("get_buffer_tracing_names: every buffer kind and operation name of the C API, indexed by value") {
    const auto names = sdk::get_buffer_tracing_names();
    REQUIRE(names.size() == static_cast<size_t>(ROCPROFILER_BUFFER_TRACING_LAST));
    CHECK(str(names[0].name).empty());
    for (int k = ROCPROFILER_BUFFER_TRACING_NONE + 1; k < ROCPROFILER_BUFFER_TRACING_LAST; ++k) {
        const auto kind = static_cast<rocprofiler_buffer_tracing_kind_t>(k);
        const char* name = nullptr;
        REQUIRE(rocprofiler_query_buffer_tracing_kind_name(kind, &name, nullptr) == ROCPROFILER_STATUS_SUCCESS);
        CAPTURE(name);
        CHECK(str(names.at(kind)) == name);
        std::vector<std::pair<rocprofiler_tracing_operation_t, std::string>> ops;
        (void)rocprofiler_iterate_buffer_tracing_kind_operations(
            kind,
            [](rocprofiler_buffer_tracing_kind_t bk, rocprofiler_tracing_operation_t op, void* data) {
                const char* n = nullptr;
                REQUIRE(rocprofiler_query_buffer_tracing_kind_operation_name(bk, op, &n, nullptr) ==
                        ROCPROFILER_STATUS_SUCCESS);
                static_cast<std::vector<std::pair<rocprofiler_tracing_operation_t, std::string>>*>(data)->emplace_back(
                    op, n);
                return 0;
            },
            &ops);
        size_t named = 0;
        for (const auto& op : names[static_cast<size_t>(k)].operations) named += str(op).empty() ? 0 : 1;
        CHECK(named == ops.size());
        for (const auto& [id, op_name] : ops) CHECK(str(names.at(kind, id)) == op_name);
    }
    CHECK(names.at(ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH) == "KERNEL_DISPATCH");
    CHECK(names.at(ROCPROFILER_BUFFER_TRACING_HSA_CORE_API, ROCPROFILER_HSA_CORE_API_ID_hsa_init) == "hsa_init");
    CHECK_THROWS_AS((void)names.at(ROCPROFILER_BUFFER_TRACING_LAST), std::out_of_range);
}

TEST_CASE("name tables of std::string and const char* hold the same names") {
    check_against_c_api(sdk::get_callback_tracing_names<std::string>());
    const auto c_names = sdk::get_callback_tracing_names<const char*>();
    check_against_c_api(c_names);
    // A gap of a const char* table is a null pointer (an event kind has no operation 0).
    CHECK(c_names[ROCPROFILER_CALLBACK_TRACING_KERNEL_DISPATCH].operations.at(0) == nullptr);
}

TEST_CASE("iterating the table as the reference's samples do") {
    const sdk::callback_name_info names = sdk::get_callback_tracing_names();
    size_t kinds = 0, named_ops = 0;
    for (const auto& itr : names) {
        ++kinds;
        for (auto [didx, ditr] : itr.items()) {
            CHECK(ditr == &itr.operations.at(static_cast<size_t>(didx)));
            if (!ditr->empty()) ++named_ops;
        }
    }
    CHECK(kinds == names.size());
    CHECK(named_ops > 125);  // HSA core alone has more
    const auto items = names.items();
    REQUIRE(items.size() == names.size());
    CHECK(items[ROCPROFILER_CALLBACK_TRACING_MEMORY_COPY] == &names[ROCPROFILER_CALLBACK_TRACING_MEMORY_COPY]);
}

TEST_CASE("name_info filled by hand: out of order, gaps, bad ids") {
    sdk::utility::name_info<rocprofiler_callback_tracing_kind_t, std::string> n;
    CHECK(n.size() == 0);
    CHECK_THROWS_AS((void)n.at(ROCPROFILER_CALLBACK_TRACING_HSA_CORE_API), std::out_of_range);
    n.emplace(ROCPROFILER_CALLBACK_TRACING_MEMORY_COPY, "copies");
    n.emplace(ROCPROFILER_CALLBACK_TRACING_HSA_CORE_API, "core");  // a lower kind after a higher one
    REQUIRE(n.size() == static_cast<size_t>(ROCPROFILER_CALLBACK_TRACING_MEMORY_COPY) + 1);
    CHECK(n.at(ROCPROFILER_CALLBACK_TRACING_MEMORY_COPY) == "copies");
    CHECK(n.at(ROCPROFILER_CALLBACK_TRACING_HSA_CORE_API) == "core");
    CHECK(n[ROCPROFILER_CALLBACK_TRACING_KERNEL_DISPATCH].name.empty());
    CHECK(n[ROCPROFILER_CALLBACK_TRACING_KERNEL_DISPATCH].value == ROCPROFILER_CALLBACK_TRACING_KERNEL_DISPATCH);
    n.emplace(ROCPROFILER_CALLBACK_TRACING_MEMORY_COPY, 3, "third");
    n.emplace(ROCPROFILER_CALLBACK_TRACING_MEMORY_COPY, 1, "first");
    n.emplace(ROCPROFILER_CALLBACK_TRACING_MEMORY_COPY, -1, "ignored");  // no index for it
    const auto& copy = n[ROCPROFILER_CALLBACK_TRACING_MEMORY_COPY];
    REQUIRE(copy.operations.size() == 4);
    CHECK(copy(1) == "first");
    CHECK(copy[3] == "third");
    CHECK(copy[0].empty());
    CHECK(copy() == "copies");  // the name survived the operations
    const auto items = copy.items();
    REQUIRE(items.size() == 4);
    CHECK(items[3].first == 3);
    CHECK(*items[3].second == "third");
    CHECK(n.size() == static_cast<size_t>(ROCPROFILER_CALLBACK_TRACING_MEMORY_COPY) + 1);
    CHECK_THROWS_AS((void)copy(4), std::out_of_range);
}

TEST_CASE("handle operators compare by handle, in every direction") {
    const rocprofiler_context_id_t a{1}, b{2};
    CHECK(a == rocprofiler_context_id_t{1});
    CHECK(a != b);
    CHECK(a < b);
    CHECK(b > a);
    CHECK(a <= a);
    CHECK(a <= b);
    CHECK(b >= a);
    CHECK_FALSE(b < a);
    CHECK_FALSE(a > b);
    CHECK(hsa_agent_t{7} == hsa_agent_t{7});
    CHECK(hsa_signal_t{3} < hsa_signal_t{4});
    CHECK(rocprofiler_address_t{5} != rocprofiler_address_t{6});
    CHECK(rocprofiler_stream_id_t{0} < rocprofiler_stream_id_t{1});
    std::map<rocprofiler_agent_id_t, int> per_agent{{rocprofiler_agent_id_t{9}, 1}, {rocprofiler_agent_id_t{2}, 2}};
    CHECK(per_agent.begin()->first == rocprofiler_agent_id_t{2});
    std::set<rocprofiler_queue_id_t> queues{rocprofiler_queue_id_t{3}, rocprofiler_queue_id_t{3}};
    CHECK(queues.size() == 1);
}

TEST_CASE("agents compare by id; dim3 by size, then x, y, z; versions by major, minor, patch") {
    rocprofiler_agent_v0_t x{}, y{};
    x.id.handle = 1;
    y.id.handle = 2;
    y.size = 99;  // other fields do not count
    CHECK(x != y);
    CHECK(x < y);
    y.id.handle = 1;
    CHECK(x == y);
    CHECK(x >= y);

    CHECK(rocprofiler_dim3_t{1, 2, 3} == rocprofiler_dim3_t{1, 2, 3});
    CHECK(rocprofiler_dim3_t{1, 2, 3} < rocprofiler_dim3_t{2, 2, 2});                          // 6 < 8
    CHECK(rocprofiler_dim3_t{8, 1, 1} > rocprofiler_dim3_t{2, 2, 1});                          // 8 > 4
    CHECK(rocprofiler_dim3_t{1, 2, 3} < rocprofiler_dim3_t{3, 2, 1});                          // same size: by x
    CHECK(rocprofiler_dim3_t{1 << 16, 1 << 16, 2} > rocprofiler_dim3_t{1 << 16, 1 << 16, 1});  // past 2^32
    CHECK(rocprofiler_dim3_t{2, 2, 2} <= rocprofiler_dim3_t{2, 2, 2});

    using v = rocprofiler_version_triplet_t;
    CHECK(v{1, 4, 1} == v{1, 4, 1});
    CHECK(v{1, 4, 1} != v{1, 4, 0});
    CHECK(v{1, 4, 1} < v{1, 10, 0});
    CHECK(v{2, 0, 0} > v{1, 99, 99});
    CHECK(v{1, 0, 0} <= v{1, 0, 0});
    CHECK(v{1, 0, 1} >= v{1, 0, 0});
    CHECK(sdk::version::compute_version_triplet<100>(10401) == v{1, 4, 1});
    CHECK(sdk::version::compute_version_triplet<100>(0) == v{0, 0, 0});
    CHECK(sdk::version::compute_version_triplet<100>(999999) == v{99, 99, 99});
}

TEST_CASE("std::hash of a handle is its handle; handles key unordered containers") {
    CHECK(std::hash<rocprofiler_context_id_t>{}(rocprofiler_context_id_t{42}) == 42);
    CHECK(std::hash<hsa_signal_t>{}(hsa_signal_t{0xdead}) == 0xdead);
    CHECK(sdk::hash::handle_hasher<hsa_executable_t>{}(hsa_executable_t{5}) == 5);
    std::unordered_map<rocprofiler_agent_id_t, int> dispatches;
    ++dispatches[rocprofiler_agent_id_t{1}];
    ++dispatches[rocprofiler_agent_id_t{1}];
    ++dispatches[rocprofiler_agent_id_t{2}];
    CHECK(dispatches.size() == 2);
    CHECK(dispatches.at(rocprofiler_agent_id_t{1}) == 2);
    std::unordered_set<hsa_amd_memory_pool_t> pools{hsa_amd_memory_pool_t{1}, hsa_amd_memory_pool_t{1}};
    CHECK(pools.size() == 1);
    // The handle types of the buffer and counter parts too.
    CHECK(std::hash<rocprofiler_callback_thread_t>{}(rocprofiler_callback_thread_t{7}) == 7);
    CHECK(std::hash<rocprofiler_counter_id_t>{}(rocprofiler_counter_id_t{8}) == 8);
    CHECK(std::hash<rocprofiler_counter_config_id_t>{}(rocprofiler_counter_config_id_t{9}) == 9);
}

TEST_CASE("as_hex pads to the width asked, prints pointers by address") {
    CHECK(sdk::utility::as_hex(255) == "0xff");
    CHECK(sdk::utility::as_hex(255, 4) == "0x00ff");
    CHECK(sdk::utility::as_hex(uint64_t{0}, 2) == "0x00");
    int x = 0;
    const std::string p = sdk::utility::as_hex(&x);
    CHECK(p.rfind("0x", 0) == 0);
    CHECK(std::stoull(p.substr(2), nullptr, 16) == reinterpret_cast<uintptr_t>(&x));
}
