#include <catch.hpp>

#include <dlfcn.h>
#include <link.h>

#include <fmt/format.h>

#include <unistd.h>

#include <bit>
#include <filesystem>
#include <fstream>

#include "papshim/callsite.hpp"
#include "papshim/report.hpp"
#include "papshim/trace_format.hpp"

using namespace papshim;

namespace {
volatile int calls = 0;  // a side effect, so two calls are never merged into one
__attribute__((noinline)) const void* where_am_i() {
    calls = calls + 1;
    return __builtin_return_address(0);
}
}  // namespace

TEST_CASE("frames are normalised to module basename and offset") {
    CHECK(normalise_frame("/usr/lib/libfoo.so.1", 0x1234) == "libfoo.so.1+0x1234");
    CHECK(normalise_frame("app", 0) == "app+0x0");
}

TEST_CASE("MPI binding modules are recognised") {
    CHECK(is_mpi_binding_module("/usr/lib/x86_64-linux-gnu/openmpi/lib/libmpi_mpifh.so.40"));
    CHECK(is_mpi_binding_module("/usr/lib/x86_64-linux-gnu/libmpich.so.12"));
    CHECK(is_mpi_binding_module("/usr/lib/x86_64-linux-gnu/libmpifort.so.12"));
    CHECK_FALSE(is_mpi_binding_module("/usr/lib/python3/dist-packages/mpi4py/MPI.cpython-311-x86_64-linux-gnu.so"));
    CHECK_FALSE(is_mpi_binding_module("/home/u/app"));
    CHECK_FALSE(is_mpi_binding_module("/usr/lib/libm.so.6"));
}

TEST_CASE("an address in this executable resolves to it, independent of the load address") {
    const void* here = where_am_i();
    auto resolved = resolve_address(here);
    CHECK(resolved.module_path.find("test_callsite") != std::string::npos);
    CHECK(resolved.offset != reinterpret_cast<std::uintptr_t>(here));  // PIE: the load bias is removed
}

TEST_CASE("the same caller gives the same site; different callers different sites") {
    CallSiteTable table(1);
    const void* a = where_am_i();
    const void* b = where_am_i();
    REQUIRE(a != b);
    bool reusable = false;
    auto first = table.identify(a, reusable);
    CHECK(reusable);  // an application caller at depth 1 always means the same site
    CHECK(table.identify(a, reusable) == first);
    CHECK(table.identify(b, reusable) != first);
    REQUIRE(table.sites().size() == 2);
    CHECK(table.sites()[first].key.rfind("test_callsite+0x", 0) == 0);
}

TEST_CASE("symbolisation finds this file and line when built with debug information") {
    CallSiteTable table(1);
    bool reusable = false;
    auto site = table.identify(where_am_i(), reusable);
    table.symbolise();
    const auto& s = table.sites()[site];
    CHECK(s.function.find("C_A_T_C_H") != std::string::npos);  // the enclosing Catch2 test function
    CHECK(s.location.find("test_callsite.cpp:") != std::string::npos);
}

TEST_CASE("deeper call sites join frames innermost first") {
    CallSiteTable table(3);
    bool reusable = true;
    auto site = table.identify(where_am_i(), reusable);
    CHECK_FALSE(reusable);  // deeper stacks differ behind the same caller
    const auto& key = table.sites()[site].key;
    CHECK(std::count(key.begin(), key.end(), ';') == 2);
}

namespace {
// One build of callsite_lib/symbols.c (no debug information), loaded as an application's
// library would be, with a call site inside each of its two functions, identified in `table`.
struct TestLibrary {
    using SiteFunction = const void* (*)();
    std::string path;
    void* handle = nullptr;
    std::uintptr_t bias = 0;  // module offset = address - bias
    std::uintptr_t exported_start = 0, exported_end = 0;  // papshim_testsym_exported, module offsets
    std::uintptr_t next_exported = 0;                     // papshim_testsym_local's entry
    const void* exported_site = nullptr;  // inside papshim_testsym_exported
    const void* local_site = nullptr;     // inside the local function placed after it
    CallSiteTable table{1};
    std::uint32_t exported = 0, local = 0;  // the two sites' ids in `table`

    explicit TestLibrary(const char* library) : path(library) {
        handle = dlopen(library, RTLD_NOW | RTLD_LOCAL);
        INFO(path << ": " << (handle ? "" : dlerror()));
        REQUIRE(handle != nullptr);
        auto exported_function = std::bit_cast<SiteFunction>(dlsym(handle, "papshim_testsym_exported"));
        auto local_function = std::bit_cast<SiteFunction>(dlsym(handle, "papshim_testsym_local"));
        REQUIRE(exported_function != nullptr);
        REQUIRE(local_function != nullptr);
        Dl_info info{};
        link_map* map = nullptr;
        void* symbol_entry = nullptr;
        auto* entry = std::bit_cast<void*>(exported_function);
        REQUIRE(dladdr1(entry, &info, reinterpret_cast<void**>(&map), RTLD_DL_LINKMAP) != 0);
        REQUIRE(dladdr1(entry, &info, &symbol_entry, RTLD_DL_SYMENT) != 0);
        const auto* symbol = static_cast<const ElfW(Sym)*>(symbol_entry);
        REQUIRE(symbol != nullptr);
        bias = map->l_addr;
        exported_start = reinterpret_cast<std::uintptr_t>(info.dli_saddr) - bias;
        exported_end = exported_start + symbol->st_size;
        next_exported = offset_of(std::bit_cast<const void*>(local_function));
        exported_site = exported_function();
        local_site = local_function();
        require_layout();
        bool reusable = false;
        exported = table.identify(exported_site, reusable);
        local = table.identify(local_site, reusable);
    }
    ~TestLibrary() { dlclose(handle); }
    TestLibrary(const TestLibrary&) = delete;
    TestLibrary& operator=(const TestLibrary&) = delete;

    std::uintptr_t offset_of(const void* site) const { return reinterpret_cast<std::uintptr_t>(site) - bias; }
    std::string exported_name() const {
        return fmt::format("papshim_testsym_exported+{:#x}", offset_of(exported_site) - exported_start);
    }
    std::string local_key() const {
        return fmt::format("{}+{:#x}", path.substr(path.rfind('/') + 1), offset_of(local_site));
    }

    // The layout the tests rely on: the exported site inside its function, the local site
    // past that function's end and below the next exported function. Then the nearest exported
    // symbol below the local site is papshim_testsym_exported, which it is not part of.
    void require_layout() const {
        INFO(fmt::format("papshim_testsym_exported [{:#x}, {:#x}), exported site {:#x}, local site {:#x}, "
                         "papshim_testsym_local {:#x}", exported_start, exported_end, offset_of(exported_site),
                         offset_of(local_site), next_exported));
        REQUIRE(offset_of(exported_site) > exported_start);
        REQUIRE(offset_of(exported_site) - 1 < exported_end);
        REQUIRE(offset_of(local_site) - 1 >= exported_end);
        REQUIRE(offset_of(local_site) < next_exported);
    }
};
}  // namespace

TEST_CASE("without debug information, a site past the end of the nearest exported symbol is '?'") {
    TestLibrary lib(PAPSHIM_TESTSYM_DYNSYM);
    const auto& sites = lib.table.sites();
    // Named from dladdr while the job runs, and from the file's symbol tables at the end:
    // neither may name the local site after the exported function.
    for (bool symbolised : {false, true}) {
        if (symbolised) lib.table.symbolise();
        INFO((symbolised ? "after symbolise()" : "before symbolise()"));
        CHECK(sites[lib.exported].function == lib.exported_name());
        CHECK(sites[lib.local].function == "?");
        CHECK(sites[lib.local].key == lib.local_key());
        CHECK(sites[lib.exported].location.empty());
        CHECK(sites[lib.local].location.empty());
    }
}

TEST_CASE("without debug information but with .symtab, a local function is named with its offset") {
    TestLibrary lib(PAPSHIM_TESTSYM_SYMTAB);
    lib.table.symbolise();
    const auto& sites = lib.table.sites();
    CHECK(sites[lib.exported].function == lib.exported_name());
    CHECK(sites[lib.local].function.rfind("local_after_exported+0x", 0) == 0);
    CHECK(sites[lib.local].key == lib.local_key());
    CHECK(sites[lib.local].location.empty());
}

TEST_CASE("recovering a dead job's trace keeps the size-checked name where addr2line has no file:line") {
    TestLibrary lib(PAPSHIM_TESTSYM_DYNSYM);
    const auto& sites = lib.table.sites();
    const std::string dir = (std::filesystem::temp_directory_path() /
                             fmt::format("papshim-callsite-recover-{}", ::getpid())).string();
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    // What a running job's index holds: names from dladdr, no location, module and offset.
    trace::Index index;
    index.names = {{"allreduce"}, {"native"}, {}};
    for (std::uint32_t id : {lib.exported, lib.local})
        index.sites.push_back({sites[id].key, sites[id].function, "", sites[id].module_path, sites[id].offset});
    std::string error;
    REQUIRE(trace::write_index(dir, index, error));
    std::ofstream(trace::spill_path(dir, 0)).flush();  // no records
    report::recover_directory(dir);
    const auto recovered = trace::read_index(trace::index_path(dir, 0));
    REQUIRE(recovered.sites.size() == 2);
    // addr2line would call the local site "papshim_testsym_exported" (nearest symbol before it).
    CHECK(recovered.sites[0].function == lib.exported_name());
    CHECK(recovered.sites[1].function == "?");
    CHECK(recovered.sites[1].location.empty());
    std::filesystem::remove_all(dir);
}
