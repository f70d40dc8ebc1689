#include "papshim/planner.hpp"

#include <algorithm>

#include "papshim/progress.hpp"
#include "papshim/waiting.hpp"

namespace papshim::plan {

Planner::Planner(MPI_Comm priv, predict::Settings settings, ToGlobalNs to_global)
    : priv_(priv), settings_(settings), to_global_(std::move(to_global)) {
    PMPI_Comm_rank(priv_, &rank_);
    PMPI_Comm_size(priv_, &size_);
    all_.resize(std::size_t(size_));
    history_ = predict::CommHistory(size_);
}

Planner::~Planner() {
    // An exchange on the board needs nothing more (the segment may be gone already).
    if (posted_ && !posted_board_) complete_exchange();
    for (Background& b : background_) discard_background(b.seq);
    if (comm_ != MPI_COMM_NULL) PMPI_Comm_free(&comm_);
}

void Planner::discard_background(std::uint64_t seq) {
    Background& b = background(seq);
    if (!b.active || b.seq != seq) return;
    b.cancel.store(true, std::memory_order_release);
    Progress::instance().await(b.done);
    b.active = false;
    b.prefetch.clear();
}

void Planner::complete_exchange() {
    if (!posted_) return;
    posted_ = false;
    if (watched_) {
        // The helper thread owns the request and digests into `next_`; it almost always
        // finished long ago.
        Progress::instance().await(done_);
        now_ = std::move(next_);
        return;
    }
    // Nothing else reads `now_` (no helper thread took part): digest in place, and no
    // background work either.
    if (posted_board_) {
        read_board();
        ++now_.board_exchanges;
        posted_board_ = nullptr;
    } else {
        if (const int error = wait_one(&request_, MPI_STATUS_IGNORE); error != MPI_SUCCESS)
            abort_on_internal_error("the exchange of predictions", error);
    }
    digest(now_, all_, posted_seq_, posted_tau_ns_);
}

void Planner::read_board() {
    for (int r = 0; r < size_; ++r) {
        node::BoardCell& cell = posted_board_->board_cell(posted_slot_, r);
        // Stored before that rank's call, which has completed here: visible at once or nearly.
        node::wait_until([&] { return cell.seq.load(std::memory_order_acquire) == posted_seq_; });
        all_[std::size_t(r)] = Contribution{std::int64_t(cell.next_arrival_ns.load(std::memory_order_relaxed)),
                                            std::int64_t(cell.arrival_ns.load(std::memory_order_relaxed)),
                                            cell.next_signature.load(std::memory_order_relaxed), posted_seq_};
    }
}

void Planner::digest(Learned& learned, const std::vector<Contribution>& vector, std::uint64_t seq,
                     std::int64_t tau_ns) {
    ++learned.exchanges;
    learned.guard.observe(vector, tau_ns);
    // The vector of call `seq` brings that call's actual arrivals: judge the plan made for it.
    if (learned.assessed.usable() && learned.assessed.seq == seq)
        learned.guard.record(assess(learned.assessed, vector, tau_ns));
    learned.plan = plan_from(vector, seq);
    learned.assessed = learned.plan;
    learned.armed = learned.guard.maybe_imbalanced();
}

bool Planner::make_communicator() {
    // The first exchange on this communicator: every rank decides it alike, so the
    // duplicate is collective in step, and a failure (the MPI out of communicators) is the
    // same on every rank: no exchange then, nor later (failure()). One duplicate carries both
    // the exchange (a collective) and the planned calls' messages (point to point): MPI
    // matches the two apart on one communicator, and each duplicate costs this first call
    // rounds of agreement on a context id over the network. Blocking: two MPI_Comm_idup
    // (when there were two duplicates) saved 2-4 ms here over the emulated network, but with
    // them mpi.shim.dispatch.np3 (threads, the helper thread among them) hung once in CI;
    // Open MPI 4.1's nonblocking context ids have known hangs beside other threads'
    // collectives (open-mpi/ompi#2025).
    if (const int rc = PMPI_Comm_dup(priv_, &comm_); rc != MPI_SUCCESS) {
        comm_ = MPI_COMM_NULL;
        failure_ = rc;
        return false;
    }
    PMPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
    return true;
}

void Planner::enter(const void* site, const predict::Signature& signature, std::uint64_t arrival_ticks,
                    std::int64_t tau_ns, const Policy& policy, Follow follow,
                    std::span<const std::uint64_t> block_bytes,
                    node::Segment* board) {
    const std::uint64_t seq = ++seq_;
    tau_ns_ = std::max<std::int64_t>(tau_ns, 1);
    const auto expected = history_.enter(site, signature, arrival_ticks, settings_, signature.root == rank_);
    expected_ = expected ? std::optional<std::uint64_t>(expected->arrival) : std::nullopt;
    complete_exchange();  // the plan for this call, if the previous call exchanged
    rest_.observe(now_.guard);
    call_key_ = ExchangeRest::call_key(signature.collective, signature.bytes);
    rest_.observe_call(call_key_);
    if (signature.blocks != 0 && !block_bytes.empty() && !layout(signature.blocks)) {
        if (known_blocks_.size() == kKnownLayouts) known_blocks_.erase(known_blocks_.begin());
        known_blocks_.emplace_back(signature.blocks, std::vector<std::uint64_t>(block_bytes.begin(), block_bytes.end()));
    }
    // Background receives of an earlier call that did not use them.
    for (Background& b : background_)
        if (b.active && b.seq < seq) discard_background(b.seq);

    // Whether this call exchanges: the same on every rank (sequence number, size, state
    // derived from earlier vectors, and whether earlier calls ran a plan: note_plan_use).
    bool exchange = false;
    switch (follow) {
        case Follow::no: break;
        case Follow::every_call: exchange = true; break;
        case Follow::sampled: exchange = cadence_.next(policy, now_.armed, resting()); break;
    }
    if (!exchange || failure_ != MPI_SUCCESS) return;
    if (comm_ == MPI_COMM_NULL && !make_communicator()) return;

    mine_ = Contribution{};
    mine_.arrival_ns = to_global_(arrival_ticks);
    mine_.seq = seq;
    if (const auto next = history_.next()) {
        mine_.next_arrival_ns = to_global_(next->arrival);
        mine_.next_signature = next->signature.hash();
        predicted_signature_ = next->signature;
    }
    posted_seq_ = seq;
    posted_tau_ns_ = tau_ns_;
    if (board) {
        posted_slot_ = int(board_calls_++ % node::kBoardSlots);
        node::BoardCell& cell = board->board_cell(posted_slot_, rank_);
        cell.next_arrival_ns.store(std::uint64_t(mine_.next_arrival_ns), std::memory_order_relaxed);
        cell.arrival_ns.store(std::uint64_t(mine_.arrival_ns), std::memory_order_relaxed);
        cell.next_signature.store(mine_.next_signature, std::memory_order_relaxed);
        cell.seq.store(seq, std::memory_order_release);
        posted_board_ = board;
        posted_ = true;
        watched_ = false;
        return;
    }
    const int error = PMPI_Iallgather(&mine_, sizeof mine_, MPI_BYTE, all_.data(), sizeof mine_, MPI_BYTE, comm_,
                                      &request_);
    // A failure here is this rank's alone (resources): the others would wait at their next
    // call for a contribution that never comes.
    if (error != MPI_SUCCESS) abort_on_internal_error("posting the exchange of predictions", error);
    posted_ = true;
    done_.store(false, std::memory_order_relaxed);
    watched_ = Progress::instance().running();
    if (watched_) {
        // On the helper thread once every rank contributed: the plan for the next call, and
        // the background receives it needs, usually while this rank still computes.
        // `now_` is only read here (the main thread reads it too, and writes it at the next
        // entry, after this has finished).
        Progress::instance().watch({request_}, [this, seq, tau = tau_ns_] {
            next_ = now_;
            digest(next_, all_, seq, tau);
            if (hook_ && next_.plan.usable()) hook_(*this, next_.plan, next_.guard);
        }, &done_);
    }
}

const std::vector<std::uint64_t>* Planner::layout(std::uint64_t blocks) const {
    for (const auto& [hash, bytes] : known_blocks_)
        if (hash == blocks) return &bytes;
    return nullptr;
}

const std::vector<std::uint64_t>* Planner::predicted_blocks() const {
    return predicted_signature_.blocks == 0 ? nullptr : layout(predicted_signature_.blocks);
}

bool Planner::same_layout(std::uint64_t blocks, std::span<const std::uint64_t> block_bytes) const {
    if (blocks == 0) return true;
    const std::vector<std::uint64_t>* kept = layout(blocks);
    return kept && std::equal(kept->begin(), kept->end(), block_bytes.begin(), block_bytes.end());
}

void Planner::leave(std::uint64_t exit_ticks) { history_.leave(exit_ticks, settings_); }

}  // namespace papshim::plan
