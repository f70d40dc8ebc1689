// Call-site identification (DESIGN §5): the return addresses above the MPI call,
// normalised to module + offset so they are stable under ASLR and identical on every rank
// running the same binary, and symbolised to function and file:line where debug
// information exists. Without debug information a site is named "symbol+0xOFF" only when
// it lies inside that symbol (its ELF size says so), else "?": the nearest symbol below an
// address of a stripped library is often a function the address lies past the end of.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace papshim {

// "module+0xoffset"
std::string normalise_frame(const std::string& module_path, std::uintptr_t offset);

// Frames of MPI libraries and their Fortran bindings (libmpi*, libmpich*, libmpifort*) are
// skipped so that the site is the application's line, not the binding's. mpi4py's module
// is kept: it is as close to the Python line as a native stack gets.
bool is_mpi_binding_module(const std::string& module_path);

// Resolves a raw address in this process: module path, offset, and the exported symbol that
// holds it (dladdr: glibc checks the symbol's size, so an address past its end has none).
struct ResolvedAddress {
    std::string module_path;
    std::uintptr_t offset = 0;            // address - module load bias
    const char* symbol = nullptr;         // mangled; valid while the module is loaded
    std::uintptr_t symbol_offset = 0;     // the symbol's start, module-relative
};
ResolvedAddress resolve_address(const void* address);
// /proc/self/exe, read once ("?" if unreadable).
const std::string& executable_path();

// Per-process table of distinct call sites; ids are local indices (never exchanged).
class CallSiteTable {
public:
    // Reads the executable's path now (MPI_Init), not in the first traced call.
    explicit CallSiteTable(int depth) : depth_(depth) { executable_path(); }
    // Identifies the call site of the current intercepted call. `caller` is the return
    // address of the exported MPI entry point (the fast path for depth 1). `reusable` says
    // whether the same caller always means this site (so callers may cache it).
    std::uint32_t identify(const void* caller, bool& reusable);

    struct Site {
        std::string key;        // frames joined by ';'
        std::string function;   // innermost application frame: debug name, "symbol+0xOFF" or "?"
        std::string module_path;
        std::uintptr_t offset = 0;  // of the call instruction (the key's return address - 1)
        std::string location;   // file:line, filled by symbolise()
    };
    const std::vector<Site>& sites() const { return sites_; }
    // Once, at the end: where debug information exists, `function` and `location` from
    // addr2line; elsewhere `function` from the module's ELF symbol tables (.symtab, .dynsym),
    // checked against each symbol's size.
    void symbolise();

private:
    std::uint32_t intern(const std::vector<const void*>& frames);
    int depth_;
    std::vector<Site> sites_;
    std::unordered_map<const void*, std::uint32_t> fast_;  // caller -> site (depth 1, application callers)
    std::unordered_map<std::string, std::uint32_t> by_key_;
};

}  // namespace papshim
