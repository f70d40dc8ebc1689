#include "papshim/callsite.hpp"

#include <cxxabi.h>
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <unistd.h>
#define UNW_LOCAL_ONLY
#include <libunwind.h>

#include <fmt/format.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <tuple>

namespace papshim {
namespace {

std::string basename_of(const std::string& path) {
    auto slash = path.rfind('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

bool contains(const std::string& s, const char* part) { return s.find(part) != std::string::npos; }

// This library's own frames are never a call site.
bool is_papshim_module(const std::string& path) { return contains(basename_of(path), "libpapshim"); }

std::string demangle(const char* name) {
    int status = 0;
    std::unique_ptr<char, decltype(&std::free)> plain(abi::__cxa_demangle(name, nullptr, nullptr, &status), &std::free);
    return status == 0 && plain ? std::string(plain.get()) : std::string(name);
}

// "symbol+0xOFF", OFF from the symbol's start to the return address (the key's offset).
std::string symbol_name(const char* mangled, std::uintptr_t start, std::uintptr_t call_offset) {
    return fmt::format("{}+{:#x}", demangle(mangled), call_offset + 1 - start);
}

// The function symbols of one ELF file of this process's kind (ElfW), from .symtab (all
// functions, unless stripped) and .dynsym (the exported ones). Read once per module when
// the sites are symbolised; an unreadable file leaves readable() false.
class ElfFunctions {
    static constexpr unsigned char native_class = __ELF_NATIVE_CLASS == 64 ? ELFCLASS64 : ELFCLASS32;

public:
    explicit ElfFunctions(const std::string& path) : file_(path, std::ios::binary) {
        ElfW(Ehdr) header{};
        if (!read_at(0, &header, sizeof header) || std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 ||
            header.e_ident[EI_CLASS] != native_class || header.e_shentsize != sizeof(ElfW(Shdr)))
            return;
        std::vector<ElfW(Shdr)> sections(header.e_shnum);
        if (header.e_shnum == 0 && header.e_shoff != 0) {  // more sections than e_shnum holds
            ElfW(Shdr) first{};
            if (!read_at(header.e_shoff, &first, sizeof first)) return;
            sections.resize(first.sh_size);
        }
        if (!read_at(header.e_shoff, sections.data(), sections.size() * sizeof(ElfW(Shdr)))) return;
        for (const auto& section : sections) {
            if ((section.sh_type != SHT_SYMTAB && section.sh_type != SHT_DYNSYM) || section.sh_link >= sections.size())
                continue;
            if (!load_table(section, sections[section.sh_link])) return;
        }
        readable_ = true;
    }
    bool readable() const { return readable_; }

    // "symbol+0xOFF" for the function whose [start, start + size) holds `call_offset`, or "?"
    // when none does: a symbol of size 0 cannot vouch for anything past its start.
    std::string name_at(std::uintptr_t call_offset) const {
        const Symbol* best = nullptr;
        for (const auto& symbol : symbols_) {
            if (call_offset < symbol.start || call_offset - symbol.start >= symbol.size) continue;
            // Aliases: global before weak before local, then the smaller name, so every rank agrees.
            if (!best || std::tie(best->binding_rank, symbol.name) < std::tie(symbol.binding_rank, best->name))
                best = &symbol;
        }
        return best ? symbol_name(best->name.c_str(), best->start, call_offset) : "?";
    }

private:
    struct Symbol {
        std::uintptr_t start, size;
        std::string name;  // mangled
        int binding_rank;  // global 2, weak 1, local 0
    };

    bool read_at(std::uint64_t offset, void* into, std::size_t bytes) {
        file_.seekg(std::streamoff(offset));
        file_.read(static_cast<char*>(into), std::streamsize(bytes));
        return bool(file_);
    }

    bool load_table(const ElfW(Shdr)& table, const ElfW(Shdr)& strings) {
        if (table.sh_entsize != sizeof(ElfW(Sym))) return false;
        std::vector<ElfW(Sym)> entries(table.sh_size / sizeof(ElfW(Sym)));
        std::string text(strings.sh_size, '\0');
        if (!read_at(table.sh_offset, entries.data(), entries.size() * sizeof(ElfW(Sym))) ||
            !read_at(strings.sh_offset, text.data(), text.size()))
            return false;
        for (const auto& entry : entries) {
            const auto type = ELF64_ST_TYPE(entry.st_info);  // the same bits in ELF32
            if ((type != STT_FUNC && type != STT_GNU_IFUNC) || entry.st_shndx == SHN_UNDEF || entry.st_size == 0 ||
                entry.st_name >= text.size())
                continue;
            const auto binding = ELF64_ST_BIND(entry.st_info);
            symbols_.push_back({entry.st_value, entry.st_size, std::string(text.c_str() + entry.st_name),
                                binding == STB_GLOBAL ? 2 : binding == STB_WEAK ? 1 : 0});
        }
        return true;
    }

    std::ifstream file_;
    bool readable_ = false;
    std::vector<Symbol> symbols_;
};

}  // namespace

std::string normalise_frame(const std::string& module_path, std::uintptr_t offset) {
    return fmt::format("{}+{:#x}", basename_of(module_path), offset);
}

bool is_mpi_binding_module(const std::string& module_path) {
    const std::string name = basename_of(module_path);
    // mpi4py's extension module is kept: its frame tells Comm.Allgather from Comm.Allreduce,
    // where the interpreter's frames above it would all look alike.
    return name.rfind("libmpi", 0) == 0 || name.rfind("libmpich", 0) == 0 || name.rfind("libpmpi", 0) == 0;
}

const std::string& executable_path() {
    // Read once: a readlink costs tens of µs, paid on the first traced call otherwise. Never
    // destroyed, as runtime::state(): MPI_Finalize may run from an exit handler.
    static const std::string& path = *new std::string([] {
        std::array<char, 4096> exe{};
        const ssize_t n = readlink("/proc/self/exe", exe.data(), exe.size() - 1);
        return n > 0 ? std::string(exe.data(), std::size_t(n)) : std::string("?");
    }());
    return path;
}

ResolvedAddress resolve_address(const void* address) {
    ResolvedAddress out;
    Dl_info info{};
    link_map* map = nullptr;
    if (dladdr1(address, &info, reinterpret_cast<void**>(&map), RTLD_DL_LINKMAP) == 0 || map == nullptr) {
        out.module_path = "?";
        out.offset = reinterpret_cast<std::uintptr_t>(address);
        return out;
    }
    // l_addr is the load bias: 0 for a non-PIE executable, so the offset is then the link
    // address, which is what addr2line expects in both cases.
    out.offset = reinterpret_cast<std::uintptr_t>(address) - map->l_addr;
    out.module_path = info.dli_fname && *info.dli_fname ? info.dli_fname : "?";
    if (out.module_path == "?" || map->l_name == nullptr || map->l_name[0] == '\0') {
        // The main executable has an empty l_name; /proc/self/exe names it.
        if (const std::string& exe = executable_path(); exe != "?") out.module_path = exe;
    }
    // The symbol only if the address lies inside it: glibc checks the size, other C
    // libraries' dladdr may return the nearest symbol below.
    void* entry = nullptr;
    if (info.dli_sname && info.dli_saddr && dladdr1(address, &info, &entry, RTLD_DL_SYMENT) != 0 && entry) {
        const auto* symbol = static_cast<const ElfW(Sym)*>(entry);
        const auto start = reinterpret_cast<std::uintptr_t>(info.dli_saddr);
        if (reinterpret_cast<std::uintptr_t>(address) - start < symbol->st_size) {
            out.symbol = info.dli_sname;
            out.symbol_offset = start - map->l_addr;
        }
    }
    return out;
}

std::uint32_t CallSiteTable::intern(const std::vector<const void*>& frames) {
    std::string key;
    Site site;
    for (std::size_t i = 0; i < frames.size(); ++i) {
        // A return address points after the call; −1 lands inside the call instruction.
        auto resolved = resolve_address(static_cast<const char*>(frames[i]) - 1);
        if (!key.empty()) key += ';';
        key += normalise_frame(resolved.module_path, resolved.offset + 1);
        if (i == 0) {
            site.function = resolved.symbol ? symbol_name(resolved.symbol, resolved.symbol_offset, resolved.offset) : "?";
            site.module_path = resolved.module_path;
            site.offset = resolved.offset;
        }
    }
    if (frames.empty()) key = "?";
    if (auto known = by_key_.find(key); known != by_key_.end()) return known->second;
    site.key = key;
    auto id = static_cast<std::uint32_t>(sites_.size());
    sites_.push_back(std::move(site));
    by_key_.emplace(key, id);
    return id;
}

std::uint32_t CallSiteTable::identify(const void* caller, bool& reusable) {
    reusable = false;
    if (auto cached = fast_.find(caller); cached != fast_.end()) {
        reusable = true;
        return cached->second;
    }

    const bool caller_is_application = [&] {
        auto resolved = resolve_address(static_cast<const char*>(caller) - 1);
        return !is_mpi_binding_module(resolved.module_path) && !is_papshim_module(resolved.module_path);
    }();
    if (depth_ == 1 && caller_is_application) {
        auto site = intern({caller});
        fast_.emplace(caller, site);
        reusable = true;
        return site;
    }

    // Walk the stack: skip papshim's and the MPI bindings' frames, keep `depth_` frames.
    std::array<void*, 64> stack{};
    int n = unw_backtrace(stack.data(), int(stack.size()));
    std::vector<const void*> frames;
    bool in_application = false;
    for (int i = 0; i < n && int(frames.size()) < depth_; ++i) {
        if (!in_application) {
            auto resolved = resolve_address(static_cast<const char*>(stack[std::size_t(i)]) - 1);
            if (is_papshim_module(resolved.module_path) || is_mpi_binding_module(resolved.module_path)) continue;
            in_application = true;
        }
        frames.push_back(stack[std::size_t(i)]);
    }
    return intern(frames);
}

void CallSiteTable::symbolise() {
    // One addr2line per module, with every address of that module on its command line.
    std::map<std::string, std::vector<std::size_t>> by_module;
    for (std::size_t i = 0; i < sites_.size(); ++i)
        if (!sites_[i].module_path.empty() && sites_[i].module_path != "?")
            by_module[sites_[i].module_path].push_back(i);
    for (const auto& [module, indices] : by_module) {
        // Symbol-table names first, each checked against its symbol's size; an unreadable
        // file keeps the names dladdr gave, which were checked the same way.
        if (const ElfFunctions symbols(module); symbols.readable())
            for (auto i : indices) sites_[i].function = symbols.name_at(sites_[i].offset);
        // Debug information, where it exists, names the function and file:line. Where it does
        // not, addr2line prints "??" as the location and, as the function, the nearest symbol
        // below the address however far past its end: that name is not used.
        std::string command = fmt::format("addr2line -C -f -e '{}'", module);
        for (auto i : indices) command += fmt::format(" {:#x}", sites_[i].offset);
        command += " 2>/dev/null";
        FILE* pipe = popen(command.c_str(), "r");
        if (!pipe) continue;
        std::array<char, 4096> line{};
        for (auto i : indices) {
            std::string function, location;
            if (!fgets(line.data(), int(line.size()), pipe)) break;
            function = line.data();
            if (!fgets(line.data(), int(line.size()), pipe)) break;
            location = line.data();
            auto trim = [](std::string& s) { while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back(); };
            trim(function);
            trim(location);
            if (location.rfind("??", 0) != 0) {
                if (function != "??") sites_[i].function = function;
                // "file:line (discriminator N)" -> "file:line"
                auto space = location.find(' ');
                if (space != std::string::npos) location.resize(space);
                sites_[i].location = location;
            }
        }
        pclose(pipe);
    }
}

}  // namespace papshim
