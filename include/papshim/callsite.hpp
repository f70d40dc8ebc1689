// Call-site identification (DESIGN §5): the return addresses above the MPI call,
// normalised to module + offset so they are stable under ASLR and identical on every rank
// running the same binary, and symbolised to function and file:line where debug
// information exists.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace papshim {

struct Frame {
    std::string module;      // basename of the shared object or executable
    std::uintptr_t offset;   // address - module load base
    std::string function;    // from the symbol table ("?" when unknown)
};

// "module+0xoffset"
std::string normalise_frame(const std::string& module_path, std::uintptr_t offset);

// Frames of MPI libraries and their Fortran bindings (libmpi*, libmpich*, libmpifort*) are
// skipped so that the site is the application's line, not the binding's. mpi4py's module
// is kept: it is as close to the Python line as a native stack gets.
bool is_mpi_binding_module(const std::string& module_path);

// Resolves a raw address in this process: module path, offset and symbol name.
struct ResolvedAddress {
    std::string module_path;
    std::uintptr_t offset = 0;
    std::string function;
};
ResolvedAddress resolve_address(const void* address);

// Per-process table of distinct call sites; ids are local indices (never exchanged).
class CallSiteTable {
public:
    explicit CallSiteTable(int depth) : depth_(depth) {}
    // Identifies the call site of the current intercepted call. `caller` is the return
    // address of the exported MPI entry point (the fast path for depth 1). `reusable` says
    // whether the same caller always means this site (so callers may cache it).
    std::uint32_t identify(const void* caller, bool& reusable);

    struct Site {
        std::string key;        // frames joined by ';'
        std::string function;   // innermost application frame
        std::string module_path;
        std::uintptr_t offset = 0;
        std::string location;   // file:line, filled by symbolise()
    };
    const std::vector<Site>& sites() const { return sites_; }
    // Fills `location` via addr2line where debug information exists (once, at the end).
    void symbolise();

private:
    std::uint32_t intern(const std::vector<const void*>& frames);
    int depth_;
    std::vector<Site> sites_;
    std::unordered_map<const void*, std::uint32_t> fast_;  // caller -> site (depth 1, application callers)
    std::unordered_map<std::string, std::uint32_t> by_key_;
};

}  // namespace papshim
