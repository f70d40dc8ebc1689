#include "papshim/callsite.hpp"

#include <dlfcn.h>
#include <link.h>
#include <unistd.h>
#define UNW_LOCAL_ONLY
#include <libunwind.h>

#include <fmt/format.h>

#include <array>
#include <cstdio>
#include <map>

namespace papshim {
namespace {

std::string basename_of(const std::string& path) {
    auto slash = path.rfind('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

bool contains(const std::string& s, const char* part) { return s.find(part) != std::string::npos; }

// This library's own frames are never a call site.
bool is_papshim_module(const std::string& path) { return contains(basename_of(path), "libpapshim"); }

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

ResolvedAddress resolve_address(const void* address) {
    ResolvedAddress out;
    Dl_info info{};
    link_map* map = nullptr;
    if (dladdr1(address, &info, reinterpret_cast<void**>(&map), RTLD_DL_LINKMAP) == 0 || map == nullptr) {
        out.module_path = "?";
        out.offset = reinterpret_cast<std::uintptr_t>(address);
        out.function = "?";
        return out;
    }
    // l_addr is the load bias: 0 for a non-PIE executable, so the offset is then the link
    // address, which is what addr2line expects in both cases.
    out.offset = reinterpret_cast<std::uintptr_t>(address) - map->l_addr;
    out.module_path = info.dli_fname && *info.dli_fname ? info.dli_fname : "?";
    if (out.module_path == "?" || map->l_name == nullptr || map->l_name[0] == '\0') {
        // The main executable has an empty l_name; /proc/self/exe names it.
        std::array<char, 4096> exe{};
        ssize_t n = readlink("/proc/self/exe", exe.data(), exe.size() - 1);
        if (n > 0) out.module_path.assign(exe.data(), std::size_t(n));
    }
    out.function = info.dli_sname ? info.dli_sname : "?";
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
            site.function = resolved.function;
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
            // addr2line demangles and sees static functions; dladdr only sees exported names.
            if (function != "??") sites_[i].function = function;
            if (location.rfind("??", 0) != 0) {
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
