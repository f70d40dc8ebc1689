#include "measure.hpp"

#include <papshim/control.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstring>
#include <limits>
#include <stdexcept>

#include "block_distributions.hpp"

namespace papshim::bench {

AlgorithmSet::AlgorithmSet(const std::vector<std::string>& names, Collective collective) {
    const char* collective_text = collective_name(collective);
    for (const std::string& name : names) {
        algorithms_.push_back({name, name == "native", MPI_COMM_NULL, MPI_COMM_NULL});
        Algorithm& algorithm = algorithms_.back();
        for (MPI_Comm* comm : {&algorithm.comm, &algorithm.check_comm}) {
            PMPI_Comm_dup(MPI_COMM_WORLD, comm);
            if (algorithm.native) continue;
            PMPI_Comm_set_errhandler(*comm, MPI_ERRORS_RETURN);
            const int status = papshim_set_algorithm(*comm, collective_text, name.c_str());
            PMPI_Comm_set_errhandler(*comm, MPI_ERRORS_ARE_FATAL);
            if (status != MPI_SUCCESS) {
                free_all();  // a throwing constructor gets no destructor call
                throw UsageError(fmt::format(
                    "--algorithms: papshim does not accept '{}' for {} (papshim-info "
                    "--algorithms lists the names)",
                    name, collective_text));
            }
        }
    }
    const auto native = std::ranges::find(names, "native");
    baseline_ = native == names.end() ? 0 : static_cast<std::size_t>(native - names.begin());
}

AlgorithmSet::~AlgorithmSet() { free_all(); }

void AlgorithmSet::free_all() {
    for (Algorithm& algorithm : algorithms_)
        for (MPI_Comm* comm : {&algorithm.comm, &algorithm.check_comm})
            if (*comm != MPI_COMM_NULL) PMPI_Comm_free(comm);
    algorithms_.clear();
}

void check_call_size(Collective collective, std::size_t bytes, int ranks) {
    if (collective == Collective::reduce || collective == Collective::allreduce) {
        if (bytes % sizeof(int) != 0 || bytes / sizeof(int) > static_cast<std::size_t>(INT_MAX))
            throw UsageError(fmt::format(
                "--bytes {}: Reduce and Allreduce sum MPI_INT vectors, so the size must be a "
                "multiple of {} bytes",
                bytes, sizeof(int)));
    } else if (bytes * static_cast<std::size_t>(ranks) * 2 > static_cast<std::size_t>(INT_MAX)) {
        throw UsageError(fmt::format("--bytes {} is too large for {} ranks (counts are int)", bytes, ranks));
    }
}

namespace {

void add_ints(void* in, void* inout, int* count, MPI_Datatype*) {
    const int* from = static_cast<const int*>(in);
    int* into = static_cast<int*>(inout);
    for (int i = 0; i < *count; ++i) into[i] += from[i];
}

// MPI_INT's sum declared non-commutative (--op ordered), created once and left to
// MPI_Finalize: MPI and papshim must then keep rank order, and the result is MPI_SUM's (so
// the result check cannot see an order mistake: tests/mpi/reduction checks that).
MPI_Op ordered_sum() {
    static const MPI_Op op = [] {
        MPI_Op created = MPI_OP_NULL;
        if (MPI_Op_create(&add_ints, 0, &created) != MPI_SUCCESS)
            throw std::runtime_error("MPI_Op_create failed for --op ordered");
        return created;
    }();
    return op;
}

}  // namespace

CollectiveCall::CollectiveCall(Collective collective, std::size_t bytes, int root,
                               std::string_view blocks, const World& world, std::size_t salt, ReductionOp op)
    : collective_(collective), bytes_(bytes), root_(root), op_(op == ReductionOp::ordered ? ordered_sum() : MPI_SUM),
      world_(world) {
    const auto ranks = static_cast<std::size_t>(world.ranks);
    check_call_size(collective, bytes, world.ranks);
    if (collective == Collective::reduce || collective == Collective::allreduce) {
        std::vector<int> values(bytes / sizeof(int));
        // Small values: the sum cannot overflow, so any order of reduction gives the same bits.
        for (std::size_t j = 0; j < values.size(); ++j)
            values[j] = static_cast<int>((static_cast<std::size_t>(world.rank) * 131 + j * 7 +
                                          salt * 29 + 13) %
                                         1009);
        send_.resize(bytes);
        std::memcpy(send_.data(), values.data(), bytes);
        recv_.assign(bytes, 0);
        return;
    }
    counts_.assign(ranks, static_cast<int>(bytes));
    if (collective == Collective::allgatherv && ranks > 1) {
        // Träff's distribution around `bytes` per rank. Decreasing keeps Allgather's total,
        // the rounding remainder on rank 0; the others are exactly what papshim-sim models.
        const std::vector<double> sizes =
            blocks::block_sizes(blocks, world.ranks, static_cast<double>(bytes));
        std::size_t assigned = 0;
        for (std::size_t rank = 0; rank < ranks; ++rank) {
            counts_[rank] = static_cast<int>(sizes[rank]);
            assigned += static_cast<std::size_t>(counts_[rank]);
        }
        if (blocks == "decreasing") counts_[0] += static_cast<int>(bytes * ranks - assigned);
    }
    int offset = 0;
    for (const int count : counts_) {
        displs_.push_back(offset);
        offset += count;
    }
    const auto mine = static_cast<std::size_t>(counts_[static_cast<std::size_t>(world.rank)]);
    send_.resize(std::max<std::size_t>(1, mine));
    // Content depends on rank, position and size, so a misplaced block cannot pass.
    for (std::size_t j = 0; j < send_.size(); ++j)
        send_[j] = static_cast<unsigned char>(world.rank * 131 + j * 7 + salt * 29 + 13);
    recv_.assign(std::max<std::size_t>(1, static_cast<std::size_t>(offset)), 0);
}

int CollectiveCall::run(MPI_Comm comm, bool native) {
    void* send = send_.data();
    void* recv = recv_.data();
    int status = MPI_ERR_ARG;
    switch (collective_) {
        case Collective::allgather:
            status = native ? PMPI_Allgather(send, counts_[0], MPI_BYTE, recv, counts_[0],
                                             MPI_BYTE, comm)
                            : MPI_Allgather(send, counts_[0], MPI_BYTE, recv, counts_[0],
                                            MPI_BYTE, comm);
            break;
        case Collective::allgatherv: {
            const int mine = counts_[static_cast<std::size_t>(world_.rank)];
            status = native ? PMPI_Allgatherv(send, mine, MPI_BYTE, recv, counts_.data(),
                                              displs_.data(), MPI_BYTE, comm)
                            : MPI_Allgatherv(send, mine, MPI_BYTE, recv, counts_.data(),
                                             displs_.data(), MPI_BYTE, comm);
            break;
        }
        case Collective::reduce: {
            const int count = static_cast<int>(bytes_ / sizeof(int));
            const int root = last_root_ = root_for(comm);
            status = native ? PMPI_Reduce(send, recv, count, MPI_INT, op_, root, comm)
                            : MPI_Reduce(send, recv, count, MPI_INT, op_, root, comm);
            break;
        }
        case Collective::allreduce: {
            const int count = static_cast<int>(bytes_ / sizeof(int));
            status = native ? PMPI_Allreduce(send, recv, count, MPI_INT, op_, comm)
                            : MPI_Allreduce(send, recv, count, MPI_INT, op_, comm);
            break;
        }
    }
    // Keeps the MPI call out of tail position: as a jump, its return address would be
    // measure()'s, one per loop there (see measure.hpp).
    std::atomic_signal_fence(std::memory_order_seq_cst);
    return status;
}

int CollectiveCall::root_for(MPI_Comm comm) {
    if (root_ != kRotatingRoot) return root_;
    if (check_root_ >= 0) return check_root_;
    return rotations_[comm]++ % world_.ranks;
}

bool CollectiveCall::result_is_checked() const {
    return collective_ != Collective::reduce || world_.rank == last_root_;
}

void CollectiveCall::check(const AlgorithmSet& algorithms) {
    if (root_ != kRotatingRoot) return check_root(algorithms);
    // Every root the measured calls will use; the rotation's counters stay untouched.
    for (check_root_ = 0; check_root_ < world_.ranks; ++check_root_) check_root(algorithms);
    check_root_ = -1;
}

void CollectiveCall::check_root(const AlgorithmSet& algorithms) {
    run(MPI_COMM_WORLD, true);
    const std::vector<unsigned char> expected = recv_;
    const bool per_rank = !counts_.empty();
    for (std::size_t index = 0; index < algorithms.size(); ++index) {
        const Algorithm& algorithm = algorithms[index];
        std::ranges::fill(recv_, static_cast<unsigned char>(0xA5));
        const int status = run(algorithm.check_comm, algorithm.native);
        const auto mismatch = std::ranges::mismatch(recv_, expected);
        const bool same =
            status == MPI_SUCCESS && (!result_is_checked() || mismatch.in1 == recv_.end());
        abort_unless_everywhere(
            same, fmt::format("{} algorithm '{}' at {} bytes{}: {}", collective_name(collective_),
                              algorithm.name, bytes_,
                              per_rank ? std::string(" per rank")
                              : collective_ == Collective::reduce ? fmt::format(" (root {})", last_root_)
                                                                  : std::string(),
                              status != MPI_SUCCESS
                                  ? fmt::format("returned error {}", status)
                                  : fmt::format("result differs from native at byte {}",
                                                mismatch.in1 - recv_.begin())));
    }
}

Json cell_json(const std::string& name, const Cell& cell, const Cell& baseline) {
    return {{"name", name},
            {"mean_elapsed_s", mean(cell.elapsed)},
            {"median_elapsed_s", median(cell.elapsed)},
            {"mean_run_time_s", mean(cell.run_time)},
            {"median_run_time_s", median(cell.run_time)},
            {"elapsed_ratio", mean(cell.elapsed) / mean(baseline.elapsed)},
            {"run_time_ratio", mean(cell.run_time) / mean(baseline.run_time)},
            {"mean_imbalance_s", mean(cell.imbalance)},
            {"elapsed_s", cell.elapsed},
            {"run_time_s", cell.run_time},
            {"imbalance_s", cell.imbalance},
            {"late_start_s", cell.late_start},
            {"plans", {{"planned", cell.planned}, {"unplanned", cell.unplanned}, {"declined", cell.declined},
                       {"assessed", cell.assessed}, {"good", cell.good}, {"last_right", cell.last_right},
                       {"exchanges", cell.exchanges}}},
            {"ran", cell.ran}};
}

namespace {

// Lines the ranks up and waits `delay` seconds: two barriers, as in IMB and [AG] (the second
// starts everyone closer together), then this rank's delay of the pattern. Returns how much
// later than asked the wait ended (a late wake-up on a loaded machine).
double align_and_wait(double delay) {
    PMPI_Barrier(MPI_COMM_WORLD);
    PMPI_Barrier(MPI_COMM_WORLD);
    const double intended = papshim_wtime() + std::max(delay, 0.0);
    wait_for(delay);
    return std::max(0.0, papshim_wtime() - intended);
}

// The algorithm's plan counters so far (zero for native, which papshim never sees).
void plan_stats(const Algorithm& algorithm, papshim_plan_stats& stats) {
    stats = papshim_plan_stats{};
    if (!algorithm.native) papshim_get_plan_stats(algorithm.comm, &stats);
}

// On rank 0, what papshim ran for the call just made on `algorithm`'s communicator; "" for
// native. Outside the timed region (after the exit time is taken).
std::string last_algorithm(const Algorithm& algorithm, Collective collective, const World& world) {
    if (algorithm.native || world.rank != 0) return {};
    char name[64] = "";
    papshim_get_last_algorithm(algorithm.comm, collective_name(collective), name, sizeof name);
    return name;
}

// arrivals, exits and late starts: [rank * calls + call], on the global clock.
Cell summarise(const std::vector<double>& arrivals, const std::vector<double>& exits,
               const std::vector<double>& lates, int ranks, int calls) {
    Cell cell;
    cell.rank_mean_elapsed.assign(static_cast<std::size_t>(ranks), 0.0);
    const auto at = [calls](int rank, int call) {
        return static_cast<std::size_t>(rank) * static_cast<std::size_t>(calls) +
               static_cast<std::size_t>(call);
    };
    for (int call = 0; call < calls; ++call) {
        double elapsed = 0;
        double arrival_sum = 0;
        double first_arrival = std::numeric_limits<double>::infinity();
        double last_arrival = -first_arrival;
        double last_exit = -first_arrival;
        double late = 0;
        for (int rank = 0; rank < ranks; ++rank) {
            late = std::max(late, lates[at(rank, call)]);
            const double own = exits[at(rank, call)] - arrivals[at(rank, call)];
            elapsed += own;
            cell.rank_mean_elapsed[static_cast<std::size_t>(rank)] += own / calls;
            arrival_sum += arrivals[at(rank, call)];
            first_arrival = std::min(first_arrival, arrivals[at(rank, call)]);
            last_arrival = std::max(last_arrival, arrivals[at(rank, call)]);
            last_exit = std::max(last_exit, exits[at(rank, call)]);
        }
        cell.elapsed.push_back(elapsed / ranks);
        cell.run_time.push_back(last_exit - first_arrival);
        cell.imbalance.push_back(last_arrival - first_arrival);
        cell.unavoidable_wait.push_back(last_arrival - arrival_sum / ranks);
        cell.late_start.push_back(late);
    }
    return cell;
}

}  // namespace

std::vector<Cell> measure(CollectiveCall& call, const AlgorithmSet& algorithms,
                          const Timing& timing, const World& world) {
    const std::size_t count = algorithms.size();
    const int calls = timing.iterations;
    for (int iteration = 0; iteration < timing.warmup; ++iteration) {
        for (const std::size_t index : run_order(count, iteration)) {
            if (timing.warmup_delay)
                align_and_wait(timing.warmup_delay(iteration));
            else
                PMPI_Barrier(MPI_COMM_WORLD);
            call.run(algorithms[index].comm, algorithms[index].native);
        }
    }

    std::vector<papshim_plan_stats> before(count);
    for (std::size_t index = 0; index < count; ++index) plan_stats(algorithms[index], before[index]);
    std::vector<std::vector<double>> arrivals(count,
                                              std::vector<double>(static_cast<std::size_t>(calls)));
    std::vector<std::vector<double>> exits = arrivals;
    std::vector<std::vector<double>> lates = arrivals;
    std::vector<std::map<std::string, long>> ran(count);
    for (int iteration = 0; iteration < calls; ++iteration) {
        const double delay = timing.delay ? timing.delay(iteration) : 0.0;
        const auto at = static_cast<std::size_t>(iteration);
        for (const std::size_t index : run_order(count, timing.warmup + iteration)) {
            lates[index][at] = align_and_wait(delay);
            arrivals[index][at] = papshim_wtime();
            call.run(algorithms[index].comm, algorithms[index].native);
            exits[index][at] = papshim_wtime();
            if (std::string name = last_algorithm(algorithms[index], call.collective(), world); !name.empty())
                ++ran[index][name];
        }
        if (timing.after_iteration) timing.after_iteration(iteration);
    }

    // Outside the timed region: every rank's times to rank 0.
    std::vector<Cell> cells;
    const std::size_t gathered =
        world.rank == 0 ? static_cast<std::size_t>(calls) * static_cast<std::size_t>(world.ranks)
                        : 0;
    std::vector<double> all_arrivals(gathered), all_exits(gathered), all_lates(gathered);
    for (std::size_t index = 0; index < count; ++index) {
        PMPI_Gather(arrivals[index].data(), calls, MPI_DOUBLE, all_arrivals.data(), calls,
                    MPI_DOUBLE, 0, MPI_COMM_WORLD);
        PMPI_Gather(exits[index].data(), calls, MPI_DOUBLE, all_exits.data(), calls, MPI_DOUBLE,
                    0, MPI_COMM_WORLD);
        PMPI_Gather(lates[index].data(), calls, MPI_DOUBLE, all_lates.data(), calls, MPI_DOUBLE,
                    0, MPI_COMM_WORLD);
        if (world.rank == 0) {
            cells.push_back(summarise(all_arrivals, all_exits, all_lates, world.ranks, calls));
            papshim_plan_stats after{};
            plan_stats(algorithms[index], after);
            Cell& cell = cells.back();
            cell.planned = after.planned - before[index].planned;
            cell.unplanned = after.unplanned - before[index].unplanned;
            cell.declined = after.declined - before[index].declined;
            cell.assessed = after.assessed - before[index].assessed;
            cell.good = after.good - before[index].good;
            cell.last_right = after.last_right - before[index].last_right;
            cell.exchanges = after.exchanges - before[index].exchanges;
            cell.ran = std::move(ran[index]);
        }
    }
    return cells;
}

}  // namespace papshim::bench
