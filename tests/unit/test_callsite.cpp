#include <catch.hpp>

#include "papshim/callsite.hpp"

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
