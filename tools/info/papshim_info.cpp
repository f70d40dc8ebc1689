// papshim-info: what this build of papshim knows — its variables (the single source that
// papshim-run --help and the README's table come from), algorithms and version.
#include <fmt/format.h>

#include <cstring>
#include <map>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "papshim/algorithms.hpp"
#include "papshim/config.hpp"

namespace {

void usage(std::FILE* out) {
    fmt::print(out,
               "usage: papshim-info [--variables | --algorithms | --version | --check NAME=VALUE...]\n"
               "  (none)        the version, the variables and the algorithms, in that order\n"
               "  --variables   one line per PAPSHIM_* variable: NAME<TAB>default<TAB>choices<TAB>description\n"
               "  --algorithms  one line per collective: name<TAB>comma-separated algorithm names\n"
               "  --version     papshim version and the MPI it was built for\n"
               "  --check NAME=VALUE...  check settings as MPI_Init would, with only these set: nothing\n"
               "                and exit 0 if valid, else papshim's one line on stderr and exit 2\n");
}

void print_version() { fmt::print("papshim {} ({})\n", PAPSHIM_VERSION, PAPSHIM_MPI_NAME); }

void print_variables(const papshim::AlgorithmNames& names) {
    for (const auto& v : papshim::describe_variables(names))
        fmt::print("{}\t{}\t{}\t{}\n", v.name, v.default_value, v.choices, v.description);
}

void print_algorithms(const papshim::AlgorithmNames& names) {
    using namespace papshim;
    for (int c = 0; c < collective_count; ++c)
        fmt::print("{}\t{}\n", collective_name(Collective(c)), algorithm_choices(Collective(c), names));
}

// The library's parser on NAME=VALUE pairs alone: papshim-run checks its options with it
// before launching, so that a bad value is one line, not a job stopped in MPI_Init.
int check(int count, char** settings, const papshim::AlgorithmNames& names) {
    std::map<std::string, std::string> environment;
    std::vector<std::string> order;
    for (int i = 0; i < count; ++i) {
        const std::string_view setting(settings[i]);
        const auto eq = setting.find('=');
        if (eq == std::string_view::npos || eq == 0) {
            fmt::print(stderr, "papshim-info: --check takes NAME=VALUE, got '{}'\n", setting);
            return 2;
        }
        const std::string name(setting.substr(0, eq));
        if (!environment.contains(name)) order.push_back(name);
        environment[name] = std::string(setting.substr(eq + 1));
    }
    const auto parsed = papshim::parse_config(
        [&](const char* name) -> const char* {
            const auto it = environment.find(name);
            return it == environment.end() ? nullptr : it->second.c_str();
        },
        order, names);
    if (parsed.error) {
        fmt::print(stderr, "papshim: {}\n", parsed.error->message);
        return 2;
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    using namespace papshim;
    const auto names = algorithm_names();
    int status = 0;
    try {
        if (argc == 1) {  // what the README's Tools table promises: all of it
            print_version();
            fmt::print("\nvariables (NAME, default, choices, description):\n");
            print_variables(names);
            fmt::print("\nalgorithms (collective, names):\n");
            print_algorithms(names);
        } else if (!std::strcmp(argv[1], "--check")) {
            if (argc == 2) {
                usage(stderr);
                return 2;
            }
            status = check(argc - 2, argv + 2, names);
        } else if (argc != 2) {
            usage(stderr);
            return 2;
        } else if (!std::strcmp(argv[1], "--variables")) {
            print_variables(names);
        } else if (!std::strcmp(argv[1], "--algorithms")) {
            print_algorithms(names);
        } else if (!std::strcmp(argv[1], "--version")) {
            print_version();
        } else if (!std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
            usage(stdout);
        } else {
            fmt::print(stderr, "papshim-info: unknown option '{}'\n", argv[1]);
            usage(stderr);
            return 2;
        }
    } catch (const std::system_error&) {  // fmt::print to a full or closed stdout
        std::fputs("papshim-info: could not write to stdout\n", stderr);
        return 1;
    }
    if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
        std::fputs("papshim-info: could not write to stdout\n", stderr);
        return 1;
    }
    return status;
}
