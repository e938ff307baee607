// encore-sim: code objects, executables, symbols, loader extension.
#include <doctest/doctest.h>

#include "sim_test_util.hpp"

#include <dlfcn.h>
#include <link.h>

#include <set>

using namespace simtest;

namespace {
struct Rt {
    Rt() { REQUIRE(hsa_init() == HSA_STATUS_SUCCESS); }
    ~Rt() { CHECK(hsa_shut_down() == HSA_STATUS_SUCCESS); }
};

std::vector<char> read_all(const char* path) {
    std::vector<char> bytes;
    int fd = open(path, O_RDONLY);
    char buf[65536];
    for (ssize_t n; (n = read(fd, buf, sizeof buf)) > 0;) bytes.insert(bytes.end(), buf, buf + n);
    close(fd);
    return bytes;
}

std::string symbol_name(hsa_executable_symbol_t s) {
    uint32_t len = 0;
    hsa_executable_symbol_get_info(s, HSA_EXECUTABLE_SYMBOL_INFO_NAME_LENGTH, &len);
    std::string name(len, '\0');
    hsa_executable_symbol_get_info(s, HSA_EXECUTABLE_SYMBOL_INFO_NAME, name.data());
    return name;
}
}  // namespace

TEST_CASE("loading a code object from a file; symbol lookup and info") {
    Rt rt;
    hsa_agent_t g = gpu();
    Program prog(g);
    REQUIRE(prog.status == HSA_STATUS_SUCCESS);
    hsa_executable_symbol_t k1{}, k2{};
    CHECK(hsa_executable_get_symbol_by_name(prog.exe, "fill_ids", &g, &k1) == HSA_STATUS_SUCCESS);
    CHECK(hsa_executable_get_symbol_by_name(prog.exe, "fill_ids.kd", &g, &k2) == HSA_STATUS_SUCCESS);
    CHECK(k1.handle == k2.handle);
    CHECK(symbol_name(k1) == "fill_ids.kd");
    hsa_symbol_kind_t kind{};
    CHECK(hsa_executable_symbol_get_info(k1, HSA_EXECUTABLE_SYMBOL_INFO_TYPE, &kind) == HSA_STATUS_SUCCESS);
    CHECK(kind == HSA_SYMBOL_KIND_KERNEL);
    uint32_t v = 0;
    CHECK(hsa_executable_symbol_get_info(k1, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE, &v) ==
          HSA_STATUS_SUCCESS);
    CHECK(v == 16);
    CHECK(hsa_executable_symbol_get_info(k1, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_ALIGNMENT, &v) ==
          HSA_STATUS_SUCCESS);
    CHECK(v == 16);
    hsa_executable_symbol_t gs = prog.symbol("group_sum", g);
    CHECK(hsa_executable_symbol_get_info(gs, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE, &v) ==
          HSA_STATUS_SUCCESS);
    CHECK(v == 4096);
    CHECK(hsa_executable_symbol_get_info(gs, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_PRIVATE_SEGMENT_SIZE, &v) ==
          HSA_STATUS_SUCCESS);
    CHECK(v == 16);
    uint64_t ko = 0;
    CHECK(hsa_executable_symbol_get_info(k1, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT, &ko) == HSA_STATUS_SUCCESS);
    CHECK(ko != 0);
    CHECK(ko % 64 == 0);
    CHECK(reinterpret_cast<const uint32_t*>(ko)[2] == 16);  // kernarg size, like a kernel descriptor
    hsa_agent_t owner{};
    CHECK(hsa_executable_symbol_get_info(k1, HSA_EXECUTABLE_SYMBOL_INFO_AGENT, &owner) == HSA_STATUS_SUCCESS);
    CHECK(owner.handle == g.handle);

    hsa_executable_symbol_t var = prog.symbol("counter", g);
    CHECK(hsa_executable_symbol_get_info(var, HSA_EXECUTABLE_SYMBOL_INFO_TYPE, &kind) == HSA_STATUS_SUCCESS);
    CHECK(kind == HSA_SYMBOL_KIND_VARIABLE);
    CHECK(symbol_name(var) == "counter");
    CHECK(hsa_executable_symbol_get_info(var, HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_SIZE, &v) == HSA_STATUS_SUCCESS);
    CHECK(v == 4);
    CHECK(hsa_executable_symbol_get_info(var, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT, &ko) ==
          HSA_STATUS_ERROR_INVALID_ARGUMENT);
    hsa_executable_symbol_t table = prog.symbol("magic_table", g);
    uint64_t addr = 0;
    CHECK(hsa_executable_symbol_get_info(table, HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_ADDRESS, &addr) == HSA_STATUS_SUCCESS);
    CHECK(reinterpret_cast<const uint32_t*>(addr)[0] == 0xC0DE);
    bool is_const = false;
    CHECK(hsa_executable_symbol_get_info(table, HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_IS_CONST, &is_const) ==
          HSA_STATUS_SUCCESS);
    CHECK(is_const);

    std::set<std::string> names;
    CHECK(hsa_executable_iterate_symbols(
              prog.exe,
              [](hsa_executable_t, hsa_executable_symbol_t s, void* d) {
                  static_cast<std::set<std::string>*>(d)->insert(symbol_name(s));
                  return HSA_STATUS_SUCCESS;
              },
              &names) == HSA_STATUS_SUCCESS);
    CHECK(names == std::set<std::string>{"noop.kd", "fill_ids.kd", "record_order.kd", "bump_counter.kd", "group_sum.kd",
                                         "meet.kd", "counter", "magic_table"});
    int agent_syms = 0;
    CHECK(hsa_executable_iterate_agent_symbols(
              prog.exe, g,
              [](hsa_executable_t, hsa_agent_t, hsa_executable_symbol_t, void* d) {
                  ++*static_cast<int*>(d);
                  return HSA_STATUS_SUCCESS;
              },
              &agent_syms) == HSA_STATUS_SUCCESS);
    CHECK(agent_syms == 8);
    int prog_syms = 0;
    CHECK(hsa_executable_iterate_program_symbols(
              prog.exe,
              [](hsa_executable_t, hsa_executable_symbol_t, void* d) {
                  ++*static_cast<int*>(d);
                  return HSA_STATUS_SUCCESS;
              },
              &prog_syms) == HSA_STATUS_SUCCESS);
    CHECK(prog_syms == 0);
    hsa_executable_state_t state{};
    CHECK(hsa_executable_get_info(prog.exe, HSA_EXECUTABLE_INFO_STATE, &state) == HSA_STATUS_SUCCESS);
    CHECK(state == HSA_EXECUTABLE_STATE_FROZEN);

    // Errors.
    hsa_executable_symbol_t none{};
    CHECK(hsa_executable_get_symbol_by_name(prog.exe, "nope", &g, &none) == HSA_STATUS_ERROR_INVALID_SYMBOL_NAME);
    CHECK(hsa_executable_get_symbol_by_name(prog.exe, nullptr, &g, &none) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK(hsa_executable_get_symbol_by_name(hsa_executable_t{3}, "noop", &g, &none) ==
          HSA_STATUS_ERROR_INVALID_EXECUTABLE);
    CHECK(hsa_executable_symbol_get_info(hsa_executable_symbol_t{8}, HSA_EXECUTABLE_SYMBOL_INFO_TYPE, &kind) ==
          HSA_STATUS_ERROR_INVALID_EXECUTABLE_SYMBOL);
    CHECK(hsa_executable_load_agent_code_object(prog.exe, g, prog.reader, nullptr, nullptr) ==
          HSA_STATUS_ERROR_FROZEN_EXECUTABLE);
    CHECK(hsa_executable_freeze(prog.exe, nullptr) == HSA_STATUS_ERROR_FROZEN_EXECUTABLE);
}

TEST_CASE("loading from memory; loader extension iteration and queries") {
    Rt rt;
    hsa_agent_t g = gpu();
    std::vector<char> bytes = read_all(code_object_path());
    REQUIRE(!bytes.empty());
    hsa_code_object_reader_t reader{};
    REQUIRE(hsa_code_object_reader_create_from_memory(bytes.data(), bytes.size(), &reader) == HSA_STATUS_SUCCESS);
    hsa_executable_t exe{};
    REQUIRE(hsa_executable_create_alt(HSA_PROFILE_FULL, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, nullptr, &exe) ==
            HSA_STATUS_SUCCESS);
    hsa_loaded_code_object_t lco{};
    REQUIRE(hsa_executable_load_agent_code_object(exe, g, reader, nullptr, &lco) == HSA_STATUS_SUCCESS);
    CHECK(lco.handle != 0);
    // Also load the same file via an fd into the same executable: two loaded code objects.
    int fd = open(code_object_path(), O_RDONLY);
    hsa_code_object_reader_t file_reader{};
    REQUIRE(hsa_code_object_reader_create_from_file(fd, &file_reader) == HSA_STATUS_SUCCESS);
    REQUIRE(hsa_executable_load_agent_code_object(exe, g, file_reader, nullptr, nullptr) == HSA_STATUS_SUCCESS);
    REQUIRE(hsa_executable_freeze(exe, nullptr) == HSA_STATUS_SUCCESS);

    hsa_ven_amd_loader_1_01_pfn_t ext{};
    REQUIRE(hsa_system_get_major_extension_table(HSA_EXTENSION_AMD_LOADER, 1, sizeof ext, &ext) == HSA_STATUS_SUCCESS);
    REQUIRE(reinterpret_cast<void*>(ext.hsa_ven_amd_loader_executable_iterate_loaded_code_objects) != nullptr);
    std::vector<hsa_loaded_code_object_t> cos;
    CHECK(ext.hsa_ven_amd_loader_executable_iterate_loaded_code_objects(
              exe,
              [](hsa_executable_t, hsa_loaded_code_object_t c, void* d) {
                  static_cast<std::vector<hsa_loaded_code_object_t>*>(d)->push_back(c);
                  return HSA_STATUS_SUCCESS;
              },
              &cos) == HSA_STATUS_SUCCESS);
    REQUIRE(cos.size() == 2);
    CHECK(cos[0].handle == lco.handle);

    auto info = [&](hsa_loaded_code_object_t c, hsa_ven_amd_loader_loaded_code_object_info_t a, void* v) {
        return ext.hsa_ven_amd_loader_loaded_code_object_get_info(c, a, v);
    };
    hsa_executable_t owner{};
    CHECK(info(cos[0], HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_EXECUTABLE, &owner) == HSA_STATUS_SUCCESS);
    CHECK(owner.handle == exe.handle);
    uint32_t kind = 0, storage = 0;
    CHECK(info(cos[0], HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_KIND, &kind) == HSA_STATUS_SUCCESS);
    CHECK(kind == HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_KIND_AGENT);
    hsa_agent_t agent{};
    CHECK(info(cos[0], HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_AGENT, &agent) == HSA_STATUS_SUCCESS);
    CHECK(agent.handle == g.handle);
    CHECK(info(cos[0], HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_CODE_OBJECT_STORAGE_TYPE, &storage) ==
          HSA_STATUS_SUCCESS);
    CHECK(storage == HSA_VEN_AMD_LOADER_CODE_OBJECT_STORAGE_TYPE_MEMORY);
    uint64_t mem_base = 0, mem_size = 0;
    CHECK(info(cos[0], HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_CODE_OBJECT_STORAGE_MEMORY_BASE, &mem_base) ==
          HSA_STATUS_SUCCESS);
    CHECK(mem_base == reinterpret_cast<uint64_t>(bytes.data()));
    CHECK(info(cos[0], HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_CODE_OBJECT_STORAGE_MEMORY_SIZE, &mem_size) ==
          HSA_STATUS_SUCCESS);
    CHECK(mem_size == bytes.size());
    CHECK(info(cos[1], HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_CODE_OBJECT_STORAGE_TYPE, &storage) ==
          HSA_STATUS_SUCCESS);
    CHECK(storage == HSA_VEN_AMD_LOADER_CODE_OBJECT_STORAGE_TYPE_FILE);
    int file = -1;
    CHECK(info(cos[1], HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_CODE_OBJECT_STORAGE_FILE, &file) == HSA_STATUS_SUCCESS);
    CHECK(file == fd);

    uint32_t uri_len = 0;
    CHECK(info(cos[1], HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_URI_LENGTH, &uri_len) == HSA_STATUS_SUCCESS);
    std::string uri(uri_len, '\0');
    CHECK(info(cos[1], HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_URI, uri.data()) == HSA_STATUS_SUCCESS);
    CHECK(uri.rfind("file://", 0) == 0);
    CHECK(uri.find("#offset=0&size=" + std::to_string(bytes.size())) != std::string::npos);
    CHECK(info(cos[0], HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_URI_LENGTH, &uri_len) == HSA_STATUS_SUCCESS);
    uri.assign(uri_len, '\0');
    CHECK(info(cos[0], HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_URI, uri.data()) == HSA_STATUS_SUCCESS);
    CHECK(uri.rfind("memory://", 0) == 0);

    uint64_t base = 0, size = 0;
    int64_t delta = 0;
    CHECK(info(cos[0], HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_LOAD_BASE, &base) == HSA_STATUS_SUCCESS);
    CHECK(info(cos[0], HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_LOAD_SIZE, &size) == HSA_STATUS_SUCCESS);
    CHECK(info(cos[0], HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_LOAD_DELTA, &delta) == HSA_STATUS_SUCCESS);
    CHECK(base != 0);
    CHECK(size > 0);
    // Each load has its own copy: variables of the two loads live at different addresses, and
    // each variable lies inside its own loaded code object.
    std::vector<uint64_t> var_addrs;
    CHECK(hsa_executable_iterate_symbols(
              exe,
              [](hsa_executable_t, hsa_executable_symbol_t s, void* d) {
                  if (symbol_name(s) == "counter") {
                      uint64_t a = 0;
                      hsa_executable_symbol_get_info(s, HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_ADDRESS, &a);
                      static_cast<std::vector<uint64_t>*>(d)->push_back(a);
                  }
                  return HSA_STATUS_SUCCESS;
              },
              &var_addrs) == HSA_STATUS_SUCCESS);
    REQUIRE(var_addrs.size() == 2);
    CHECK(var_addrs[0] != var_addrs[1]);
    CHECK(var_addrs[0] >= base);
    CHECK(var_addrs[0] < base + size);

    const void* host = nullptr;
    CHECK(ext.hsa_ven_amd_loader_query_host_address(reinterpret_cast<const void*>(var_addrs[0]), &host) ==
          HSA_STATUS_SUCCESS);
    CHECK(host == reinterpret_cast<const void*>(var_addrs[0]));
    int local = 0;
    CHECK(ext.hsa_ven_amd_loader_query_host_address(&local, &host) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
    // Kernel objects are device addresses of their code object (descriptor readable on the host).
    hsa_executable_symbol_t ksym{};
    REQUIRE(hsa_executable_get_symbol_by_name(exe, "fill_ids.kd", &g, &ksym) == HSA_STATUS_SUCCESS);
    uint64_t ko = 0;
    hsa_executable_symbol_get_info(ksym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT, &ko);
    CHECK(ext.hsa_ven_amd_loader_query_host_address(reinterpret_cast<const void*>(ko), &host) == HSA_STATUS_SUCCESS);
    CHECK(host == reinterpret_cast<const void*>(ko));
    CHECK(static_cast<const uint32_t*>(host)[2] == 16);  // kernarg size
    hsa_executable_t kexe{};
    CHECK(ext.hsa_ven_amd_loader_query_executable(reinterpret_cast<const void*>(ko), &kexe) == HSA_STATUS_SUCCESS);
    CHECK(kexe.handle == exe.handle);
    hsa_executable_t found{};
    CHECK(ext.hsa_ven_amd_loader_query_executable(reinterpret_cast<const void*>(var_addrs[1]), &found) ==
          HSA_STATUS_SUCCESS);
    CHECK(found.handle == exe.handle);
    // Debugger view: ROCr's _amdgpu_r_debug link_map chain lists the loaded code objects.
    auto* rdbg = static_cast<r_debug*>(dlsym(RTLD_DEFAULT, "_amdgpu_r_debug"));
    REQUIRE(rdbg != nullptr);
    std::vector<std::string> chain;
    for (link_map* m = rdbg->r_map; m; m = m->l_next) chain.emplace_back(m->l_name);
    REQUIRE(chain.size() == 2);
    CHECK(chain[0].rfind("memory://", 0) == 0);
    CHECK(chain[1].rfind("file://", 0) == 0);
    size_t nseg = 0;
    CHECK(ext.hsa_ven_amd_loader_query_segment_descriptors(nullptr, &nseg) == HSA_STATUS_SUCCESS);
    CHECK(nseg == 2);

    // The loaded code objects disappear with the executable.
    CHECK(hsa_executable_destroy(exe) == HSA_STATUS_SUCCESS);
    CHECK(info(cos[0], HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_KIND, &kind) == HSA_STATUS_ERROR_INVALID_CODE_OBJECT);
    CHECK(hsa_executable_destroy(exe) == HSA_STATUS_ERROR_INVALID_EXECUTABLE);
    CHECK(rdbg->r_map == nullptr);
    CHECK(hsa_code_object_reader_destroy(reader) == HSA_STATUS_SUCCESS);
    CHECK(hsa_code_object_reader_destroy(reader) == HSA_STATUS_ERROR_INVALID_CODE_OBJECT_READER);
    CHECK(hsa_code_object_reader_destroy(file_reader) == HSA_STATUS_SUCCESS);
    close(fd);
}

TEST_CASE("code object errors") {
    Rt rt;
    hsa_agent_t g = gpu();
    hsa_code_object_reader_t reader{};
    CHECK(hsa_code_object_reader_create_from_file(-1, &reader) == HSA_STATUS_ERROR_INVALID_FILE);
    CHECK(hsa_code_object_reader_create_from_memory(nullptr, 10, &reader) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
    const char junk[] = "this is not an ELF shared object";
    REQUIRE(hsa_code_object_reader_create_from_memory(junk, sizeof junk, &reader) == HSA_STATUS_SUCCESS);
    hsa_executable_t exe{};
    REQUIRE(hsa_executable_create_alt(HSA_PROFILE_FULL, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, nullptr, &exe) ==
            HSA_STATUS_SUCCESS);
    CHECK(hsa_executable_load_agent_code_object(exe, g, reader, nullptr, nullptr) == HSA_STATUS_ERROR_INVALID_CODE_OBJECT);
    CHECK(hsa_executable_load_agent_code_object(exe, g, hsa_code_object_reader_t{5}, nullptr, nullptr) ==
          HSA_STATUS_ERROR_INVALID_CODE_OBJECT_READER);
    CHECK(hsa_executable_load_agent_code_object(exe, cpu(), reader, nullptr, nullptr) == HSA_STATUS_ERROR_INVALID_AGENT);
    CHECK(hsa_executable_load_agent_code_object(hsa_executable_t{9}, g, reader, nullptr, nullptr) ==
          HSA_STATUS_ERROR_INVALID_EXECUTABLE);
    // A valid shared library without the descriptor is not a code object.
    const char* not_co = getenv("ENCORE_SIM_TEST_NOT_CO");
    if (not_co) {
        Program p(g, not_co);
        CHECK(p.status == HSA_STATUS_ERROR_INVALID_CODE_OBJECT);
    }
    CHECK(hsa_executable_create_alt(HSA_PROFILE_FULL, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, nullptr, nullptr) ==
          HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK(hsa_executable_destroy(exe) == HSA_STATUS_SUCCESS);
    CHECK(hsa_code_object_reader_destroy(reader) == HSA_STATUS_SUCCESS);
}
