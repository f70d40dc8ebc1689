#include <catch.hpp>

#include <algorithm>
#include <bit>
#include <map>

#include "papshim/algorithms.hpp"
#include "papshim/config.hpp"

using namespace papshim;

namespace {

AlgorithmNames sample_names() {
    AlgorithmNames names;
    names[std::size_t(Collective::allgather)] = {"sparbit", "ring"};
    names[std::size_t(Collective::allgatherv)] = {"sparbit", "ring"};
    return names;
}

ParseResult parse(const std::map<std::string, std::string>& env) {
    std::vector<std::string> keys;
    for (const auto& [k, v] : env) keys.push_back(k);
    keys.push_back("HOME");  // other variables are ignored
    return parse_config(
        [&](const char* name) -> const char* {
            auto it = env.find(name);
            return it == env.end() ? nullptr : it->second.c_str();
        },
        keys, sample_names());
}

}  // namespace

TEST_CASE("defaults without any variable") {
    auto r = parse({});
    REQUIRE(r.config);
    CHECK(r.config->mode == Mode::dispatch);
    CHECK(r.config->algorithm[0] == "native");
    CHECK(r.config->trace_dir.empty());
    CHECK_FALSE(r.config->tracing());
    CHECK(r.config->callsite_depth == 1);
    CHECK(r.config->trace_buffer == 65536);
    CHECK(r.config->shm_slot == 0);  // auto: MPI_Init sets it from the largest node
}

TEST_CASE("PAPSHIM_SHM_SLOT: auto, a number, or a clear error") {
    CHECK(parse({{"PAPSHIM_SHM_SLOT", "auto"}}).config->shm_slot == 0);
    CHECK(parse({{"PAPSHIM_SHM_SLOT", "1024"}}).config->shm_slot == 1024);
    CHECK(parse({{"PAPSHIM_SHM_SLOT", "67108864"}}).config->shm_slot == 67108864);
    for (const char* bad : {"1023", "67108865", "Auto", "", "1M"}) {
        auto r = parse({{"PAPSHIM_SHM_SLOT", bad}});
        REQUIRE(r.error);
        CHECK(r.error->message ==
              "invalid PAPSHIM_SHM_SLOT='" + std::string(bad) + "': expected auto, or an integer in 1024..67108864");
    }
    CHECK(parse({{"PAPSHIM_SHM_SLOT", "auto"}}).config->canonical() == parse({}).config->canonical());
}

TEST_CASE("PAPSHIM_NODE_CPUS: auto, a number, or a clear error") {
    CHECK(parse({}).config->node_cpus == 0);  // auto: counted in MPI_Init
    CHECK(parse({{"PAPSHIM_NODE_CPUS", "auto"}}).config->node_cpus == 0);
    CHECK(parse({{"PAPSHIM_NODE_CPUS", "1"}}).config->node_cpus == 1);
    CHECK(parse({{"PAPSHIM_NODE_CPUS", "128"}}).config->node_cpus == 128);
    for (const char* bad : {"0", "-2", "1000001", "all", "", "4 "}) {
        auto r = parse({{"PAPSHIM_NODE_CPUS", bad}});
        REQUIRE(r.error);
        CHECK(r.error->message ==
              "invalid PAPSHIM_NODE_CPUS='" + std::string(bad) + "': expected auto, or an integer in 1..1000000");
    }
    CHECK(parse({{"PAPSHIM_NODE_CPUS", "auto"}}).config->canonical() == parse({}).config->canonical());
    CHECK(parse({{"PAPSHIM_NODE_CPUS", "2"}}).config->canonical() != parse({}).config->canonical());
}

TEST_CASE("the automatic slot keeps a node's segment within its budget") {
    using papshim::shm_slot_for_node;
    CHECK(shm_slot_for_node(1) == papshim::kShmSlotMax);
    CHECK(shm_slot_for_node(4) == std::size_t(4) << 20);
    CHECK(shm_slot_for_node(15) == std::size_t(4) << 20);  // 16 slots of 4 MiB: the budget
    CHECK(shm_slot_for_node(16) == std::size_t(2) << 20);
    CHECK(shm_slot_for_node(64) == std::size_t(512) << 10);
    CHECK(shm_slot_for_node(128) == std::size_t(256) << 10);
    CHECK(shm_slot_for_node(100000) == papshim::kShmSlotMin);
    for (int ranks = 1; ranks <= 4096; ++ranks) {
        const std::size_t slot = shm_slot_for_node(ranks);
        INFO(ranks);
        CHECK(std::has_single_bit(slot));
        CHECK(slot >= papshim::kShmSlotMin);
        CHECK(slot <= papshim::kShmSlotMax);
        if (slot > papshim::kShmSlotMin) CHECK((std::size_t(ranks) + 1) * slot <= papshim::kShmSegmentBudget);
    }
}

TEST_CASE("profile mode traces into the default directory") {
    auto r = parse({{"PAPSHIM_MODE", "profile"}});
    REQUIRE(r.config);
    CHECK(r.config->trace_dir == "papshim-trace");
    CHECK(r.config->tracing());
}

TEST_CASE("dispatch traces only with a directory") {
    auto r = parse({{"PAPSHIM_TRACE_DIR", "/tmp/x"}});
    REQUIRE(r.config);
    CHECK(r.config->tracing());
}

TEST_CASE("valid algorithm names per collective") {
    auto r = parse({{"PAPSHIM_ALLGATHER", "sparbit"}, {"PAPSHIM_ALLREDUCE", "native"}});
    REQUIRE(r.config);
    CHECK(r.config->algorithm[std::size_t(Collective::allgather)] == "sparbit");
    CHECK(r.config->algorithm[std::size_t(Collective::allreduce)] == "native");
}

TEST_CASE("invalid values name the variable, the value and the choices") {
    auto mode = parse({{"PAPSHIM_MODE", "bogus"}});
    REQUIRE(mode.error);
    CHECK(mode.error->message == "invalid PAPSHIM_MODE='bogus': expected one of off, profile, dispatch");

    auto alg = parse({{"PAPSHIM_REDUCE", "sparbit"}});  // sparbit is not a Reduce algorithm
    REQUIRE(alg.error);
    CHECK(alg.error->message ==
          "invalid PAPSHIM_REDUCE='sparbit': expected one of native, auto; sparbit is an Allgather(v) algorithm");

    auto ag = parse({{"PAPSHIM_ALLGATHER", "nosuch"}});
    REQUIRE(ag.error);
    CHECK(ag.error->message == "invalid PAPSHIM_ALLGATHER='nosuch': expected one of native, auto, sparbit, ring");

    for (const char* bad : {"0", "17", "-1", "1x", "", " 2"}) {
        auto depth = parse({{"PAPSHIM_CALLSITE_DEPTH", bad}});
        REQUIRE(depth.error);
        CHECK(depth.error->message.find("PAPSHIM_CALLSITE_DEPTH") != std::string::npos);
        CHECK(depth.error->message.find("1..16") != std::string::npos);
    }
    CHECK(parse({{"PAPSHIM_VERBOSE", "3"}}).error);
    CHECK(parse({{"PAPSHIM_TRACE_BUFFER", "0"}}).error);
    CHECK(parse({{"PAPSHIM_TRACE_DIR", ""}}).error);
}

TEST_CASE("an unknown PAPSHIM_ variable is an error, not a silent default") {
    auto r = parse({{"PAPSHIM_ALLGATHR", "ring"}});
    REQUIRE(r.error);
    CHECK(r.error->message.find("unknown variable PAPSHIM_ALLGATHR") == 0);
}

TEST_CASE("an invalid algorithm says which collectives have that name") {
    AlgorithmNames names;
    names[std::size_t(Collective::allgather)] = {"ring", "bruck"};
    names[std::size_t(Collective::allgatherv)] = {"ring"};
    names[std::size_t(Collective::reduce)] = {"binomial"};
    names[std::size_t(Collective::allreduce)] = {"ring", "dynamic_leader"};
    CHECK(invalid_algorithm_message(Collective::reduce, "ring", names) ==
          "invalid PAPSHIM_REDUCE='ring': expected one of native, auto, binomial; "
          "ring is an Allgather(v)/Allreduce algorithm");
    CHECK(invalid_algorithm_message(Collective::allgatherv, "bruck", names) ==
          "invalid PAPSHIM_ALLGATHERV='bruck': expected one of native, auto, ring; bruck is an Allgather algorithm");
    CHECK(invalid_algorithm_message(Collective::allreduce, "binomial", names).ends_with(
        "; binomial is a Reduce algorithm"));
    // A name no collective has: the choices alone.
    CHECK(invalid_algorithm_message(Collective::allreduce, "ringg", names) ==
          "invalid PAPSHIM_ALLREDUCE='ringg': expected one of native, auto, ring, dynamic_leader");
}

TEST_CASE("a near miss of a variable is a typo with a suggestion, whatever its ending") {
    const std::map<std::string, std::string> typos{
        {"PAPSHIM_TRACEDIR", "PAPSHIM_TRACE_DIR"}, {"PAPSHIM_TRAC_DIR", "PAPSHIM_TRACE_DIR"},
        {"PAPSHIM_TRACE_DIRR", "PAPSHIM_TRACE_DIR"}, {"PAPSHIM_ALLGATHR", "PAPSHIM_ALLGATHER"},
        {"PAPSHIM_MDOE", "PAPSHIM_MODE"}, {"PAPSHIM_MOD", "PAPSHIM_MODE"},
        {"PAPSHIM_NODESIZE", "PAPSHIM_NODE_SIZE"}, {"PAPSHIM_ALLREDUCE_", "PAPSHIM_ALLREDUCE"}};
    for (const auto& [typo, meant] : typos) {
        INFO(typo);
        auto r = parse({{typo, "x"}});
        REQUIRE(r.error);
        CHECK(r.error->message == "unknown variable " + typo + ": did you mean " + meant + "?");
    }
    // Far from every variable and no module system's name: the list of variables.
    auto far = parse({{"PAPSHIM_COLOUR", "blue"}});
    REQUIRE(far.error);
    CHECK(far.error->message.starts_with("unknown variable PAPSHIM_COLOUR: papshim reads PAPSHIM_MODE, "));
}

TEST_CASE("what module systems set for an installed papshim is ignored") {
    // Spack's <PKG>_ROOT, Lmod's and EasyBuild's _DIR, _HOME, _VERSION ..., besides valid variables.
    for (const char* name : {"PAPSHIM_ROOT", "PAPSHIM_DIR", "PAPSHIM_HOME", "PAPSHIM_PREFIX", "PAPSHIM_VERSION",
                             "PAPSHIM_PATH", "PAPSHIM_LIB", "PAPSHIM_INC", "PAPSHIM_INCLUDE", "PAPSHIM_LIBDIR",
                             "PAPSHIM_LIBRARY_PATH", "PAPSHIM_INSTALL_DIR", "PAPSHIM_BIN"}) {
        INFO(name);
        CHECK_FALSE(module_variable("PAPSHIM_MODE"));
        CHECK(module_variable(name));
        auto r = parse({{name, "/opt/papshim/1.0"}, {"PAPSHIM_MODE", "profile"}});
        REQUIRE_FALSE(r.error);
        REQUIRE(r.config);
        CHECK(r.config->mode == Mode::profile);
    }
}

TEST_CASE("settings that have no effect: one warning line, and the configuration stands") {
    auto quiet = parse({{"PAPSHIM_MODE", "dispatch"}, {"PAPSHIM_ALLGATHER", "sparbit"}});
    REQUIRE(quiet.config);
    CHECK_FALSE(quiet.warning);
    CHECK_FALSE(parse({{"PAPSHIM_MODE", "profile"}, {"PAPSHIM_ALLGATHER", "native"}}).warning);

    auto profile = parse({{"PAPSHIM_MODE", "profile"}, {"PAPSHIM_ALLGATHER", "sparbit"}});
    REQUIRE(profile.config);
    CHECK(profile.config->algorithm[std::size_t(Collective::allgather)] == "sparbit");
    REQUIRE(profile.warning);
    CHECK(profile.warning->starts_with(
        "PAPSHIM_ALLGATHER=sparbit has no effect in profile mode: papshim's algorithms run only in dispatch mode"));

    auto off = parse({{"PAPSHIM_MODE", "off"}, {"PAPSHIM_ALLGATHER", "ring"}, {"PAPSHIM_ALLGATHERV", "auto"},
                      {"PAPSHIM_TRACE_DIR", "t"}});
    REQUIRE(off.warning);
    CHECK(off.warning->starts_with("PAPSHIM_ALLGATHER=ring, PAPSHIM_ALLGATHERV=auto have no effect in off mode"));
    CHECK(off.warning->ends_with("; PAPSHIM_TRACE_DIR=t has no effect in off mode: nothing is traced"));
    CHECK(off.warning->find('\n') == std::string::npos);
}

TEST_CASE("canonical form differs exactly where the configuration differs") {
    auto a = parse({{"PAPSHIM_MODE", "profile"}}).config->canonical();
    auto b = parse({{"PAPSHIM_MODE", "dispatch"}}).config->canonical();
    REQUIRE(a.size() == b.size());
    int differing = 0;
    for (std::size_t i = 0; i < a.size(); ++i) differing += a[i] != b[i];
    CHECK(differing == 2);  // the mode, and the trace directory that profile mode defaults
}

TEST_CASE("every documented variable is parsed and every parsed variable documented") {
    auto vars = describe_variables(sample_names());
    std::vector<std::string> names;
    for (const auto& v : vars) names.push_back(v.name);
    auto canonical = parse({}).config->canonical();
    REQUIRE(canonical.size() == names.size());
    for (std::size_t i = 0; i < names.size(); ++i) CHECK(canonical[i].rfind(names[i] + "=", 0) == 0);
}

TEST_CASE("collective and mode names round-trip") {
    for (int c = 0; c < collective_count; ++c) CHECK(parse_collective(collective_name(Collective(c))) == Collective(c));
    CHECK_FALSE(parse_collective("bcast"));
    for (Mode m : {Mode::off, Mode::profile, Mode::dispatch}) CHECK(parse_mode(mode_name(m)) == m);
}

TEST_CASE("node size and network label") {
    auto r = parse({{"PAPSHIM_NODE_SIZE", "2"}, {"PAPSHIM_NETWORK", "emulated 1gbit"}});
    REQUIRE(r.config);
    CHECK(r.config->node_size == 2);
    CHECK(r.config->network == "emulated 1gbit");
    CHECK(parse({}).config->node_size == 0);
    auto bad = parse({{"PAPSHIM_NODE_SIZE", "-1"}});
    REQUIRE(bad.error);
    CHECK(bad.error->message.find("PAPSHIM_NODE_SIZE") != std::string::npos);
    // meta.txt holds the label on one line: '#' is text, a line break is refused in one error line.
    CHECK(parse({{"PAPSHIM_NETWORK", "ib #2 fat-tree"}}).config->network == "ib #2 fat-tree");
    auto broken = parse({{"PAPSHIM_NETWORK", "10GbE\nrack\t2"}});
    REQUIRE(broken.error);
    CHECK(broken.error->message ==
          "invalid PAPSHIM_NETWORK='10GbE\\nrack\\t2': expected text without control characters (line breaks, tabs)");
}

TEST_CASE("the helper thread: 1 when a variable needs it, always, or never") {
    auto by_default = parse({});
    REQUIRE(by_default.config);
    CHECK(by_default.config->helper_thread);
    CHECK_FALSE(by_default.config->helper_thread_always);
    auto always = parse({{"PAPSHIM_HELPER_THREAD", "always"}});
    REQUIRE(always.config);
    CHECK(always.config->helper_thread);
    CHECK(always.config->helper_thread_always);
    auto off = parse({{"PAPSHIM_HELPER_THREAD", "0"}});
    REQUIRE(off.config);
    CHECK_FALSE(off.config->helper_thread);
    CHECK_FALSE(off.config->helper_thread_always);
    // The three spellings differ in the canonical form, so ranks that disagree are caught.
    CHECK(always.config->canonical() != by_default.config->canonical());
    auto on = parse({{"PAPSHIM_HELPER_THREAD", "1"}});
    REQUIRE(on.config);
    CHECK(on.config->helper_thread);
    CHECK_FALSE(on.config->helper_thread_always);
    // Only the exact words: MPI_Init's upgrade compares the text, so "00" would raise the
    // thread level there while meaning "no thread" here.
    for (const char* bad : {"2", "yes", "Always", "", "00", "01", " 1", "1 "}) {
        auto r = parse({{"PAPSHIM_HELPER_THREAD", bad}});
        REQUIRE(r.error);
        CHECK(r.error->message ==
              "invalid PAPSHIM_HELPER_THREAD='" + std::string(bad) + "': expected one of 0, 1, always");
    }
}

TEST_CASE("planning algorithms come from the tables; the helper-thread text names those that need it") {
    const auto variables = describe_variables(algorithm_names());
    const auto helper = std::find_if(variables.begin(), variables.end(),
                                     [](const VariableInfo& v) { return v.name == "PAPSHIM_HELPER_THREAD"; });
    REQUIRE(helper != variables.end());
    int planning = 0, needing = 0;
    // needs: plans with background receives (the planned Allgather(v) algorithms); the planned
    // reductions need only the exchange, which completes without the thread.
    const auto check = [&](Collective c, std::string_view name, bool plans, bool needs) {
        INFO(collective_name(c) << " " << name);
        CHECK(uses_plans(c, name) == plans);
        CHECK(needs_helper_thread(c, name) == needs);
        planning += plans ? 1 : 0;
        if (needs) {
            ++needing;
            CHECK(helper->description.find(std::string(name)) != std::string::npos);
        }
    };
    for (const auto& a : allgather_algorithms()) {
        check(Collective::allgather, a.name, a.plans, a.plans);
        check(Collective::allgatherv, a.name, a.plans, a.plans);
    }
    for (Collective c : {Collective::reduce, Collective::allreduce})
        for (const auto& a : reduction_algorithms(c)) check(c, a.name, a.plans, false);
    CHECK(planning > needing);
    CHECK(needing > 0);
    // Per collective: an Allreduce-only planner is not one for Reduce.
    CHECK(uses_plans(Collective::allreduce, "predicted_scatter"));
    CHECK_FALSE(uses_plans(Collective::reduce, "predicted_scatter"));
    for (const char* other : {"native", "auto", "no_such_algorithm"})
        for (int c = 0; c < collective_count; ++c) {
            CHECK_FALSE(uses_plans(Collective(c), other));
            CHECK_FALSE(needs_helper_thread(Collective(c), other));
        }
}

TEST_CASE("the predictor's variables and PAPSHIM_TAU_US: defaults, valid values, clear errors") {
    auto defaults = parse({});
    REQUIRE(defaults.config);
    CHECK(defaults.config->predictor == "ema");
    CHECK(defaults.config->ema_alpha == 0.25);
    CHECK(defaults.config->sma_window == 8);
    CHECK(defaults.config->tau_us == 0);  // measured

    auto set = parse({{"PAPSHIM_PREDICTOR", "sma"}, {"PAPSHIM_EMA_ALPHA", "1"}, {"PAPSHIM_SMA_WINDOW", "1024"},
                      {"PAPSHIM_TAU_US", "37.5"}});
    REQUIRE(set.config);
    CHECK(set.config->predictor == "sma");
    CHECK(set.config->ema_alpha == 1.0);
    CHECK(set.config->sma_window == 1024);
    CHECK(set.config->tau_us == 37.5);
    CHECK(parse({{"PAPSHIM_PREDICTOR", "last"}}).config->predictor == "last");
    CHECK(parse({{"PAPSHIM_SMA_WINDOW", "1"}}).config->sma_window == 1);
    auto measured = parse({{"PAPSHIM_TAU_US", "measured"}});  // the default, written out
    REQUIRE(measured.config);
    CHECK(measured.config->tau_us == 0);
    CHECK(measured.config->canonical() == defaults.config->canonical());

    auto predictor = parse({{"PAPSHIM_PREDICTOR", "EMA"}});
    REQUIRE(predictor.error);
    CHECK(predictor.error->message == "invalid PAPSHIM_PREDICTOR='EMA': expected one of ema, sma, last");
    for (const char* bad : {"0", "-0.5", "1.01", "nan", "0.25x", ""}) {
        INFO("PAPSHIM_EMA_ALPHA=" << bad);
        auto r = parse({{"PAPSHIM_EMA_ALPHA", bad}});
        REQUIRE(r.error);
        CHECK(r.error->message.find("invalid PAPSHIM_EMA_ALPHA='" + std::string(bad) + "'") == 0);
    }
    for (const char* bad : {"0", "1025", "-1", "8.5", "eight"}) {
        INFO("PAPSHIM_SMA_WINDOW=" << bad);
        auto r = parse({{"PAPSHIM_SMA_WINDOW", bad}});
        REQUIRE(r.error);
        CHECK(r.error->message == "invalid PAPSHIM_SMA_WINDOW='" + std::string(bad) + "': expected an integer in 1..1024");
    }
    for (const char* bad : {"0", "-3", "inf", "1e10", "fast", "Measured"}) {
        INFO("PAPSHIM_TAU_US=" << bad);
        auto r = parse({{"PAPSHIM_TAU_US", bad}});
        REQUIRE(r.error);
        CHECK(r.error->message.find("invalid PAPSHIM_TAU_US='" + std::string(bad) + "'") == 0);
    }
}

TEST_CASE("PAPSHIM_WAIT: auto by default, mpi or yield, nothing else") {
    REQUIRE(parse({}).config);
    CHECK(parse({}).config->wait == "auto");
    for (const char* good : {"auto", "mpi", "yield"}) {
        auto r = parse({{"PAPSHIM_WAIT", good}});
        REQUIRE(r.config);
        CHECK(r.config->wait == good);
    }
    // Measuring the node is collective in MPI_Init: ranks that disagree must be caught.
    CHECK(parse({{"PAPSHIM_WAIT", "yield"}}).config->canonical() != parse({}).config->canonical());
    for (const char* bad : {"", "spin", "Yield", "1"}) {
        auto r = parse({{"PAPSHIM_WAIT", bad}});
        REQUIRE(r.error);
        CHECK(r.error->message == "invalid PAPSHIM_WAIT='" + std::string(bad) + "': expected one of auto, mpi, yield");
    }
}
