// The per-rank trace writer: a pre-faulted pool of record chunks that threads fill without a
// lock, and a writer thread that appends full chunks to the spill file and rewrites the
// index (docs/trace-format.md). The pool is faulted in at open because a first touch of a
// fresh page costs ~17 us on the VMs measured here, i.e. ~260 ns per 64-byte record.
#include "papshim/trace.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>

namespace papshim::trace {
namespace {

constexpr std::size_t pool_chunks = 8;           // the capacity is split into this many chunks
constexpr std::uint32_t max_chunk_records = 8192;
constexpr std::size_t extra_chunks = 1024;       // for threads beyond the pool's chunks
constexpr auto first_refresh = std::chrono::seconds(1);
constexpr auto max_refresh = std::chrono::seconds(5);

// Anonymous memory with every page faulted in now: MAP_POPULATE maps them (~0.5 us a
// page here, against ~17 us for a first touch later), and one store a page, since on the
// VMs measured here 1 page in 8 of a populated mapping still takes ~14 us at its first
// store (below the guest kernel: no fault is counted). nullptr on failure.
void* populated(std::size_t bytes) {
    void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    if (p == MAP_FAILED) return nullptr;
    const auto page = std::size_t(::sysconf(_SC_PAGESIZE));
    for (std::size_t offset = 0; offset < bytes; offset += page) static_cast<volatile char*>(p)[offset] = 0;
    return p;
}

void post(sem_t& s) { ::sem_post(&s); }

void wait(sem_t& s) {
    while (::sem_wait(&s) != 0 && errno == EINTR) {
    }
}

// Waits until `deadline` on the monotonic clock or a post.
void wait_until(sem_t& s, std::chrono::steady_clock::time_point deadline) {
    const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(deadline.time_since_epoch()).count();
    const timespec until{time_t(ns / 1'000'000'000), long(ns % 1'000'000'000)};
    while (::sem_clockwait(&s, CLOCK_MONOTONIC, &until) != 0 && errno == EINTR) {
    }
}

}  // namespace

Writer::~Writer() {
    stop_thread();
    if (fd_ >= 0) ::close(fd_);
    for (auto [address, bytes] : mappings_) ::munmap(address, bytes);
    if (semaphores_) {
        ::sem_destroy(&work_);
        ::sem_destroy(&freed_);
    }
}

bool Writer::open(const std::string& dir, int world_rank, std::size_t capacity, Names names, IndexSource source,
                  std::string& error) {
    dir_ = dir;
    world_rank_ = world_rank;
    names_ = std::move(names);
    source_ = std::move(source);
    capacity = std::max<std::size_t>(capacity, 1);
    chunk_records_ = std::uint32_t(std::clamp<std::size_t>(capacity / pool_chunks, 1, max_chunk_records));
    const std::size_t base = std::max<std::size_t>(capacity / chunk_records_, 1);
    wake_after_ = std::max<std::size_t>(base / 2, 1);
    fd_ = ::open(spill_path(dir, world_rank).c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd_ < 0) {
        error = fmt::format("cannot write {}: {}", spill_path(dir, world_rank), std::strerror(errno));
        return false;
    }
    const std::size_t bytes = base * chunk_records_ * sizeof(Record);
    void* pool = populated(bytes);
    if (!pool) {
        error = fmt::format("cannot allocate {} bytes of trace buffer (PAPSHIM_TRACE_BUFFER): {}", bytes,
                            std::strerror(errno));
        return false;
    }
    mappings_.emplace_back(pool, bytes);
    max_chunks_ = base + extra_chunks;
    chunks_ = std::make_unique<Chunk[]>(max_chunks_);
    for (std::size_t i = 0; i < base; ++i) chunks_[i].records = static_cast<Record*>(pool) + i * chunk_records_;
    chunk_count_.store(base, std::memory_order_release);
    ::sem_init(&work_, 0, 0);
    ::sem_init(&freed_, 0, 0);
    semaphores_ = true;
    if (source_.sites) source_.sites(sites_);
    if (!write_index(dir_, {world_rank_, saved_, 0, source_.fit ? source_.fit() : Fit{}, names_, sites_}, error))
        return false;

    // Process-directed signals (SIGTERM above all) must reach an application thread, whose
    // handler asks this thread to save: block them here, keep the synchronous ones.
    sigset_t all, previous;
    ::sigfillset(&all);
    for (int sync : {SIGSEGV, SIGBUS, SIGFPE, SIGILL}) ::sigdelset(&all, sync);
    ::pthread_sigmask(SIG_BLOCK, &all, &previous);
    running_.store(true, std::memory_order_release);
    accepting_.store(true, std::memory_order_release);
    thread_ = std::thread([this] { run(); });
    ::pthread_sigmask(SIG_SETMASK, &previous, nullptr);
    return true;
}

Writer::Producer::~Producer() {
    if (chunk_ && writer_->is_open()) writer_->hand_off(chunk_);
    chunk_ = nullptr;  // the writer owns it now
}

void Writer::hand_off(Chunk* full) {
    full->order = next_order_.fetch_add(1, std::memory_order_relaxed);
    full->state.store(Chunk::full, std::memory_order_release);
    if (full_chunks_.fetch_add(1, std::memory_order_acq_rel) + 1 >= wake_after_) post(work_);
}

Chunk* Writer::next_chunk(Chunk* full) {
    if (full) hand_off(full);
    for (;;) {
        if (!accepting_.load(std::memory_order_acquire)) return nullptr;
        const std::size_t n = chunk_count_.load(std::memory_order_acquire);
        for (std::size_t i = 0; i < n; ++i) {
            std::uint8_t expected = Chunk::free;
            if (chunks_[i].state.compare_exchange_strong(expected, Chunk::filling, std::memory_order_acquire))
                return &chunks_[i];
        }
        // None free: wait while the writer has full chunks to free; else every chunk is being
        // filled by some thread (more threads than chunks), so add one.
        if (full_chunks_.load(std::memory_order_acquire) == 0) return grow();
        waiting_for_free_.fetch_add(1, std::memory_order_acq_rel);
        post(work_);
        wait(freed_);
        waiting_for_free_.fetch_sub(1, std::memory_order_acq_rel);
    }
}

Chunk* Writer::grow() {
    std::lock_guard guard(grow_lock_);
    const std::size_t n = chunk_count_.load(std::memory_order_relaxed);
    if (n == max_chunks_) return nullptr;  // records of this thread are dropped until one frees
    const std::size_t bytes = chunk_records_ * sizeof(Record);
    void* memory = populated(bytes);
    if (!memory) return nullptr;
    mappings_.emplace_back(memory, bytes);
    Chunk& chunk = chunks_[n];
    chunk.records = static_cast<Record*>(memory);
    chunk.state.store(Chunk::filling, std::memory_order_relaxed);
    chunk_count_.store(n + 1, std::memory_order_release);
    return &chunk;
}

void Writer::write_records(const Record* records, std::size_t n) {
    if (n == 0 || failed_.load(std::memory_order_relaxed)) return;
    const char* data = reinterpret_cast<const char*>(records);
    std::size_t left = n * sizeof(Record);
    while (left > 0) {
        const ssize_t done = ::write(fd_, data, left);
        if (done < 0 && errno == EINTR) continue;
        if (done <= 0) {
            failed_.store(true, std::memory_order_relaxed);
            fmt::print(stderr, "papshim: rank {}: writing the trace to {} failed ({}); records from now on are dropped\n",
                       world_rank_, spill_path(dir_, world_rank_), std::strerror(errno));
            return;
        }
        data += done;
        left -= std::size_t(done);
    }
    written_.fetch_add(n, std::memory_order_relaxed);
}

// Full chunks in hand-off order, so each thread's records stay in order, then with
// `partial` (a save) the filled part of the chunks still being filled. A chunk handed off
// before the lowest full one may not show as full yet (its thread is between the two steps
// of hand_off): the next round writes both, a save waits a moment for it. A thread stopped
// by the very signal being handled never finishes its hand-off; its chunk is then written
// as a filling one, after the others (no thread has records after it).
void Writer::write_chunks(bool partial) {
    const std::size_t n = chunk_count_.load(std::memory_order_acquire);
    for (int waited = 0;;) {
        Chunk* next = nullptr;
        for (std::size_t i = 0; i < n; ++i)
            if (chunks_[i].state.load(std::memory_order_acquire) == Chunk::full &&
                (!next || chunks_[i].order < next->order))
                next = &chunks_[i];
        if (!next) break;
        if (next->order > next_to_write_) {
            if (!partial) break;
            if (waited++ < 20) {
                ::poll(nullptr, 0, 1);
                continue;
            }
        }
        const std::uint32_t count = next->count.load(std::memory_order_acquire);
        write_records(next->records + next->written, count - next->written);
        next_to_write_ = std::max(next_to_write_, next->order + 1);
        next->written = 0;
        next->count.store(0, std::memory_order_relaxed);
        next->state.store(Chunk::free, std::memory_order_release);
        full_chunks_.fetch_sub(1, std::memory_order_acq_rel);
    }
    for (int waiting = waiting_for_free_.load(std::memory_order_acquire); waiting > 0; --waiting) post(freed_);
    if (!partial) return;
    for (std::size_t i = 0; i < n; ++i) {
        Chunk& chunk = chunks_[i];
        if (chunk.state.load(std::memory_order_acquire) != Chunk::filling) continue;
        const std::uint32_t count = chunk.count.load(std::memory_order_acquire);
        write_records(chunk.records + chunk.written, count - chunk.written);
        chunk.written = count;
    }
}

void Writer::write_index_now(bool refresh_sites) {
    if (refresh_sites && source_.sites) {
        std::vector<SiteInfo> fresh;
        if (source_.sites(fresh)) sites_ = std::move(fresh);
    }
    std::string error;
    const Fit fit = source_.fit ? source_.fit() : Fit{};
    if (!write_index(dir_, {world_rank_, saved_, written_.load(), fit, names_, sites_}, error) &&
        !failed_.exchange(true))
        fmt::print(stderr, "papshim: rank {}: {}; records from now on are dropped\n", world_rank_, error);
}

// Wakes for full chunks, for save requests and on a doubling schedule (1 s .. 5 s) that
// keeps the index's tick fit and site table current for a job that dies.
void Writer::run() {
    auto interval = std::chrono::steady_clock::duration(first_refresh);
    auto next_refresh = std::chrono::steady_clock::now() + interval;
    for (;;) {
        wait_until(work_, next_refresh);
        const bool stopping = stop_.load(std::memory_order_acquire);
        const std::uint64_t requested = save_requests_.load(std::memory_order_acquire);
        const bool saving = requested != saves_done_.load(std::memory_order_relaxed);
        write_chunks(saving);
        const auto now = std::chrono::steady_clock::now();
        if (saving) {
            saved_ = Saved(save_reason_.load(std::memory_order_relaxed));
            write_index_now(true);
            saves_done_.store(requested, std::memory_order_release);
        } else if (now >= next_refresh && !stopping) {
            write_index_now(true);
            interval = std::min<std::chrono::steady_clock::duration>(interval * 2, max_refresh);
            next_refresh = now + interval;
        }
        if (stopping) return;
    }
}

bool Writer::save(Saved why, int timeout_ms) {
    if (!running_.load(std::memory_order_acquire)) return false;
    save_reason_.store(std::uint8_t(why), std::memory_order_relaxed);
    const std::uint64_t ticket = save_requests_.fetch_add(1, std::memory_order_acq_rel) + 1;
    post(work_);
    for (int waited = 0; saves_done_.load(std::memory_order_acquire) < ticket; ++waited) {
        if (waited >= timeout_ms) return false;
        ::poll(nullptr, 0, 1);
    }
    return true;
}

void Writer::stop_thread() {
    if (!thread_.joinable()) return;
    stop_.store(true, std::memory_order_release);
    post(work_);
    thread_.join();
    running_.store(false, std::memory_order_release);
}

bool Writer::finish(std::vector<SiteInfo> sites, const Fit& fit, std::string& error) {
    accepting_.store(false, std::memory_order_release);
    stop_thread();
    if (fd_ < 0) return false;
    for (int waiting = waiting_for_free_.load(); waiting > 0; --waiting) post(freed_);
    write_chunks(true);
    saved_ = Saved::finalize;
    sites_ = std::move(sites);
    const bool closed = ::close(fd_) == 0;
    fd_ = -1;
    bool ok = closed && !failed_.load() &&
              write_index(dir_, {world_rank_, saved_, written_.load(), fit, names_, sites_}, error);
    if (!ok && error.empty()) error = fmt::format("rank {}: could not complete the trace files in {}", world_rank_, dir_);
    return ok;
}

}  // namespace papshim::trace
