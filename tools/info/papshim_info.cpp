// papshim-info: what this build of papshim knows — its variables (the single source that
// papshim-run --help and the README's table come from), algorithms and version.
#include <fmt/format.h>

#include <cstring>
#include <system_error>

#include "papshim/algorithms.hpp"
#include "papshim/config.hpp"

namespace {

void usage(std::FILE* out) {
    fmt::print(out,
               "usage: papshim-info [--variables | --algorithms | --version]\n"
               "  --variables   one line per PAPSHIM_* variable: NAME<TAB>default<TAB>choices<TAB>description\n"
               "  --algorithms  one line per collective: name<TAB>comma-separated algorithm names\n"
               "  --version     papshim version and the MPI it was built for\n");
}

}  // namespace

int main(int argc, char** argv) {
    using namespace papshim;
    if (argc != 2) {
        usage(stderr);
        return 2;
    }
    const auto names = algorithm_names();
    try {
        if (!std::strcmp(argv[1], "--variables")) {
            for (const auto& v : describe_variables(names))
                fmt::print("{}\t{}\t{}\t{}\n", v.name, v.default_value, v.choices, v.description);
        } else if (!std::strcmp(argv[1], "--algorithms")) {
            for (int c = 0; c < collective_count; ++c)
                fmt::print("{}\t{}\n", collective_name(Collective(c)), algorithm_choices(Collective(c), names));
        } else if (!std::strcmp(argv[1], "--version")) {
            fmt::print("papshim {} ({})\n", PAPSHIM_VERSION, PAPSHIM_MPI_NAME);
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
    return 0;
}
